package pressure

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/report"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
)

func rec(ord int, at float64) report.PressureRecord {
	return report.PressureRecord{Ordinal: ord, AtMs: at, Pool: "decode", WorkerID: 1, Kind: "vllm_preemption",
		RequestUUID: "req-" + string(rune('a'+ord)), Readmitted: true, ReadmittedAt: at + 100}
}

func TestRecordsAreNotCountedTwice(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	ev := &report.Evidence{VirtualStartMs: 0, VirtualEndMs: 100_000, Pressure: []report.PressureRecord{rec(0, 23_000), rec(1, 76_000)}}
	// Evidence first, then the same records announced live (the order a resume replays them).
	m, _ = m.Update(engine.CoverageReady{Run: "r", Evidence: ev})
	m, _ = m.Update(engine.PressureEvent{Run: "r", Record: rec(0, 23_000)})
	m, _ = m.Update(engine.PressureEvent{Run: "r", Record: rec(1, 76_000)})
	if n := len(m.Records("r")); n != 2 {
		t.Fatalf("want 2 records, got %d", n)
	}
	m.SetRun("r", "cand#1")
	m.SetSize(80, 6)
	s := ansi.Strip(m.View())
	if !strings.Contains(s, "PRESSURE (cand#1) 2 events · 2 readmitted") || !strings.Contains(s, "#1   preemption decode/w1  req req-b  t 76 s") {
		t.Fatalf("view:\n%s", s)
	}
}

func TestTimelineBinsOverVirtualTime(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	ev := &report.Evidence{VirtualEndMs: 100_000, Pressure: []report.PressureRecord{rec(0, 1_000), rec(1, 2_000), rec(2, 99_000)}}
	m, _ = m.Update(engine.CoverageReady{Run: "r", Evidence: ev})
	m.SetRun("r", "x")
	if got := ansi.Strip(m.timeline(m.Records("r"), 10)); got != "█········▄" {
		t.Fatalf("timeline %q", got)
	}
}

func TestCursorMovesOnlyWhenFocused(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	for i := 0; i < 5; i++ {
		m, _ = m.Update(engine.PressureEvent{Run: "r", Record: rec(i, float64(i*1000))})
	}
	m.SetRun("r", "x")
	down := tea.KeyPressMsg{Code: 'j', Text: "j"}
	m, _ = m.Update(down)
	if m.cursor != 0 {
		t.Fatal("a blurred pane ignores keys")
	}
	m.Focus()
	for i := 0; i < 10; i++ {
		m, _ = m.Update(down)
	}
	if m.cursor != 4 {
		t.Fatalf("cursor %d, want clamped to 4", m.cursor)
	}
	m.SetRun("other", "y")
	if m.cursor != 0 {
		t.Fatal("another run starts at its first event")
	}
}

func TestFocusedPaneDetailsTheSelectedEvent(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	r := rec(3, 40_000)
	r.RunningBefore, r.ActiveBlocks = 16, 5500
	m, _ = m.Update(engine.PressureEvent{Run: "r", Record: r})
	m.SetRun("r", "x")
	m.SetSize(120, 6)
	if strings.Contains(ansi.Strip(m.View()), "active blocks") {
		t.Fatal("details only while focused")
	}
	m.Focus()
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	if !strings.Contains(lines[5], "#3: dp 0 · 16 running before · 5500 active blocks · request req-d · readmitted after 0.1 s") {
		t.Fatalf("detail line %q", lines[5])
	}
}

// Zero-padded uuids differ only at the end: the list shows that end, never "req 000000…".
func TestRequestIDsShowTheirDistinguishingPart(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	r0, r1 := rec(0, 23_000), rec(1, 76_000)
	r0.RequestUUID, r1.RequestUUID = "00000000-0000-0000-0000-0000000003db", "00000000-0000-0000-0000-00000000007d"
	m, _ = m.Update(engine.PressureEvent{Run: "r", Record: r0})
	m, _ = m.Update(engine.PressureEvent{Run: "r", Record: r1})
	m.SetRun("r", "base#1")
	m.SetSize(40, 6) // the pane at 80x24
	s := ansi.Strip(m.View())
	if !strings.Contains(s, "req …03db") || !strings.Contains(s, "req …007d") || strings.Contains(s, "req 000000") {
		t.Fatalf("view:\n%s", s)
	}
}

