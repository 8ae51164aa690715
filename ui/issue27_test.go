package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/diffpane"
	"kvparity/verdict"
)

// A resumed stage is never shown BLOCKED: while it runs, the verdicts it decides read
// "running" and the overall verdict "pending"; the block is reassessed once a run starts.
func TestHeaderSaysRunningNotBlockedWhileAStageResumes(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	blocked := verdict.Verdicts{Semantic: verdict.Of(verdict.Pass, "byte-identical"), Performance: verdict.Of(verdict.Blocked, "pair 3 invalidated 10 times"),
		Overall: verdict.Outcome{Verdict: verdict.Blocked, Reason: "blocked: perf: pair 3 was invalidated 10 times in a row"}, Blocked: []string{"perf: pair 3 was invalidated 10 times in a row"}}
	m = update(t, m, verdictsMsg{n: m.assessN, v: blocked})
	if s := screen(m); !strings.Contains(strings.SplitN(s, "\n", 2)[0], "BLOCKED") {
		t.Fatalf("before the resume the header says BLOCKED:\n%s", s)
	}
	m, msgs := updateCmd(t, m, eventsMsg{events: []engine.Event{engine.StageStarted{Stage: engine.StagePerf}}})
	head := strings.SplitN(screen(m), "\n", 2)[0]
	if strings.Contains(head, "BLOCKED") || !strings.Contains(head, "perf running") || !strings.Contains(head, "overall pending") {
		t.Fatalf("a resumed perf stage: header %q", head)
	}
	if !hasMsg[verdictsMsg](msgs) {
		t.Fatal("the stage's start reassesses the campaign")
	}
	// A semantic FAIL is not the running stage's to change: it stays said.
	failed := blocked
	failed.Overall = verdict.Outcome{Verdict: verdict.Fail, Reason: "semantic: canonical reports differ"}
	m = update(t, m, verdictsMsg{n: m.assessN, v: failed})
	if head := strings.SplitN(screen(m), "\n", 2)[0]; !strings.Contains(head, "overall FAIL") {
		t.Fatalf("a failure the stage does not decide stays: %q", head)
	}
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStopped{Stage: engine.StagePerf}}})
	if head := strings.SplitN(screen(m), "\n", 2)[0]; strings.Contains(head, "running") {
		t.Fatalf("after the stage: %q", head)
	}
}

func hasMsg[T any](msgs []tea.Msg) bool {
	for _, m := range msgs {
		if _, ok := m.(T); ok {
			return true
		}
	}
	return false
}

// The engine's refusal is worded once: never "refused: performance refused".
func TestARefusalIsWordedOnce(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	m = update(t, m, actionDoneMsg{action: "start performance", err: errors.New("performance refused: candidate is UNSTABLE (two digests over 2 repetitions)")})
	s := screen(m)
	mustContain(t, s, "start performance refused: candidate is UNSTABLE (two digests over 2 repetitions)")
	if strings.Contains(s, "refused: performance refused") {
		t.Fatalf("said twice:\n%s", s)
	}
	if got := refusal("watch", errors.New("fsnotify: too many open files")); got != "watch refused: fsnotify: too many open files" {
		t.Fatalf("an error without its own refusal: %q", got)
	}
}

// The help overlay names the campaign folder, at both sizes, with every workbench key.
func TestHelpNamesTheCampaignFolder(t *testing.T) {
	for _, sz := range [][2]int{{110, 34}, {80, 24}} {
		f := newFake(testInfo(5000, 60))
		m := newTestModel(t, f, sz[0], sz[1])
		m = update(t, m, press("?"))
		s := screen(m)
		mustContain(t, s, "CAMPAIGN FOLDER /campaigns/vllm-disagg-20261129T090000Z")
		mustContain(t, s, "w watch")
		m = update(t, m, press("esc"))
		m = update(t, m, press("v"))
		mustContain(t, screen(m), "campaign folder /campaigns/vllm-disagg-20261129T090000Z")
	}
}

// The diff pane's grouping is kept in the campaign folder (ui-state.json, written atomically)
// and restored when the campaign is opened again; a damaged file is said, not obeyed.
func TestDiffGroupingIsRestoredOnReopen(t *testing.T) {
	dir := t.TempDir()
	f := newFake(testInfo(5000, 60))
	f.dir = dir
	m := newTestModel(t, f, 110, 34)
	m, msgs := updateCmd(t, m, diffpane.GroupingChangedMsg{ByPattern: true})
	for _, msg := range msgs {
		m = update(t, m, msg)
	}
	b, err := os.ReadFile(filepath.Join(dir, uiStateFile))
	if err != nil || !strings.Contains(string(b), `"diff_grouping": "pattern"`) {
		t.Fatalf("ui-state.json: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("only ui-state.json is written: %v", entries)
	}
	reopened := newTestModel(t, f, 110, 34)
	if !reopened.diff.pane.GroupedByPattern() {
		t.Fatal("a reopened campaign groups by field pattern again")
	}
	if err := os.WriteFile(filepath.Join(dir, uiStateFile), []byte(`{"diff_grouping": "sideways"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := newTestModel(t, f, 110, 34)
	if bad.diff.pane.GroupedByPattern() || !strings.Contains(screen(bad), `diff_grouping "sideways"`) {
		t.Fatalf("a damaged state file is said:\n%s", screen(bad))
	}
	// A campaign folder that does not exist is never created.
	f.dir = filepath.Join(dir, "gone")
	m = newTestModel(t, f, 110, 34)
	_, msgs = updateCmd(t, m, diffpane.GroupingChangedMsg{ByPattern: true})
	if _, err := os.Stat(f.dir); !os.IsNotExist(err) {
		t.Fatalf("the save created %s", f.dir)
	}
	if len(msgs) != 1 || msgs[0].(uiStateSavedMsg).err == nil {
		t.Fatalf("the failed save is reported: %v", msgs)
	}
}

// With the diff pane focused and a two-line message on the status line, the help at 80×24
// reaches every workbench key by scrolling, and the footer and "esc closes" stay on screen.
func TestHelpNeverCutsAKey(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 80, 24)
	m.setFocus(focusDiff)
	m.layout()
	m.alarm("BLOCKED: parity stage: candidate is UNSTABLE: parity and performance are refused until its entropy leak is fixed")
	m = update(t, m, press("?"))
	s := helpPages(t, m)
	for _, w := range []string{"w watch", "+ add repetition", "I     whole diagnosis", "esc closes this help", "esc close"} {
		mustContain(t, s, w)
	}
	if n := strings.Count(screen(m), "\n") + 1; n != 24 {
		t.Fatalf("%d lines", n)
	}
}

// helpPages is every page of the open overlay, scrolled from its top to its end with pgdn;
// each page must say how to close it.
func helpPages(t *testing.T, m Model) string {
	t.Helper()
	var b strings.Builder
	for range 20 {
		s := screen(m)
		b.WriteString(s)
		if !strings.Contains(s, "esc closes") {
			t.Fatalf("a page of the overlay does not say esc closes it:\n%s", s)
		}
		if !strings.Contains(s, " of ") || strings.Contains(s, "(end)") {
			break
		}
		m = update(t, m, press("pgdown"))
	}
	return b.String()
}
