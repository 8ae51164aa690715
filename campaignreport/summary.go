package campaignreport

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
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

// summary is summary.md; base is the checked image base URL ("" links no image).
func summary(r *Report, base string) []byte { return summaryFor(r, sumPlots(base)) }

// summaryFor is summary.md with plots as its plots section (a job summary cannot show the
// campaign's images: githubSummary names them instead).
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

// The reports say each kind of number one way: a ratio with 3 decimals (ratio3), a duration
// in ms with at most one decimal and thousands separators, or in s from 10 s (duration), a
// virtual time as t=… s (vtime), other figures with about three significant digits (num).

// ratio3 is a ratio (r = candidate / baseline, a threshold, a bound) with 3 decimals.
func ratio3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// duration is ms as people read a latency: "843.2 ms", "1,234.5 ms", or "28.9 s" when the
// scale (the largest figure said beside it) is 10 s or more, so that one row has one unit.
func duration(ms, scale float64) string {
	if math.Abs(scale) >= 10_000 {
		return thousands(strconv.FormatFloat(ms/1000, 'f', 1, 64)) + " s"
	}
	return thousands(strconv.FormatFloat(ms, 'f', 1, 64)) + " ms"
}

// signedDuration is duration with its sign, "+" or "−".
func signedDuration(ms, scale float64) string { return sign(ms) + duration(math.Abs(ms), scale) }

// vtime is a virtual time given in ms, as t=… s to the millisecond.
func vtime(ms float64) string {
	return "t=" + thousands(strconv.FormatFloat(ms/1000, 'f', 3, 64)) + " s"
}

// virtualMs finds the virtual times other packages' sentences say as "t=53733.617926 ms".
var virtualMs = regexp.MustCompile(`\bt=([0-9]+(?:\.[0-9]+)?) ms\b`)

// vtimes rewrites every "t=… ms" of s (a divergence or a diagnosis sentence of diffview) as
// vtime says it, so that one report says virtual time one way.
func vtimes(s string) string {
	return virtualMs.ReplaceAllStringFunc(s, func(m string) string {
		v, err := strconv.ParseFloat(virtualMs.FindStringSubmatch(m)[1], 64)
		if err != nil {
			return m
		}
		return vtime(v)
	})
}

// num formats a figure with about three significant digits, never with an exponent (4.17e-05
// is 0.0000417), and with thousands separators from 1,000.
func num(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if math.Abs(v) >= 100 || v == math.Trunc(v) { // a count stays a whole number
		return thousands(strconv.FormatFloat(v, 'f', 0, 64))
	}
	decimals := min(max(2-int(math.Floor(math.Log10(math.Abs(v)))), 0), 9)
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// thousands puts a comma between each group of three digits of a decimal number's integer
// part.
func thousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	out := b.String()
	if hasFrac {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// inUnit is a figure with its unit: ms as duration says them (the scale is the largest figure
// of its table row), anything else as num.
func inUnit(v float64, unit string, scale float64) string {
	if unit == "ms" {
		return duration(v, scale)
	}
	return strings.TrimSpace(num(v) + " " + unit)
}
