package campaignreport

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"kvparity/internal/layout"
)

// plotLinks writes report.md's plot links, SVG shown and PNG beside it: report.md is read
// beside plots/ (the campaign folder, its artifact), where the relative links resolve.
func (m *md) plotLinks(r *Report) {
	if len(r.Plots) == 0 {
		m.p("No plot: the campaign has no paired ratio, lifecycle evidence or product metrics yet.")
		return
	}
	for _, p := range r.Plots {
		m.p("![%s](%s) ([PNG](%s))", mdText(plotAlt(p)), mdURL(p), mdURL(pngOf(p)))
		m.blank()
	}
	m.p("Every plot is in `%s/` as SVG and PNG, drawn from the journal's figures.", layout.DirPlots)
}

func sumPairs(m *md, r *Report) bool {
	res := r.Performance.Result
	if res == nil || len(res.Pairs) == 0 {
		return false
	}
	m.blank()
	m.p("<details><summary>The %d paired ratios (%s)</summary>", len(res.Pairs), htmlText(res.TimingField))
	m.blank()
	m.head("pair", "order", "baseline", "candidate", "ratio")
	for _, p := range res.Pairs[:min(len(res.Pairs), sumBulkRows)] {
		mark := ""
		if p.Ratio > res.Threshold {
			mark = " > threshold"
		}
		scale := math.Max(p.BaselineMs, p.CandidateMs)
		m.row(fmt.Sprint(p.Pair), mdText(string(p.Order)), duration(p.BaselineMs, scale), duration(p.CandidateMs, scale), ratio3(p.Ratio)+mark)
	}
	if len(res.Pairs) > sumBulkRows {
		m.blank()
		m.p("… %d more in report.md and `%s/`.", len(res.Pairs)-sumBulkRows, layout.DirPerf)
	}
	if n := len(res.Invalidations); n > 0 {
		m.blank()
		m.p("%d invalidated pair attempt(s), each rerun:", n)
		m.blank()
		for _, inv := range res.Invalidations[:min(n, 12)] {
			m.p("- pair %d attempt %d: %s", inv.Pair, inv.Attempt, mdClip(inv.Reason, 200))
		}
		if n > 12 {
			m.p("- … %d more in report.md", n-12)
		}
	}
	m.blank()
	m.p("</details>")
	return true
}

func sumRuns(m *md, r *Report) bool {
	if len(r.Arms) == 0 {
		return false
	}
	m.blank()
	m.p("<details><summary>Determinism runs and lifecycle rules</summary>")
	for i, a := range r.Arms {
		m.blank()
		m.p("**%s** %s — %s", a.Arm, mdCode(a.Revision), a.Verdict)
		m.blank()
		m.head("run", "status", "digest")
		for _, ri := range a.Runs[:min(len(a.Runs), sumBulkRows/2)] {
			what := mdCode(short(ri.Digest))
			if ri.Error != "" {
				what = "✗ " + mdClip(ri.Error, 160)
			}
			m.row(mdCode(string(ri.Run)), mdText(ri.Status), what)
		}
		if len(a.Runs) > sumBulkRows/2 {
			m.row(fmt.Sprintf("… %d more", len(a.Runs)-sumBulkRows/2), "", "")
		}
		if ev := a.Evidence; ev != nil {
			m.blank()
			if i > 0 && r.Arms[0].Evidence != nil && slices.Equal(ev.Rules, r.Arms[0].Evidence.Rules) {
				m.p("Lifecycle rules: the same as %s's, word for word.", r.Arms[0].Arm)
				continue
			}
			for _, rule := range ev.Rules {
				m.p("- %s %s: %s", map[bool]string{true: "✓", false: "✗"}[rule.Passed], mdText(rule.Name), mdClip(rule.Why, 200))
			}
		}
	}
	m.blank()
	m.p("</details>")
	return true
}

// sumReproduce says how to reproduce the campaign from its folder: only relative paths.
func sumReproduce(m *md, r *Report) {
	m.h(3, "Reproduce")
	m.p("From the campaign folder (frozen row `%s` SHA-256 %s; trace window %s SHA-256 %s):", layout.FileRow, mdCode(short(r.Config.RowSHA256)), mdCode(layout.FileWindow), mdCode(short(r.Trace.WindowSHA256)))
	m.blank()
	m.p("%s", mdFence("sh", "kvparity report .                               # summary.md, report.md, report.json, plots/: the same bytes again\n"+
		"kvparity diff --campaign . --patterns           # the semantic diff by field pattern, with the exception records\n"+
		fmt.Sprintf("kvparity run %s --campaign . --stage all   # resume: finished runs are never rerun\n", layout.FileRow)+
		fmt.Sprintf("kvparity run %s --campaign %s --stage all   # the same frozen row, anew", layout.FileRow, shellWord("../"+r.Row+"-again"))))
	m.blank()
	var arts []string
	for _, a := range r.Artifacts {
		if a.Current {
			arts = append(arts, fmt.Sprintf("%s %s (SHA-256 %s)", a.Arm, mdCode(a.Path), mdCode(short(a.SHA256))))
		}
	}
	if len(arts) > 0 {
		m.p("Pinned artifacts (the binaries the arms ran): %s.", joinAnd(arts))
	}
}

// shellWord is s as one word of a shell command to copy: as it is when it holds only
// letters, digits and "-._/+=:,", else single-quoted (a row's name is validated that way;
// a report read from elsewhere is not).
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._/+=:,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	out := xs[0]
	for _, x := range xs[1 : len(xs)-1] {
		out += ", " + x
	}
	return out + " and " + xs[len(xs)-1]
}

// plots is report.md's section of images and the pointer to summary.md.
func (m *md) plots(r *Report) {
	m.h(2, "Plots")
	m.p("`%s` beside this file is this report sized for a pull request (verdicts with their caveats, what changed, the diagnosis).", layout.FileSummaryMD)
	m.blank()
	m.plotLinks(r)
}
