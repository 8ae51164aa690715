package corpus

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// num spells an f64 the way serde_json does (ryu): shortest round-trip digits, always with a
// decimal point or an exponent, decimal notation for 1e-5 <= |x| < 1e16, otherwise "1e16",
// "1.5e-7". A mutated value then reads like one the harness wrote.
func num(x float64) json.Number {
	if x == 0 {
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(x, 'e', -1, 64) // d.dddde±XX
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimPrefix(e, "-")
	mant, expS, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expS)
	kk := exp + 1 // 10^(kk-1) <= |x| < 10^kk
	var s string
	switch {
	case kk > 16 || kk <= -5:
		s = digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		s += "e" + strconv.Itoa(kk-1)
	case kk >= len(digits):
		s = digits + strings.Repeat("0", kk-len(digits)) + ".0"
	case kk > 0:
		s = digits[:kk] + "." + digits[kk:]
	default:
		s = "0." + strings.Repeat("0", -kk) + digits
	}
	if neg {
		s = "-" + s
	}
	return json.Number(s)
}

// intNum spells an integer member.
func intNum(n int) json.Number { return json.Number(strconv.Itoa(n)) }

// numOf reads a number value (false for null, strings and the rest).
func numOf(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}

// intOf reads an integer value.
func intOf(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(string(n))
	return i, err == nil
}

// ulpStep moves x by k units in the last place away from zero (k < 0: toward zero), the
// distance a sum taken in another order drifts by.
func ulpStep(x float64, k int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	b := math.Float64bits(x)
	return math.Float64frombits(uint64(int64(b) + int64(k)))
}

// ulps is the distance in units of least precision between two doubles of one sign.
func ulps(a, b float64) uint64 {
	x, y := int64(math.Float64bits(math.Abs(a))), int64(math.Float64bits(math.Abs(b)))
	if x > y {
		return uint64(x - y)
	}
	return uint64(y - x)
}
