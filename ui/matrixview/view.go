package matrixview

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"

	"kvparity/engine/matrix"
	"kvparity/ui/keys"
	"kvparity/ui/text"
	"kvparity/verdict"
)

// Column widths of the matrix table (cells); the verdicts column takes the rest.
const (
	colRow   = 16
	colNode  = 10
	colJob   = 18
	colStage = 24
)

// Render draws the view into a w×h box: a title line, a column header, one line per row (the
// selected one highlighted), the matrix's end when it came, and a key hint line. It is a pure
// read of the model.
func (m Model) Render(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	st := m.styles
	running := 0
	for _, r := range m.rows {
		if r.JobState == matrix.JobRunning || r.Stage == matrix.RowStageDeterminism || r.Stage == matrix.RowStagePerf {
			running++
		}
	}
	title := " " + st.HeaderBrand.Render("MATRIX") + " " + st.Faint.Render(fmt.Sprintf("%s · %s · %d running", m.dir, text.Plural(len(m.rows), "row"), running))
	lines := []string{title, st.Faint.Render(" " + cols("ROW", "NODE", "JOB", "STAGE", "VERDICTS"))}
	body := h - 3 // title, header, hint
	if m.done != nil {
		body--
	}
	if m.note != "" {
		body--
	}
	first := 0
	if m.cursor >= body && body > 0 {
		first = m.cursor - body + 1 // keep the selection on screen
	}
	for i := first; i < len(m.rows) && i < first+max(body, 0); i++ {
		lines = append(lines, m.line(i, w))
	}
	for len(lines) < 2+max(body, 0) {
		lines = append(lines, "")
	}
	if d := m.done; d != nil {
		lines = append(lines, m.endLine(*d))
	}
	if m.note != "" {
		lines = append(lines, " "+st.Warn.Render(m.note))
	}
	arrow := func(b key.Binding) string { a, _, _ := strings.Cut(b.Help().Key, "/"); return a } // "↑" of "↑/k"
	lines = append(lines, st.Footer.Render(fmt.Sprintf(" %s/%s select · %s open row", arrow(m.keys.Up), arrow(m.keys.Down), keys.Name(m.keys.Open))+m.quitHint()))
	return text.Fit(lines, w, h)
}

func (m Model) quitHint() string {
	if m.Standalone {
		return " · " + keys.Name(m.keys.Quit) + " quit"
	}
	return ""
}

// line renders row i: marker, name, node, job, stage with progress, verdicts.
func (m Model) line(i, w int) string {
	st := m.styles
	r := m.rows[i]
	job := "local"
	if r.Mode == "slurm" {
		job = strings.TrimSpace(r.JobID + " " + string(r.JobState))
	}
	if r.Attempts > 1 {
		job += fmt.Sprintf(" ×%d", r.Attempts)
	}
	stage := r.Progress()
	if r.Total > 0 && (r.Stage == matrix.RowStageDeterminism || r.Stage == matrix.RowStagePerf) {
		stage += " " + bar(r.Done, r.Total, 6)
	}
	// The row's decided verdicts are its report's (the same words every surface prints);
	// before that, what its journal says so far.
	var verdicts []string
	if v := r.Verdicts; v != nil {
		verdicts = append(verdicts, "semantic "+st.Verdict(v.Semantic.Verdict), "perf "+st.Verdict(v.Performance.Verdict))
		if v.Footprint.Verdict == verdict.Fail {
			verdicts = append(verdicts, "footprint "+st.Verdict(verdict.Fail))
		}
		verdicts = append(verdicts, "overall "+st.Verdict(v.Overall.Verdict))
	} else {
		if r.Parity.Decided() {
			verdicts = append(verdicts, "parity "+st.Verdict(r.Parity))
		}
		if r.Perf.Decided() {
			verdicts = append(verdicts, "perf "+st.Verdict(r.Perf))
		}
		if r.Footprint == verdict.Fail {
			verdicts = append(verdicts, "footprint "+st.Verdict(verdict.Fail))
		}
	}
	switch {
	case r.Blocked != "":
		verdicts = append(verdicts, st.Verdict(verdict.Blocked)+" "+r.Blocked)
	case r.Stage == matrix.RowStageInterrupted:
		verdicts = append(verdicts, st.Warn.Render("environmental end: resubmit to resume"))
	case r.Stage == matrix.RowStageFailedJob:
		verdicts = append(verdicts, st.Bad.Render("job failed without a verdict"))
	}
	stageCell := text.Pad(text.Trunc(stage, colStage-1), colStage)
	switch r.Stage {
	case matrix.RowStageDeterminism, matrix.RowStagePerf, matrix.RowStagePinning:
		stageCell = st.Running.Render(stageCell)
	}
	marker := "  "
	if i == m.cursor {
		marker = "▸ "
	}
	s := marker + cell(r.Row, colRow) + cell(r.Node, colNode) + cell(job, colJob) + stageCell + strings.Join(verdicts, " · ")
	if i == m.cursor {
		return st.Selected.Render(text.Pad(text.Trunc(s, w), w))
	}
	return s
}

func (m Model) endLine(d doneMsg) string {
	st := m.styles
	switch {
	case d.Result == nil && d.Err != nil:
		return " " + st.Bad.Render("matrix refused: "+d.Err.Error())
	case d.Result == nil:
		return " matrix ended"
	}
	s := fmt.Sprintf(" matrix %s (exit %d)", st.Verdict(d.Result.Overall.Verdict), d.Result.ExitCode)
	if m.ReportName != "" {
		s += " · " + m.ReportName
	}
	if d.Err != nil {
		s += " · " + st.Warn.Render(d.Err.Error())
	}
	return s
}

func cols(a, b, c, d, e string) string {
	return " " + cell(a, colRow) + cell(b, colNode) + cell(c, colJob) + cell(d, colStage) + e
}

func cell(s string, w int) string { return text.Pad(text.Trunc(s, w-1), w) }

// bar is a small progress bar of n cells.
func bar(done, total, n int) string {
	if total <= 0 {
		return ""
	}
	f := min(done*n/total, n)
	return strings.Repeat("▰", f) + strings.Repeat("▱", n-f)
}
