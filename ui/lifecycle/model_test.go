package lifecycle

import (
	"fmt"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/report"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
)

func TestFailedRulesComeFirstWithWhy(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	ev := &report.Evidence{Topology: "disaggregated", Engine: "vllm", Requests: 5000, VirtualEndMs: 2_037_000,
		Pools: []report.PoolEvidence{{Pool: "decode", RoutingDecisions: 5000, OverlapPositive: 0, Immediate: 5000,
			PressureEvents: 31, PressureReadmitted: 30, Workers: []int{0, 1}}},
		Handoffs: &report.HandoffEvidence{Requests: 5000, Complete: 4999, InOrder: 4999, Order: "source-first"},
		Terminal: map[string]int{"completed": 4999, "stranded": 1},
		Rules: []report.Rule{
			{Name: "virtual time advances", Passed: true, Why: "0 → 2037 s"},
			{Name: "pressure band", Passed: false, Why: "31 events, band 10–20: a pressure flood"},
		}}
	m, _ = m.Update(engine.CoverageReady{Run: "det/candidate-1", Evidence: ev})
	m.SetRun("det/candidate-1", "cand#1")
	m.SetSize(100, 12)
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	if !strings.Contains(lines[0], "LIFECYCLE (cand#1)") {
		t.Fatalf("title %q", lines[0])
	}
	if !strings.Contains(lines[2], "✗ pressure band: 31 events, band 10–20: a pressure flood") {
		t.Fatalf("a failed rule must come right after the summary, got %q", lines[2])
	}
	s := strings.Join(lines, "\n")
	for _, want := range []string{"decode   routing 5000 · overlap>0 0 · immediate 5000 · queued 0",
		"pressure 31 (30 readmitted)", "handoff 4999/5000 complete · 4999 in order · source-first ✗",
		"terminal completed 4999 · stranded 1", "✓ virtual time advances 0 → 2037 s"} {
		if !strings.Contains(s, want) {
			t.Errorf("view lacks %q:\n%s", want, s)
		}
	}
}

func TestNoEvidenceYetSaysSo(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m.SetRun("det/baseline-1", "base#1")
	m.SetSize(100, 3)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "no lifecycle evidence yet for base#1") {
		t.Fatalf("view:\n%s", s)
	}
}

func TestScrollShowsEveryRule(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	ev := &report.Evidence{Topology: "disaggregated", Engine: "vllm", Requests: 10}
	for i := 0; i < 8; i++ {
		ev.Rules = append(ev.Rules, report.Rule{Name: fmt.Sprintf("rule %d", i), Passed: true, Why: "fine"})
	}
	m, _ = m.Update(engine.CoverageReady{Run: "r", Evidence: ev})
	m.SetRun("r", "base#1")
	m.SetSize(80, 5)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "↓ 7 more (z zooms)") || strings.Contains(s, "rule 7") {
		t.Fatalf("a short box shows the top and says there is more:\n%s", s)
	}
	down := tea.KeyPressMsg{Code: 'j', Text: "j"}
	m, _ = m.Update(down) // blurred: ignored
	if m.offset != 0 {
		t.Fatal("a blurred pane does not scroll")
	}
	m.Focus()
	for i := 0; i < 20; i++ {
		m, _ = m.Update(down)
	}
	s := ansi.Strip(m.View())
	if !strings.Contains(s, "✓ rule 7 fine") || strings.Contains(s, "↓ ") || !strings.Contains(s, "↑ 7 above (↑/k)") {
		t.Fatalf("scrolled to the end, the last rule shows:\n%s", s)
	}
}

// A 1.4.x report's evidence (report.ExtractEvidence of a real reduced 1.4.2 report) shows what
// it cannot record as a failed rule, and no pool or KV-event counts it never recorded.
func TestAnUnrecordedLifecycleShowsNoZeroCounts(t *testing.T) {
	rec, err := os.ReadFile("../../diffview/testdata/dynamo-1.4.2/report.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := report.ExtractEvidence(rec, report.EvidenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(theme.NewStyles(true, false), keys.Default())
	m, _ = m.Update(engine.CoverageReady{Run: "det/baseline-1", Evidence: ev})
	m.SetRun("det/baseline-1", "base#1")
	m.SetSize(200, 12)
	s := ansi.Strip(m.View())
	if !strings.Contains(s, "aggregated · vllm · ") || !strings.Contains(s, "✗ lifecycle recorded: the report has the 1.4.x shape, which records no routing history") {
		t.Errorf("view:\n%s", s)
	}
	for _, never := range []string{"routing 0", "kv events", "pressure band"} {
		if strings.Contains(s, never) {
			t.Errorf("view shows %q, which the report never recorded:\n%s", never, s)
		}
	}
}
