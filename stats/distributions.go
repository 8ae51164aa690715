package stats

import "math"

// Quantiles of the reference distributions the dependence battery compares against. They are
// computed, not tabulated, so the battery works for any n, lag count and α; tests pin them to
// textbook table values.

// normalQuantile returns z with Φ(z) = p.
func normalQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// normalCDF returns Φ(z).
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// chiSquareCDF returns P(χ²_k ≤ x).
func chiSquareCDF(x float64, k int) float64 {
	if x <= 0 {
		return 0
	}
	return regularizedGammaP(float64(k)/2, x/2)
}

// chiSquareQuantile returns x with P(χ²_k ≤ x) = p.
func chiSquareQuantile(p float64, k int) float64 {
	hi := float64(k) + 10*math.Sqrt(2*float64(k)) + 10
	for chiSquareCDF(hi, k) < p {
		hi *= 2
	}
	return bisect(func(x float64) float64 { return chiSquareCDF(x, k) }, p, 0, hi)
}

// studentTCDF returns P(T_df ≤ t).
func studentTCDF(t float64, df int) float64 {
	v := float64(df)
	tail := 0.5 * regularizedBeta(v/(v+t*t), v/2, 0.5)
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// studentTQuantile returns t with P(T_df ≤ t) = p.
func studentTQuantile(p float64, df int) float64 {
	if p == 0.5 {
		return 0
	}
	lo, hi := -1.0, 1.0
	for studentTCDF(lo, df) > p {
		lo *= 2
	}
	for studentTCDF(hi, df) < p {
		hi *= 2
	}
	return bisect(func(t float64) float64 { return studentTCDF(t, df) }, p, lo, hi)
}

// bisect finds x in [lo, hi] with f(x) = p for a non-decreasing f, to full float precision.
func bisect(f func(float64) float64, p, lo, hi float64) float64 {
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if f(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regularizedGammaP is P(a, x) = γ(a, x)/Γ(a): the power series below a+1, Lentz's continued
// fraction for Q above (Numerical Recipes §6.2).
func regularizedGammaP(a, x float64) float64 {
	if x <= 0 {
		return 0
	}
	lg, _ := math.Lgamma(a)
	front := math.Exp(-x + a*math.Log(x) - lg)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-16 {
				break
			}
		}
		return sum * front
	}
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return 1 - front*h
}

// regularizedBeta is I_x(a, b), by the continued fraction (Numerical Recipes §6.4), using the
// symmetry I_x(a,b) = 1 − I_{1−x}(b,a) where the fraction converges faster.
func regularizedBeta(x, a, b float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(x, a, b) / a
	}
	return 1 - front*betaFraction(1-x, b, a)/b
}

func betaFraction(x, a, b float64) float64 {
	const tiny = 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c := 1.0
	d := 1 - qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m < 1000; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return h
}
