package corpus

import (
	"encoding/json"
	"sort"
	"strconv"

	"kvparity/internal/pointer"
)

// A leaf is one differing pointer between A and B, with the per_request records it is in.
type leaf struct {
	ptr        string // B's index into /per_request (A's for a record only A has)
	a, b       any
	hasA, hasB bool
	recA, recB map[string]any
}

// diffLeaves lists every differing leaf of two reports in document order: objects by key,
// arrays by position, /per_request paired by identity — B's uuid, or the A uuid rename says
// it was (a renamed request is still the same request).
func diffLeaves(a, b *reportTree, rename map[string]string) []leaf {
	w := &leafWalk{rename: rename}
	w.walk("", a.root, b.root, nil, nil)
	return w.out
}

type leafWalk struct {
	rename map[string]string
	out    []leaf
}

func (w *leafWalk) add(ptr string, x, y any, hasA, hasB bool, ra, rb map[string]any) {
	w.out = append(w.out, leaf{ptr: ptr, a: x, b: y, hasA: hasA, hasB: hasB, recA: ra, recB: rb})
}

func (w *leafWalk) walk(ptr string, x, y any, ra, rb map[string]any) {
	switch xv := x.(type) {
	case map[string]any:
		if yv, ok := y.(map[string]any); ok {
			for _, k := range unionKeys(xv, yv) {
				p := ptr + "/" + pointer.Escape(k)
				ex, okx := xv[k]
				ey, oky := yv[k]
				switch {
				case !okx || !oky:
					w.add(p, ex, ey, okx, oky, ra, rb)
				case p == "/per_request":
					w.requests(asArray(ex), asArray(ey))
				default:
					w.walk(p, ex, ey, ra, rb)
				}
			}
			return
		}
	case []any:
		if yv, ok := y.([]any); ok {
			for i := 0; i < max(len(xv), len(yv)); i++ {
				p := ptr + "/" + strconv.Itoa(i)
				switch {
				case i < len(xv) && i < len(yv):
					w.walk(p, xv[i], yv[i], ra, rb)
				case i < len(xv):
					w.add(p, xv[i], nil, true, false, ra, rb)
				default:
					w.add(p, nil, yv[i], false, true, ra, rb)
				}
			}
			return
		}
	}
	if !sameValue(x, y) {
		w.add(ptr, x, y, true, true, ra, rb)
	}
}

// requests walks the record pairs in B's order, then the records only A has (at A's index,
// as the diff names them) — records only B has sit at their B index.
func (w *leafWalk) requests(x, y []any) {
	ra, rb := objects(x), objects(y)
	byUUID := make(map[string]int, len(ra))
	for i, r := range ra {
		byUUID[uuidOf(r)] = i
	}
	matched := make([]bool, len(ra))
	var onlyB []int
	for j, r := range rb {
		u := uuidOf(r)
		if old, ok := w.rename[u]; ok {
			u = old
		}
		i, ok := byUUID[u]
		if !ok {
			onlyB = append(onlyB, j)
			continue
		}
		matched[i] = true
		w.walk("/per_request/"+strconv.Itoa(j), ra[i], r, ra[i], r)
	}
	for i, r := range ra {
		if !matched[i] {
			w.add("/per_request/"+strconv.Itoa(i), r, nil, true, false, r, nil)
		}
	}
	for _, j := range onlyB {
		w.add("/per_request/"+strconv.Itoa(j), nil, rb[j], false, true, nil, rb[j])
	}
}

func asArray(v any) []any {
	a, _ := v.([]any)
	return a
}

// sameValue compares two values as the canonical line spells them (numbers verbatim).
func sameValue(x, y any) bool {
	switch xv := x.(type) {
	case json.Number:
		yv, ok := y.(json.Number)
		return ok && xv == yv
	case string:
		yv, ok := y.(string)
		return ok && xv == yv
	case bool:
		yv, ok := y.(bool)
		return ok && xv == yv
	case nil:
		return y == nil
	}
	return string(appendValue(nil, x)) == string(appendValue(nil, y))
}

func unionKeys(a, b map[string]any) []string {
	ks := make([]string, 0, len(a)+len(b))
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}
