package diffview

import (
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Field patterns: the differing pointers with their array indices and ids wildcarded, so a
// semantic change that moves one field in every request reads as one line
// ("/per_request/*/ttft_ms 3998") instead of thousands. The pane groups by them, `kvparity diff
// --patterns` prints them, and each one is a valid exception pointer pattern that matches
// exactly the pointers it counts.

// A PatternCount is one field pattern of a diff and the differing pointers it stands for.
type PatternCount struct {
	Pattern string `json:"pattern"`
	Count   int    `json:"count"`
	// Changes are the indexes into Diff.Changes the pattern counts, in document order (of a
	// truncated diff, the held ones only: Count counts every pointer).
	Changes []int `json:"-"`
	first   int   // the document position of the first pointer counted
}

// foldMin is how many single-pointer siblings make their parent one pattern: an object whose
// many scalar fields each differ once (the summary's statistics) reads as "/summary/*" rather
// than as fifty lines of count 1.
const foldMin = 8

type patternCache struct {
	once     sync.Once
	patterns []PatternCount
}

// FieldPatterns lists the diff's field patterns, largest count first (ties in document order).
// Every differing pointer is counted by exactly one pattern, so the counts sum to
// d.Count. A segment is wildcarded ("*") when it is an array index or an id (a UUID,
// or a hex string of 16 digits or more); an object whose differing pointers are all direct,
// distinct children, at least foldMin of them, is folded into "<object>/*". Literal segments
// have their glob characters escaped, so MatchPattern(p.Pattern, ptr) holds for each counted
// pointer. The result is computed once per Diff and shared: do not modify it.
func (d *Diff) FieldPatterns() []PatternCount {
	d.fieldPats.once.Do(func() { d.fieldPats.patterns = fieldPatterns(d.allPointers()) })
	return d.fieldPats.patterns
}

// FieldPatternsOf is FieldPatterns of a list of differing pointers (a focused diff's file
// keeps them all), for a reader that has no Diff.
func FieldPatternsOf(pointers []string) []PatternCount {
	return fieldPatterns(func(yield func(string, int) bool) {
		for _, p := range pointers {
			if !yield(p, -1) {
				return
			}
		}
	})
}

// FieldPattern is the field pattern of one pointer before folding: indices and ids wildcarded.
func FieldPattern(ptr string) string {
	if ptr == "" || ptr == "/" || ptr[0] != '/' {
		return ptr
	}
	var b strings.Builder
	b.Grow(len(ptr))
	rest := ptr[1:]
	for {
		seg, tail, more := strings.Cut(rest, "/")
		b.WriteByte('/')
		if isIDSegment(seg) {
			b.WriteByte('*')
		} else {
			b.WriteString(EscapeGlob(seg))
		}
		if !more {
			break
		}
		rest = tail
	}
	return b.String()
}

// fieldPatterns counts pointers (every differing one, in document order, each with its index
// in Diff.Changes or -1 when not held).
func fieldPatterns(pointers iter.Seq2[string, int]) []PatternCount {
	idx := map[string]int{}
	var out []PatternCount
	i := 0
	for ptr, held := range pointers {
		p := FieldPattern(ptr)
		k, ok := idx[p]
		if !ok {
			k = len(out)
			idx[p] = k
			out = append(out, PatternCount{Pattern: p, first: i})
		}
		out[k].Count++
		if held >= 0 {
			out[k].Changes = append(out[k].Changes, held)
		}
		i++
	}
	out = fold(out)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].first < out[j].first
	})
	return out
}

// fold merges the direct single-pointer children of an object into "<object>/*" when they
// are all that differs under it and there are at least foldMin of them.
func fold(ps []PatternCount) []PatternCount {
	type stat struct {
		singles  int
		foldable bool
	}
	parents := map[string]*stat{}
	for _, p := range ps {
		segs := strings.Split(p.Pattern[min(1, len(p.Pattern)):], "/")
		for k := 1; k < len(segs); k++ {
			parent := "/" + strings.Join(segs[:k], "/")
			st := parents[parent]
			if st == nil {
				st = &stat{foldable: true}
				parents[parent] = st
			}
			if k == len(segs)-1 && p.Count == 1 && segs[k] != "*" && !strings.ContainsAny(parent, "*?[") {
				st.singles++
			} else {
				st.foldable = false
			}
		}
	}
	folded := map[string]int{} // parent → index in out
	out := ps[:0:0]
	for _, p := range ps {
		parent := p.Pattern[:strings.LastIndexByte(p.Pattern, '/')]
		if st := parents[parent]; parent != "" && st != nil && st.foldable && st.singles >= foldMin {
			k, ok := folded[parent]
			if !ok {
				k = len(out)
				folded[parent] = k
				out = append(out, PatternCount{Pattern: parent + "/*", first: p.first})
			}
			out[k].Count += p.Count
			out[k].Changes = append(out[k].Changes, p.Changes...)
			continue
		}
		out = append(out, p)
	}
	for _, k := range folded {
		sort.Ints(out[k].Changes)
	}
	return out
}

// isIDSegment reports whether a pointer segment is an array index or an id.
func isIDSegment(s string) bool {
	if s == "" {
		return false
	}
	if allDigits(s) {
		return true
	}
	if isUUID(s) {
		return true
	}
	if len(s) >= 16 {
		for i := 0; i < len(s); i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		return true
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isUUID matches the 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}

// EscapeGlob makes a literal pointer segment safe inside a pattern (path.Match escapes, and
// the braces of alternatives).
func EscapeGlob(seg string) string { return EscapeChars(seg, `*?[\{}`) }

// EscapeChars puts a backslash before each of seg's bytes in special.
func EscapeChars(seg, special string) string {
	if !strings.ContainsAny(seg, special) {
		return seg
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if strings.IndexByte(special, seg[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(seg[i])
	}
	return b.String()
}

// PatternsOf are the field patterns that count any of changes (ascending indexes into
// d.Changes: a diagnosis signature's Changes, or what no signature names), in FieldPatterns
// order: the patterns an exception record covering those pointers needs. A pattern may count
// other pointers too.
func (d *Diff) PatternsOf(changes []int) []string {
	if len(changes) == 0 {
		return nil
	}
	var out []string
	for _, p := range d.FieldPatterns() {
		for _, i := range p.Changes {
			if _, found := slices.BinarySearch(changes, i); found {
				out = append(out, p.Pattern)
				break
			}
		}
	}
	return out
}
