package diffpane

import (
	"github.com/sergi/go-diff/diffmatchpatch"
)

// A segment is a run of a value's text, marked when it differs from the other side.
type segment struct {
	text    string
	changed bool
}

// highlight splits two raw values into segments for side-by-side display: the A side keeps
// equal and deleted runs, the B side equal and inserted runs. Numbers and short strings are
// compared character by character (a shifted timestamp lights up only its changed digits);
// long values get a semantic cleanup so the highlight stays readable.
func highlight(a, b string) (as, bs []segment) {
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffMain(a, b, false)
	if len(a)+len(b) > 80 {
		diffs = dmp.DiffCleanupSemantic(diffs)
	}
	for _, d := range diffs {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			as = appendSeg(as, d.Text, false)
			bs = appendSeg(bs, d.Text, false)
		case diffmatchpatch.DiffDelete:
			as = appendSeg(as, d.Text, true)
		case diffmatchpatch.DiffInsert:
			bs = appendSeg(bs, d.Text, true)
		}
	}
	return as, bs
}

func appendSeg(ss []segment, text string, changed bool) []segment {
	if text == "" {
		return ss
	}
	if n := len(ss); n > 0 && ss[n-1].changed == changed {
		ss[n-1].text += text
		return ss
	}
	return append(ss, segment{text, changed})
}
