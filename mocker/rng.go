package mocker

import "math/bits"

// wyrand is fastrand 2.x's generator (the seeded selector RNG of canonical mode, seed
// 0xd1a0_5eed). Each router owns one, so selection never depends on a shared or thread-local
// RNG.
type wyrand struct{ s uint64 }

const selectorSeed = 0xd1a05eed

func (r *wyrand) u64() uint64 {
	r.s += 0xA0761D6478BD642F
	hi, lo := bits.Mul64(r.s, r.s^0xE7037ED1A0B428DB)
	return hi ^ lo
}

// below returns a uniform value in [0, n) by Lemire's multiply-shift with rejection, as
// fastrand's usize(0..n) does.
func (r *wyrand) below(n uint64) uint64 {
	x := r.u64()
	hi, lo := bits.Mul64(x, n)
	if lo < n {
		t := -n % n
		for lo < t {
			x = r.u64()
			hi, lo = bits.Mul64(x, n)
		}
	}
	return hi
}

// f64 returns a uniform value in [0, 1) from the top 52 bits, as fastrand's f64 does.
func (r *wyrand) f64() float64 {
	const b = 64
	const f = 52
	u := r.u64() >> (b - f)
	return float64(u) / float64(uint64(1)<<f)
}
