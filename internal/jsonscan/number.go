package jsonscan

// A NumberFault names how a literal breaks the JSON number grammar (RFC 8259 §6). Callers
// outside the package only test it against NumberOK; the faults word the Scanner's errors.
type NumberFault uint8

const (
	NumberOK          NumberFault = iota
	numberLeadingZero             // "01"
	numberNoDigits                // no integer digits: "-", "-x", ".5"
	numberNoFraction              // "1." not followed by a digit
	numberNoExponent              // "1e" or "1e+" not followed by a digit
)

// ScanNumber reads the digits of the JSON number in[i:], i just past any '-'. It returns where
// the literal ends (or, on a fault, where the fault was found: len(in) means the input ended
// mid-number), how many integer digits it has and its decimal exponent (saturating near 1e6),
// so callers can bound the magnitude without converting: literals are kept verbatim and never
// go through float64. The Scanner and report's canonical fast path share it, so both accept
// exactly the same literals.
func ScanNumber(in []byte, i int) (end, intDigits, exp int, fault NumberFault) {
	intStart := i
	switch {
	case i >= len(in):
		return i, 0, 0, numberNoDigits
	case in[i] == '0':
		i++
		if i < len(in) && in[i] >= '0' && in[i] <= '9' {
			return i, 0, 0, numberLeadingZero
		}
	case in[i] >= '1' && in[i] <= '9':
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			i++
		}
	default:
		return i, 0, 0, numberNoDigits
	}
	intDigits = i - intStart
	if i < len(in) && in[i] == '.' {
		i++
		d := i
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			i++
		}
		if i == d {
			return i, intDigits, 0, numberNoFraction
		}
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		i++
		neg := false
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			neg = in[i] == '-'
			i++
		}
		d := i
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			if exp < 1_000_000 {
				exp = exp*10 + int(in[i]-'0')
			}
			i++
		}
		if i == d {
			return i, intDigits, 0, numberNoExponent
		}
		if neg {
			exp = -exp
		}
	}
	return i, intDigits, exp, NumberOK
}
