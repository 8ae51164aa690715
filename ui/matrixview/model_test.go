package matrixview

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"kvparity/engine/matrix"
	"kvparity/ui/text"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

func plain() theme.Styles { return theme.NewStyles(true, true) }

func sampleRows() []matrix.RowStatus {
	zero := 0
	passed := verdict.Verdicts{Overall: verdict.Of(verdict.Pass, ""), Semantic: verdict.Of(verdict.Pass, ""), Performance: verdict.Of(verdict.Pass, ""),
		Footprint: verdict.Of(verdict.Pass, "")}
	return []matrix.RowStatus{
		{Row: "vllm-agg", Mode: "slurm", JobID: "101", JobState: matrix.JobRunning, Node: "node07", Stage: matrix.RowStagePerf, Done: 37, Total: 130, Parity: "PASS"},
		{Row: "vllm-disagg", Mode: "slurm", JobID: "102", JobState: matrix.JobPending, Stage: matrix.RowStageQueued},
		{Row: "sglang-agg", Mode: "slurm", JobID: "103", JobState: matrix.JobCompleted, Node: "node09", Stage: matrix.RowStageDone, Parity: "PASS", Perf: "PASS", ExitCode: &zero, Verdicts: &passed},
		{Row: "sglang-disagg", Mode: "slurm", JobID: "104", JobState: matrix.JobCancelled, Node: "node10", Stage: matrix.RowStageInterrupted, Attempts: 2},
	}
}

func update(t *testing.T, m Model, msg tea.Msg) (Model, tea.Cmd) {
	t.Helper()
	next, cmd := m.Update(msg)
	return next.(Model), cmd
}

func TestRenderOneLinePerRow(t *testing.T) {
	m := New("/shared/m", plain(), nil, nil)
	m, _ = update(t, m, rowsMsg(sampleRows()))
	out := ansi.Strip(m.Render(120, 10))
	lines := strings.Split(out, "\n")
	if len(lines) != 10 {
		t.Fatalf("want exactly 10 lines, got %d", len(lines))
	}
	for i, l := range lines {
		if text.Width(l) != 120 {
			t.Errorf("line %d is %d cells wide, want 120: %q", i, text.Width(l), l)
		}
	}
	for _, want := range []string{
		"/shared/m · 4 rows · 1 running",
		"▸ vllm-agg", "node07", "101 RUNNING", "perf 37/130 ▰▱▱▱▱▱", "semantic PASS",
		"vllm-disagg", "102 PENDING", "queued",
		"sglang-agg", "semantic PASS · perf PASS",
		"104 CANCELLED ×2", "interrupted", "environmental end: resubmit to resume",
		"enter open row",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	// Narrow terminals truncate; they never wrap.
	for _, l := range strings.Split(m.Render(40, 6), "\n") {
		if text.Width(l) != 40 {
			t.Fatalf("narrow line is %d cells: %q", text.Width(l), l)
		}
	}
}

func TestEnterOpensTheSelectedRow(t *testing.T) {
	var opened []string
	open := func(r matrix.RowStatus) tea.Cmd {
		opened = append(opened, r.Row)
		return func() tea.Msg { return "opened" }
	}
	m := New("/m", plain(), nil, open)
	m, _ = update(t, m, rowsMsg(sampleRows()))
	m, _ = update(t, m, tea.KeyPressMsg{Code: tea.KeyDown})
	m, _ = update(t, m, tea.KeyPressMsg{Code: tea.KeyDown})
	m, cmd := update(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
	if len(opened) != 1 || opened[0] != "sglang-agg" || cmd == nil || cmd() != "opened" {
		t.Fatalf("opened %v, cmd %v", opened, cmd)
	}
	// A new snapshot with the rows reordered keeps the cursor on the same row.
	rows := sampleRows()
	rows[0], rows[2] = rows[2], rows[0]
	m, _ = update(t, m, rowsMsg(rows))
	if sel, _ := m.selected(); sel.Row != "sglang-agg" {
		t.Fatalf("selection moved to %s", sel.Row)
	}
	// The cursor stays inside the rows.
	for range 10 {
		m, _ = update(t, m, tea.KeyPressMsg{Code: tea.KeyDown})
	}
	if sel, _ := m.selected(); sel.Row != "sglang-disagg" {
		t.Fatalf("bottom: %s", sel.Row)
	}
	// A note (from the open callback, say) shows under the rows until the next enter.
	m, _ = update(t, m, NoteMsg("row vllm-agg is running"))
	if out := ansi.Strip(m.Render(100, 10)); !strings.Contains(out, "row vllm-agg is running") {
		t.Fatalf("note missing:\n%s", out)
	}
	// Embedded, q belongs to the workbench.
	if _, cmd := update(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"}); cmd != nil {
		t.Fatal("embedded view must not quit")
	}
}

func TestFeedKeepsOnlyTheLatestSnapshot(t *testing.T) {
	f := NewFeed()
	rows := sampleRows()
	f.Publish(rows[:1])
	f.Publish(rows[:2]) // never blocks, replaces the unread one
	if msg := f.wait()(); len(msg.(rowsMsg)) != 2 {
		t.Fatalf("got %v", msg)
	}
	f.Publish(rows)
	f.Finish(&matrix.Result{Rows: rows, ExitCode: 2, Overall: verdict.Of(verdict.Inconclusive, "x")}, nil)
	if msg := f.wait()(); len(msg.(rowsMsg)) != 4 {
		t.Fatalf("the last snapshot comes before the end, got %T", msg)
	}
	msg := f.wait()()
	d, ok := msg.(doneMsg)
	if !ok || d.Result.ExitCode != 2 {
		t.Fatalf("got %v", msg)
	}
	m := New("/m", plain(), f, nil)
	m.ReportName = "matrix.md"
	m, cmd := update(t, m, d)
	if cmd != nil {
		t.Fatal("no re-arm after the end")
	}
	if out := ansi.Strip(m.Render(100, 8)); !strings.Contains(out, "matrix INCONCLUSIVE (exit 2) · matrix.md") {
		t.Fatalf("end line missing:\n%s", out)
	}
}

// The standalone program: snapshots arrive through the feed, enter opens, q quits.
func TestStandaloneProgram(t *testing.T) {
	f := NewFeed()
	opened := make(chan string, 1)
	m := New("/shared/m", plain(), f, func(r matrix.RowStatus) tea.Cmd { opened <- r.Row; return nil })
	m.Standalone = true
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(110, 12))
	f.Publish(sampleRows())
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("sglang-disagg")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: tea.KeyDown})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	select {
	case row := <-opened:
		if row != "vllm-disagg" {
			t.Fatalf("opened %s", row)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("enter did not open the row")
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	final := tm.FinalModel(t).(Model)
	if len(final.rows) != 4 {
		t.Fatalf("final rows %d", len(final.rows))
	}
}
