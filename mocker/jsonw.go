package mocker

import (
	"math"
	"sort"
	"strconv"

	"kvparity/report"
)

// A jv is a JSON value as serde_json would print it: f64 fields stay floats (`4.0`), integer
// fields stay integers, objects are written with keys sorted bytewise (Rust BTreeMap order) in
// canonical mode, or in insertion order for the pretty --report-json.
type jv struct {
	kind jkind
	i    int64
	f    float64
	s    string
	b    bool
	arr  []jv
	keys []string
	vals []jv
}

type jkind uint8

const (
	jNull jkind = iota
	jInt
	jFloat
	jStr
	jBool
	jArr
	jObj
)

func jnull() jv            { return jv{kind: jNull} }
func jint(n int) jv        { return jv{kind: jInt, i: int64(n)} }
func jfloat(f float64) jv  { return jv{kind: jFloat, f: f} }
func jstr(s string) jv     { return jv{kind: jStr, s: s} }
func jbool(b bool) jv      { return jv{kind: jBool, b: b} }
func jarr(items ...jv) jv  { return jv{kind: jArr, arr: items} }
func jarrOf(items []jv) jv { return jv{kind: jArr, arr: items} }
func jobj() *jv            { return &jv{kind: jObj} }
func (o *jv) set(k string, v jv) *jv {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	return o
}
func (o *jv) val() jv { return *o }

// jopt is a float that may be None.
func jopt(f float64, ok bool) jv {
	if !ok {
		return jnull()
	}
	return jfloat(f)
}

// appendCompact writes v as compact JSON with object keys sorted bytewise.
func appendCompact(b []byte, v jv) []byte {
	switch v.kind {
	case jNull:
		return append(b, "null"...)
	case jInt:
		return strconv.AppendInt(b, v.i, 10)
	case jFloat:
		return appendRustFloat(b, v.f)
	case jStr:
		return report.AppendJSONString(b, v.s)
	case jBool:
		return strconv.AppendBool(b, v.b)
	case jArr:
		b = append(b, '[')
		for i, it := range v.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCompact(b, it)
		}
		return append(b, ']')
	case jObj:
		idx := make([]int, len(v.keys))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(x, y int) bool { return v.keys[idx[x]] < v.keys[idx[y]] })
		b = append(b, '{')
		for n, i := range idx {
			if n > 0 {
				b = append(b, ',')
			}
			b = report.AppendJSONString(b, v.keys[i])
			b = append(b, ':')
			b = appendCompact(b, v.vals[i])
		}
		return append(b, '}')
	}
	return b
}

// appendPretty writes v the way serde_json::to_writer_pretty does: two-space indent, ": "
// separators, keys in insertion (serializer) order, empty containers as [] and {}.
func appendPretty(b []byte, v jv, indent int) []byte {
	var open, close byte
	var items []jv
	switch v.kind {
	case jArr:
		open, close, items = '[', ']', v.arr
	case jObj:
		open, close, items = '{', '}', v.vals
	default:
		return appendCompact(b, v)
	}
	b = append(b, open)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNewline(b, indent+1)
		if v.kind == jObj {
			b = report.AppendJSONString(b, v.keys[i])
			b = append(b, ": "...)
		}
		b = appendPretty(b, it, indent+1)
	}
	if len(items) > 0 {
		b = appendNewline(b, indent)
	}
	return append(b, close)
}

// appendNewline starts a pretty-printed line at the given nesting depth.
func appendNewline(b []byte, indent int) []byte {
	b = append(b, '\n')
	for i := 0; i < indent; i++ {
		b = append(b, ' ', ' ')
	}
	return b
}

// appendRustFloat prints a finite f64 like serde_json (ryu): shortest round-trip digits, always
// with a decimal point or exponent, decimal notation for 1e-5 <= |v| < 1e16, otherwise `1e16`,
// `1.5e-7` (no `+`, no leading zeros in the exponent).
func appendRustFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		// serde_json writes null for non-finite floats; canonical mode rejects them earlier.
		return append(b, "null"...)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d.ddddde±XX
	neg := false
	if e[0] == '-' {
		neg = true
		e = e[1:]
	}
	// Split mantissa digits and exponent.
	var digits []byte
	i := 0
	for ; i < len(e) && e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits = append(digits, e[i])
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	length := len(digits)
	k := exp - length + 1 // value = digits × 10^k
	kk := length + k      // 10^(kk-1) <= v < 10^kk
	if neg {
		b = append(b, '-')
	}
	switch {
	case k >= 0 && kk <= 16:
		b = append(b, digits...)
		for j := 0; j < k; j++ {
			b = append(b, '0')
		}
		return append(b, ".0"...)
	case kk > 0 && kk <= 16:
		b = append(b, digits[:kk]...)
		b = append(b, '.')
		return append(b, digits[kk:]...)
	case kk > -5 && kk <= 0:
		b = append(b, "0."...)
		for j := 0; j < -kk; j++ {
			b = append(b, '0')
		}
		return append(b, digits...)
	case length == 1:
		b = append(b, digits[0], 'e')
		return strconv.AppendInt(b, int64(kk-1), 10)
	default:
		b = append(b, digits[0], '.')
		b = append(b, digits[1:]...)
		b = append(b, 'e')
		return strconv.AppendInt(b, int64(kk-1), 10)
	}
}