// Records announced live show at once, a later readmission updates its record in place, and
// the run's evidence at the end reconciles by ordinal instead of adding the records again.
func TestLiveRecordsThenEvidenceReconcileByOrdinal(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m.SetRun("r", "base#1")
	m.SetSize(90, 6)
	live0, live1 := rec(0, 23_000), rec(1, 76_000)
	live0.Readmitted, live1.Readmitted = false, false
	m, _ = m.Update(engine.PressureEvent{Run: "r", Record: live0})
	if s := ansi.Strip(m.View()); !strings.Contains(s, "⟳ 1 event · 0 readmitted") || !strings.Contains(s, "#0   preemption decode/w1") {
		t.Fatalf("live view:\n%s", s)
	}
	m, _ = m.Update(engine.PressureEvent{Run: "r", Record: live1})
	m, _ = m.Update(engine.PressureEvent{Run: "r", Record: rec(0, 23_000)}) // readmitted later
	if n, r := len(m.Records("r")), m.Records("r")[0]; n != 2 || !r.Readmitted {
		t.Fatalf("after the readmission: %d records, first %+v", n, r)
	}
	ev := &report.Evidence{VirtualEndMs: 100_000, Pressure: []report.PressureRecord{rec(0, 23_000), rec(1, 76_000)}}
	m, _ = m.Update(engine.CoverageReady{Run: "r", Evidence: ev})
	for _, r := range ev.Pressure { // the engine repeats the evidence's records after it
		m, _ = m.Update(engine.PressureEvent{Run: "r", Record: r})
	}
	if s := ansi.Strip(m.View()); len(m.Records("r")) != 2 || !strings.Contains(s, "2 events · 2 readmitted") || strings.Contains(s, "⟳") {
		t.Fatalf("after the evidence: %d records\n%s", len(m.Records("r")), s)
	}
}

// A list too short for every event counts the hidden ones in the title, with the key that
// shows them.
func TestHiddenEventsAreCounted(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	var evs []engine.Event
	for i := 0; i < 6; i++ {
		evs = append(evs, engine.PressureEvent{Run: "r", Record: report.PressureRecord{Ordinal: i, Kind: "preemption", AtMs: float64(100 * i), RequestUUID: fmt.Sprintf("u%d", i)}})
	}
	for _, ev := range evs {
		m, _ = m.Update(ev)
	}
	m.SetRun("r", "cand#1")
	m.SetSize(80, 5) // title, timeline, three events
	if s := ansi.Strip(m.View()); !strings.Contains(s, "+3 more (z zooms)") {
		t.Fatalf("hidden events are counted:\n%s", s)
	}
	m.SetSize(80, 10)
	if s := ansi.Strip(m.View()); strings.Contains(s, "more (") {
		t.Fatalf("nothing hidden:\n%s", s)
	}
}

// A run whose report's shape records no pressure (a 1.4.x report) says so: "0 events" would be
// a count the report never made.
func TestUnrecordedPressureIsNotZero(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	ev := &report.Evidence{VirtualEndMs: 100_000, Unrecorded: "the report has the 1.4.x shape, which records no pressure records"}
	m, _ = m.Update(engine.CoverageReady{Run: "old", Evidence: ev})
	m, _ = m.Update(engine.CoverageReady{Run: "new", Evidence: &report.Evidence{VirtualEndMs: 100_000}})
	m.SetSize(120, 4)
	m.SetRun("old", "base#1")
	if s := ansi.Strip(m.View()); !strings.Contains(s, "PRESSURE (base#1) not recorded") || !strings.Contains(s, "pressure not recorded: the report has the 1.4.x shape") || strings.Contains(s, "0 events") {
		t.Errorf("view:\n%s", s)
	}
	m.SetRun("new", "base#2")
	if s := ansi.Strip(m.View()); !strings.Contains(s, "0 events · 0 readmitted") || !strings.Contains(s, "no pressure events for the selected run") {
		t.Errorf("a report that records pressure and has none: view:\n%s", s)
	}
}
