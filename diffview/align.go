package diffview

import (
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Ordered arrays whose lengths differ are aligned before they are compared: an event inserted
// into (or dropped from) a history is one added (or removed) element, not a shift that makes
// every later position differ. Elements are identical when their bytes are; go-diff's Myers
// diff runs over the element sequences with one rune per distinct element.

// An alignedRun is a stretch of the alignment: n equal elements, or del elements of A replaced
// by ins elements of B.
type alignedRun struct {
	equal    int
	del, ins int
}

// alignTimeout bounds one alignment: past it go-diff returns a valid, possibly longer, script.
const alignTimeout = 2e9 // 2 s, in nanoseconds

// align returns the runs that turn A's elements into B's.
func align(a, b *Doc, ea, eb []int32) []alignedRun {
	ids := make(map[string]rune, len(ea)+len(eb))
	seq := func(d *Doc, es []int32) []rune {
		rs := make([]rune, len(es))
		for k, e := range es {
			raw := d.Raw(e)
			id, ok := ids[raw]
			if !ok {
				id = rune(len(ids) + 1)
				ids[raw] = id
			}
			rs[k] = id
		}
		return rs
	}
	ra, rb := seq(a, ea), seq(b, eb)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = alignTimeout
	var runs []alignedRun
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		// Ids past the valid rune range come back as U+FFFD: still one rune each.
		n := utf8.RuneCountInString(d.Text)
		last := len(runs) - 1
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			runs = append(runs, alignedRun{equal: n})
		case diffmatchpatch.DiffDelete:
			if last < 0 || runs[last].equal > 0 {
				runs = append(runs, alignedRun{})
				last++
			}
			runs[last].del += n
		case diffmatchpatch.DiffInsert:
			if last < 0 || runs[last].equal > 0 {
				runs = append(runs, alignedRun{})
				last++
			}
			runs[last].ins += n
		}
	}
	return runs
}
