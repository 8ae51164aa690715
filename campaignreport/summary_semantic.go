package campaignreport

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"kvparity/diffview"
	"kvparity/exceptions"
)

// A namedDiff is one focused diff the summary diagnoses, with what it compares.
type namedDiff struct {
	what string
	d    *DiffSummary
}

// diffs is the focused diffs the summary diagnoses: the parity mismatch, then each UNSTABLE
// arm's repetitions.
func diffs(r *Report) []namedDiff {
	var out []namedDiff
	if d := r.Semantic.Diff; d != nil {
		out = append(out, namedDiff{"baseline vs candidate", d})
	}
	for _, a := range r.Arms {
		if a.Instability != nil {
			out = append(out, namedDiff{string(a.Arm) + "'s own repetitions (" + a.Verdict.String() + ")", a.Instability})
		}
	}
	return out
}

func sumDiagnosis(m *md, r *Report) {
	m.h(3, "Diagnosis")
	ds := diffs(r)
	if len(ds) == 0 {
		switch {
		case len(r.Arms) == 2 && len(r.Arms[0].Digests) == 1 && slices.Equal(r.Arms[0].Digests, r.Arms[1].Digests):
			m.p("Nothing to diagnose: every counted repetition of both arms has the digest %s.", mdCode(short(r.Arms[0].Digests[0])))
		default:
			m.p("No focused diff: %s.", mdText(strings.TrimSuffix(r.Parity.Reason, ".")))
		}
	}
	for _, x := range ds {
		d := x.d
		m.p("**%s** differ on %d pointer(s) (every one in %s):", x.what, d.Count, mdCode(d.File))
		m.blank()
		if d.First != nil {
			m.p("- first divergence: %s", mdClip(vtimes(d.First.Text), sumCell))
		}
		for i, s := range d.Diagnosis {
			if i == sumSignatures {
				m.p("- … %d more signature(s) in report.md", len(d.Diagnosis)-i)
				break
			}
			m.p("- %s", mdClip(vtimes(s.String()), sumCell))
		}
		m.blank()
	}
	for _, a := range r.Arms {
		if a.Finding != "" {
			m.p("- %s perturbed repetitions: %s", a.Arm, mdClip(a.Finding, sumCell))
		}
	}
}

func sumDiagnosisEvidence(m *md, r *Report) bool {
	any := false
	for _, x := range diffs(r) {
		for _, s := range x.d.Diagnosis {
			if len(s.Evidence) > 0 {
				any = true
			}
		}
	}
	if !any {
		return false
	}
	m.blank()
	m.p("<details><summary>The diagnosis's evidence</summary>")
	m.blank()
	for _, x := range diffs(r) {
		for _, s := range x.d.Diagnosis[:min(len(x.d.Diagnosis), sumBulkRows)] {
			m.p("- **%s** (%s)", mdText(vtimes(s.Label)), x.what)
			for _, e := range s.Evidence[:min(len(s.Evidence), 8)] {
				m.p("  - %s", mdClip(vtimes(e), sumCell))
			}
		}
	}
	m.blank()
	m.p("</details>")
	return true
}

// A patternRow is one field pattern of the mismatch with how the exception records cover it.
type patternRow struct {
	diffview.PatternCount
	uncovered int
	records   []string // the records covering some of its pointers
}

// patternDiff is the diff the field-pattern table is of: the parity mismatch, else the first
// UNSTABLE arm's repetitions (whose differences no record can cover: exceptions never waive
// leaked entropy).
func patternDiff(r *Report) (namedDiff, bool) {
	ds := diffs(r)
	if len(ds) == 0 || len(ds[0].d.Pointers) == 0 {
		return namedDiff{}, false
	}
	return ds[0], true
}

// patternRows counts the diff's differing pointers by field pattern and, per pattern, how
// many of them the exception records cover (of the parity mismatch only).
func patternRows(r *Report) []patternRow {
	nd, ok := patternDiff(r)
	if !ok {
		return nil
	}
	d := nd.d
	parity := d == r.Semantic.Diff
	pcs := diffview.FieldPatternsOf(d.Pointers)
	index := map[string]int{}
	for i, pc := range pcs {
		index[pc.Pattern] = i
	}
	members := make([][]string, len(pcs))
	for _, p := range d.Pointers {
		fp := diffview.FieldPattern(p)
		i, ok := index[fp]
		if !ok { // folded into its parent's "<object>/*"
			i, ok = index[path.Dir(fp)+"/*"]
		}
		if ok {
			members[i] = append(members[i], p)
		}
	}
	rows := make([]patternRow, len(pcs))
	for i, pc := range pcs {
		rows[i] = patternRow{PatternCount: pc, uncovered: pc.Count}
		if !parity || len(r.Semantic.Exceptions) == 0 || len(members[i]) == 0 {
			continue
		}
		x, counts := exceptions.CoverageByRecord(slices.Values(members[i]), r.Semantic.Exceptions)
		rows[i].uncovered = x.Uncovered
		for _, c := range counts {
			if c.Covers > 0 {
				rows[i].records = append(rows[i].records, c.ID)
			}
		}
	}
	return rows
}

