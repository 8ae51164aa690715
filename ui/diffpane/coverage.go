package diffpane

import (
	"fmt"
	"iter"
	"strings"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
	"kvparity/exceptions"
)

// The form's live coverage: while the pointer patterns are typed, what they cover of the
// diff and what no record (the others, and this one) covers, counted off the update loop with
// a generation so only the newest count is shown.

// coverage is what a record's patterns cover in the diff.
type coverage struct {
	gen       int
	key       string // the patterns counted, joined
	done      bool
	covered   int
	uncovered int    // differing pointers neither this record nor the others cover
	sel       []int  // the covered changes
	differs   string // Diff.Describe(sel): the record's "what differs"
	others    []bool // covered by the other valid records (computed once per form)
	bad       string // an invalid pattern, in words
}

// coverageMsg carries one count.
type coverageMsg struct{ cov coverage }

func patternsKey(ps []string) string { return strings.Join(ps, "\x00") }

// current says whether the count is for these patterns.
func (c coverage) current(ps []string) bool { return c.done && c.key == patternsKey(ps) }

// computeCoverage counts; with a latest generation it gives up (done false) once superseded.
func computeCoverage(d *diffview.Diff, recs []exceptions.ExceptionRecord, self string, pats []string, others []bool,
	gen int, latest *atomic.Int64) coverage {
	stale := func() bool { return latest != nil && latest.Load() != int64(gen) }
	c := coverage{gen: gen, key: patternsKey(pats)}
	if others == nil {
		others = make([]bool, len(d.Changes))
		for i := range recs {
			if recs[i].ID == self || recs[i].Validate() != nil {
				continue
			}
			sel, ok := d.Select(recs[i].Pointers, stale)
			if !ok {
				return coverage{}
			}
			for _, ci := range sel {
				others[ci] = true
			}
		}
	}
	c.others = others
	var valid, bad []string
	for i, p := range pats {
		probe := probeRecord([]string{p})
		if err := probe.Validate(); err != nil {
			bad = append(bad, fmt.Sprintf("pattern %d of %d: %v", i+1, len(pats), err)) // each named, not the last only
			continue
		}
		valid = append(valid, p)
	}
	c.bad = strings.Join(bad, "; ")
	sel, ok := d.Select(valid, stale)
	if !ok {
		return coverage{}
	}
	c.sel, c.covered = sel, len(sel)
	if d.Truncated() {
		// The list holds some of the changes only: count over every differing pointer.
		if c.covered, c.uncovered, ok = countCoverage(d, recs, self, valid, stale); !ok {
			return coverage{}
		}
	} else {
		k := 0
		for i := range d.Changes {
			for k < len(sel) && sel[k] < i {
				k++
			}
			if !others[i] && !(k < len(sel) && sel[k] == i) {
				c.uncovered++
			}
		}
	}
	c.differs = d.Describe(sel)
	c.done = true
	return c
}

// countCoverage counts, over every differing pointer of a truncated diff, those pats cover
// and those neither they nor the other records cover; ok is false once stale.
func countCoverage(d *diffview.Diff, recs []exceptions.ExceptionRecord, self string, pats []string, stale func() bool) (covered, uncovered int, ok bool) {
	judged := make([]exceptions.ExceptionRecord, 0, len(recs)+1)
	for _, r := range recs {
		if r.ID != self {
			judged = append(judged, r)
		}
	}
	judged = append(judged, probeRecord(pats))
	gaveUp := false
	x, counts := exceptions.CoverageByRecord(untilStale(d.AllPointers(), stale, &gaveUp), judged)
	if gaveUp {
		return 0, 0, false
	}
	return counts[len(counts)-1].Covers, x.Uncovered, true
}

// untilStale yields seq's pointers until stale says a newer count was asked for (polled every
// few thousand), then sets gaveUp.
func untilStale(seq iter.Seq[string], stale func() bool, gaveUp *bool) iter.Seq[string] {
	return func(yield func(string) bool) {
		n := 0
		for p := range seq {
			if n++; n%4096 == 0 && stale() {
				*gaveUp = true
				return
			}
			if !yield(p) {
				return
			}
		}
	}
}

// probeRecord is a record of these patterns whose other fields are filled, so that its
// validation judges the patterns alone.
func probeRecord(pats []string) exceptions.ExceptionRecord {
	return exceptions.ExceptionRecord{Pointers: pats, Differs: "x", Baseline: "x", Candidate: "x", Cause: "x",
		RegressionTest: "x", Impact: "x", Disposition: "x"}
}

// askCoverage counts the form's current patterns off the update loop.
func (p *Model) askCoverage() tea.Cmd {
	if p.diff == nil {
		return nil
	}
	p.covGen++
	if p.covLatest == nil {
		p.covLatest = new(atomic.Int64)
	}
	p.covLatest.Store(int64(p.covGen))
	d, recs, self, pats, others := p.plainDiff(), p.recs, p.form.id, p.form.record().Pointers, p.form.cov.others
	gen, latest := p.covGen, p.covLatest
	return func() tea.Msg {
		c := computeCoverage(d, recs, self, pats, others, gen, latest)
		if !c.done {
			return nil // superseded
		}
		return coverageMsg{cov: c}
	}
}

// onCoverage shows a count unless a newer one was asked for.
func (p Model) onCoverage(msg coverageMsg) Model {
	if p.mode == modeForm && msg.cov.gen == p.covGen {
		p.form.cov = msg.cov
		// The requests and events the previous patterns counted would describe another record.
		if kept := p.form.redraft(p.plainDiff(), msg.cov); len(kept) > 0 {
			p.form.note = strings.Join(kept, " and ") + " typed by hand: kept as typed, check them against the new patterns"
		} else if msg.cov.key != "" {
			p.form.note = ""
		}
	}
	return p
}

// coverageLines are the form's live lines under the patterns: the count, what differs, and
// whether the record is broad. They start under the label, not the value, so the count fits
// an 80-column screen whole.
func (f exceptionForm) coverageLines(d *diffview.Diff, w int) []string {
	st := f.styles
	pats := f.record().Pointers
	c := f.cov
	pending := !c.current(pats)
	const ind = "    ↳ "
	if !c.done && c.key == "" && c.covered == 0 && pending {
		return []string{st.Faint.Render(cut(ind+"counting what the patterns cover…", w)), "", ""}
	}
	total := d.Count
	txt := fmt.Sprintf("covers %d of %d differing pointers · %d stay uncovered", c.covered, total, c.uncovered)
	style := st.Good
	switch {
	case c.covered == 0:
		txt = fmt.Sprintf("covers none of the %d differing pointers · %d uncovered", total, c.uncovered)
		style = st.Warn
	case c.uncovered > 0:
		style = st.Warn
	}
	if pending {
		txt += " · counting…"
	}
	if c.bad != "" {
		txt += " · " + c.bad
		style = st.Bad
	}
	lines := []string{style.Render(cut(ind+txt, w))}
	lines = append(lines, st.Faint.Render(cut("      what differs (computed on save): "+c.differs, w)))
	if why := exceptions.BroadReason(pats, c.covered, total); why != "" {
		lines = append(lines, st.Bad.Render(cut("      BROAD: "+why+" · saving asks you to confirm", w)))
	} else {
		lines = append(lines, "")
	}
	return lines
}
