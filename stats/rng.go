package stats

import "math/rand/v2"

// scheduleStream is the PCG stream constant of the balanced randomized pair schedule. The bootstrap
// uses its own streams so that adding resamples never perturbs a schedule.
const scheduleStream = 0x5851F42D4C957F2D

// A source is the one PRNG recipe the package uses: PCG driven only through Uint64, with a
// modulo-rejection bounded draw. Both are platform independent and pinned by golden tests,
// unlike rand.Shuffle, whose reduction is not documented as stable across Go releases.
type source struct{ pcg *rand.PCG }

func newSource(seed, stream uint64) source { return source{rand.NewPCG(seed, stream)} }

// below returns a uniform draw in [0, k): redraw while u < 2^64 mod k, then reduce modulo k.
func (s source) below(k uint64) uint64 {
	if k == 0 {
		panic("stats: draw below 0")
	}
	limit := -k % k
	for {
		u := s.pcg.Uint64()
		if u >= limit {
			return u % k
		}
	}
}
