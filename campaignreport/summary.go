package campaignreport

import (
	"fmt"
	"math"
	"strings"
)

// summary.md is the report made to be pasted into a pull request: the verdicts with their
// caveats on the same line, what changed between the revisions, the diagnosis, the field
// patterns and the exception records, and how to reproduce it from the campaign folder. Bulk
// goes under <details>; report.md stays the full audit. Every path it names is relative to
// the campaign folder.

// summaryLimit bounds summary.md (the 20 KB; a GitHub comment or PR body takes 65,536
// characters). The sections above the fold are bounded by construction (rows and cells are
// capped); the <details> blocks are left out, largest first, when the whole would not fit.
const summaryLimit = 20_000

// Caps on what one section quotes above the fold (everything is in report.md and diffs/).
const (
	sumCell        = 420 // characters of one table cell
	sumInline      = 3   // caveats or BROAD records said inline in one verdict row
	sumPatternRows = 12  // field patterns in the table
	sumRecords     = 10  // exception records in the table
	sumSignatures  = 6   // diagnosis lines
	sumBulkRows    = 80  // rows of one <details> table
)

// A part is one piece of summary.md; a bulk part is a <details> block that may be left out.
type part struct {
	text string
	bulk string // what the part is, when it is bulk ("" above the fold)
}

func summary(r *Report) []byte { return summaryFor(r, sumPlots) }

// summaryFor is summary.md with plots as its plots section (a job summary cannot show the
// campaign's images: githubSummary says where they are instead).
func summaryFor(r *Report, plots func(m *md, r *Report)) []byte {
	var parts []part
	local := localPaths(r)
	add := func(f func(m *md, r *Report)) {
		m := &md{}
		f(m, r)
		parts = append(parts, part{text: local.Replace(m.b.String())})
	}
	bulk := func(what string, f func(m *md, r *Report) bool) {
		m := &md{}
		if f(m, r) {
			parts = append(parts, part{text: local.Replace(m.b.String()), bulk: what})
		}
	}
	add(sumHead)
	add(sumVerdicts)
	add(sumChanges)
	add(plots)
	add(sumDiagnosis)
	bulk("the diagnosis's evidence", sumDiagnosisEvidence)
	add(sumPatterns)
	bulk("every field pattern", sumPatternsAll)
	add(sumExceptions)
	bulk("the exception records in full", sumExceptionsFull)
	bulk("the paired ratios", sumPairs)
	bulk("the determinism runs and lifecycle rules", sumRuns)
	add(sumReproduce)
	return []byte(fit(parts, summaryLimit))
}

// fit joins the parts, leaving out the largest <details> blocks until the whole is at most
// limit bytes; each one left out is said in one line.
func fit(parts []part, limit int) string {
	total := func() int {
		n := 0
		for _, p := range parts {
			n += len(p.text)
		}
		return n
	}
	for total() > limit {
		big := -1
		for i, p := range parts {
			if p.bulk != "" && (big < 0 || len(p.text) > len(parts[big].text)) {
				big = i
			}
		}
		if big < 0 {
			break
		}
		parts[big] = part{text: fmt.Sprintf("\n_(%s: left out to keep this summary under %d KB; see report.md)_\n", parts[big].bulk, limit/1000)}
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.text)
	}
	s := b.String()
	if len(s) > limit { // the capped sections alone never get here; a last guard for the bound
		// At a line's end: a line cut inside a code span would let the span's text be read as
		// Markdown and HTML.
		cut := strings.LastIndexByte(s[:limit-200], '\n') + 1
		s = s[:cut] + "\n_(summary cut at " + fmt.Sprint(limit/1000) + " KB: the rest is in report.md)_\n"
	}
	return s
}

// clipTo shortens s to n bytes on a rune boundary, on one line.
func clipTo(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n - 1
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// num formats a figure with about three significant digits, never with an exponent.
func num(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// inUnit is num with its unit, milliseconds said in seconds when the scale (the largest
// figure of a table row) is 10 s or more, so that one row says all its figures in one unit.
func inUnit(v float64, unit string, scale float64) string {
	if unit == "ms" && scale >= 10_000 {
		return num(v/1000) + " s"
	}
	return strings.TrimSpace(num(v) + " " + unit)
}