func (m *md) patternTable(rows []patternRow) {
	m.head("field pattern", "differing", "uncovered", "covered by")
	for _, pr := range rows {
		by := "—"
		if len(pr.records) > 0 {
			by = strings.Join(pr.records, ", ")
		}
		m.row(mdCode(clipTo(pr.Pattern, 160)), fmt.Sprint(pr.Count), fmt.Sprint(pr.uncovered), mdClip(by, 160))
	}
}

func sumPatterns(m *md, r *Report) {
	rows := patternRows(r)
	if rows == nil {
		return
	}
	nd, _ := patternDiff(r)
	m.h(3, "Field patterns")
	m.p("The %d differing pointers of %s by field pattern (array indices and ids as `*`; each pattern is a valid exception pointer pattern):", nd.d.Count, nd.what)
	m.blank()
	m.patternTable(rows[:min(len(rows), sumPatternRows)])
	if len(rows) > sumPatternRows {
		m.blank()
		m.p("… %d more pattern(s) below and in `kvparity diff --campaign . --patterns`.", len(rows)-sumPatternRows)
	}
}

func sumPatternsAll(m *md, r *Report) bool {
	rows := patternRows(r)
	if len(rows) <= sumPatternRows {
		return false
	}
	rest := rows[sumPatternRows:]
	m.blank()
	m.p("<details><summary>%d more field pattern(s)</summary>", len(rest))
	m.blank()
	m.patternTable(rest[:min(len(rest), sumBulkRows)])
	if len(rest) > sumBulkRows {
		m.blank()
		m.p("… %d more in `kvparity diff --campaign . --patterns`.", len(rest)-sumBulkRows)
	}
	m.blank()
	m.p("</details>")
	return true
}

func sumExceptions(m *md, r *Report) {
	s := r.Semantic
	m.h(3, fmt.Sprintf("Exception records (%d)", len(s.Exceptions)))
	if len(s.Exceptions) == 0 {
		m.p("None recorded (`exceptions.jsonl`).")
		return
	}
	cov := map[string]recordCoverage{}
	for _, c := range s.Coverage {
		cov[c.ID] = c
	}
	m.head("record", "covers", "broad", "differs", "disposition")
	for i, e := range s.Exceptions {
		if i == sumRecords {
			break
		}
		c := cov[e.ID]
		covers := "—"
		if s.Diff != nil {
			covers = fmt.Sprintf("%d of %d", c.Covers, s.Diff.Count)
		}
		broad := "no"
		if c.Broad != "" {
			broad = "**BROAD**: " + mdClip(c.Broad, 120)
		}
		m.row(mdCode(e.ID), covers, broad, mdClip(e.Differs, 160), mdClip(e.Disposition, 160))
	}
	if len(s.Exceptions) > sumRecords {
		m.blank()
		m.p("… %d more record(s) in report.md.", len(s.Exceptions)-sumRecords)
	}
}

func sumExceptionsFull(m *md, r *Report) bool {
	s := r.Semantic
	if len(s.Exceptions) == 0 {
		return false
	}
	m.blank()
	m.p("<details><summary>The exception records in full</summary>")
	for _, e := range s.Exceptions[:min(len(s.Exceptions), sumRecords)] {
		m.blank()
		m.p("**%s** — pointers %s", mdCode(e.ID), mdCode(clipTo(strings.Join(e.Pointers, " "), 300)))
		m.blank()
		for _, f := range [][2]string{{"differs", e.Differs}, {"baseline", e.Baseline}, {"candidate", e.Candidate}, {"cause", e.Cause},
			{"regression test", e.RegressionTest}, {"impact", e.Impact}, {"disposition", e.Disposition}} {
			m.p("- %s: %s", f[0], mdClip(f[1], 300))
		}
	}
	m.blank()
	m.p("</details>")
	return true
}
