package diffpane

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	fx "kvparity/diffview/difftest"
	"kvparity/exceptions"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

var ansiRE = regexp.MustCompile("\x1b\\[[0-9;:?]*[ -/]*[@-~]")

func stripANSI(s string) string { return ansiRE.ReplaceAllString(s, "") }

func press(p Model, names ...string) (Model, tea.Cmd) {
	var cmd tea.Cmd
	for _, k := range names {
		p, cmd = p.Update(keyMsg(k))
	}
	return p, cmd
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "ctrl+s":
		return tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

func typeText(p Model, s string) Model {
	for _, r := range s {
		if r == ' ' {
			p, _ = p.Update(keyMsg("space"))
			continue
		}
		p, _ = p.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return p
}

// run executes a command and feeds its message back (one hop).
func run(t *testing.T, p Model, cmd tea.Cmd) Model {
	t.Helper()
	if cmd == nil {
		t.Fatal("expected a command")
	}
	p, next := p.Update(cmd())
	if next != nil {
		msg := next()
		p, _ = p.Update(msg)
	}
	return p
}

// semanticPair is a candidate with a deliberate preemption-policy change: a metadata field
// and the admissions of preempted requests differ.
func semanticPair(t *testing.T) (dir, a, b string) {
	t.Helper()
	dir = t.TempDir()
	ra := fx.Report(40, 5)
	rb := fx.Clone(ra)
	fx.Set(rb, "/metadata/engine_config/decode/preemption_mode", "fifo")
	fx.Set(rb, "/metadata/engine_config/prefill/preemption_mode", "fifo")
	for _, i := range []int{9, 19, 29} {
		fx.Shift(rb, fmt.Sprintf("/per_request/%d/admission_history/2/at_ms", i), 12)
		fx.Shift(rb, fmt.Sprintf("/per_request/%d/terminal_time_ms", i), 12)
	}
	a, b = writePair(t, dir, ra, rb)
	return dir, a, b
}

// writePair writes two reports as the first repetitions of a campaign's arms in dir.
func writePair(t *testing.T, dir string, ra, rb map[string]any) (a, b string) {
	t.Helper()
	a, b = filepath.Join(dir, "baseline-1.jsonl"), filepath.Join(dir, "candidate-1.jsonl")
	for p, r := range map[string]map[string]any{a: ra, b: rb} {
		if err := os.WriteFile(p, fx.Encode(r), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

func newPane(isDark bool) Model { return New(theme.NewStyles(isDark, false), keys.Default().DiffPane) }

func openPane(t *testing.T, dir, a, b string) Model {
	t.Helper()
	p := newPane(true)
	p.SetSize(100, 30)
	p.SetCampaign(dir)
	p.Focus()
	return run(t, p, p.Open(diffview.Side{Label: "base#1", ReportPath: a}, diffview.Side{Label: "cand#1", ReportPath: b}))
}

func TestPaneOpenSelectsFirstDivergence(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	if p.diff == nil || p.loading || p.err != nil {
		t.Fatalf("not loaded: %v", p.err)
	}
	r := p.rows[p.cursor]
	if r.change != p.diff.First.Change {
		t.Fatalf("cursor on %+v, want first divergence %d", r, p.diff.First.Change)
	}
	v := stripANSI(p.View())
	for _, w := range []string{"DIFF  base#1 ↔ cand#1", "first t=140.25 ms · admission #2 (pool decode)", "why   1.", "8 of 8 differing pointers uncovered"} {
		if !strings.Contains(v, w) {
			t.Errorf("view lacks %q:\n%s", w, v)
		}
	}
}

func TestPaneDropsStaleLoads(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := newPane(false)
	p.SetCampaign(dir)
	p, first := p.Update(p.Open(diffview.Side{Label: "old", ReportPath: a}, diffview.Side{Label: "old", ReportPath: a})())
	p, second := p.Update(p.Open(diffview.Side{Label: "new", ReportPath: a}, diffview.Side{Label: "new", ReportPath: b})())
	p, _ = p.Update(second())
	p, _ = p.Update(first()) // the slower, older load arrives last
	if p.a.Label != "new" || p.diff == nil || p.diff.Equal() {
		t.Fatalf("stale load won: label %q", p.a.Label)
	}
}

func TestPaneNavigationGroupsAndFilter(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	d := p.diff
	start := p.rows[p.cursor].change
	p, _ = press(p, "n")
	if p.rows[p.cursor].change == start || p.rows[p.cursor].change < 0 {
		t.Fatalf("n did not move to the next difference")
	}
	p, _ = press(p, "N")
	if p.rows[p.cursor].change != start {
		t.Fatalf("N did not come back")
	}
	// next difference across a collapsed group expands it
	for i := 0; i < len(d.Changes)-1; i++ {
		p, _ = press(p, "n")
	}
	last := d.Groups[len(d.Groups)-1]
	if p.rows[p.cursor].change != last.Changes[len(last.Changes)-1] || !p.expanded["r "+last.Key] {
		t.Fatalf("walking n to the end: at %+v", p.rows[p.cursor])
	}
	p, _ = press(p, "n")
	if p.status != "no more differences" {
		t.Fatalf("status %q", p.status)
	}
	// collapse and expand a group from its header
	p, _ = press(p, "h")
	if p.rows[p.cursor].change != -1 || p.expanded["r "+last.Key] {
		t.Fatal("h should collapse onto the header")
	}
	p, _ = press(p, "enter")
	if !p.expanded["r "+last.Key] {
		t.Fatal("enter should expand")
	}
	p, _ = press(p, "<")
	for _, r := range p.rows {
		if r.change >= 0 {
			t.Fatal("collapse all left a change row")
		}
	}
	p, _ = press(p, ">")
	if len(p.rows) != len(d.Groups)+len(d.Changes) {
		t.Fatalf("expand all: %d rows", len(p.rows))
	}
	// filter by pointer pattern
	p, _ = press(p, "/")
	if !p.Capturing() {
		t.Fatal("filter field must capture keys")
	}
	p = typeSettled(t, p, "/per_request/*/terminal_time_ms")
	if n := p.visibleCount(); n != 3 {
		t.Fatalf("the filter applies as it is typed: %d visible", n)
	}
	p, _ = pressSettled(t, p, "enter")
	if p.Capturing() || len(p.visibleChanges(0)) != 3 {
		t.Fatalf("filter: %d visible", len(p.visibleChanges(0)))
	}
	if v := stripANSI(p.View()); !strings.Contains(v, "filter /per_request/*/terminal_time_ms · 3 of") {
		t.Fatalf("view:\n%s", v)
	}
	p, _ = press(p, "esc")
	if len(p.visibleChanges(0)) != len(d.Changes) {
		t.Fatal("esc should clear the filter")
	}
	// blurred pane ignores keys
	p.Blur()
	before := p.cursor
	p, _ = press(p, "j", "j")
	if p.cursor != before {
		t.Fatal("a blurred pane moved")
	}
}

// The done-when flow: cover a semantic mismatch with records typed from the keyboard, get
// PASS_WITH_SEMANTIC_EXCEPTIONS, delete one record, get FAIL with the uncovered pointers.
func TestPaneExceptionRecordsFromKeyboard(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	fill := func(p Model, baseline string) Model {
		for _, v := range []string{
			baseline,
			"FIFO victim per preemption_mode=fifo, vLLM scheduler docs",
			"both arms STABLE; only the victim choice moved",
			"TestFIFOPreemptionVictim",
			"none",
			"accepted",
		} {
			p, _ = press(p, "tab")
			p = typeText(p, v)
		}
		return p
	}
	// Record 1: the metadata group (header selected with space).
	p, _ = press(p, "<")
	p.cursor = 0 // metadata is the first group here (no summary change)
	if g := p.diff.Groups[p.rows[p.cursor].group]; g.Key != "metadata" {
		t.Fatalf("row 0 is %s", g.Key)
	}
	p, _ = press(p, "space")
	p, _ = pressSettled(t, p, "e")
	if !p.Capturing() || p.mode != modeForm {
		t.Fatal("e should open the form")
	}
	rec := p.form.record()
	if strings.Join(rec.Pointers, ",") != "/metadata/engine_config/decode/preemption_mode,/metadata/engine_config/prefill/preemption_mode" {
		t.Fatalf("prefilled pointers %v", rec.Pointers)
	}
	// saving with empty fields names the first empty one
	p, _ = press(p, "ctrl+s")
	if !strings.Contains(p.form.err, "baseline: required") || p.form.fields[p.form.focused].name != "baseline" {
		t.Fatalf("validation: %q focused %s", p.form.err, p.form.fields[p.form.focused].name)
	}
	if v := stripANSI(p.View()); !strings.Contains(v, "covers 2 of 8 differing pointers · 6 stay uncovered") {
		t.Fatalf("the form counts what the patterns cover:\n%s", v)
	}
	p.form.focused = 2 // back to "events" so fill's first tab lands on baseline
	p = fill(p, "LIFO victim is less faithful")
	p, _ = pressSettled(t, p, "ctrl+s")
	if p.mode != modeList || len(p.recs) != 1 {
		t.Fatalf("after save: mode %v, %d records, status %q", p.mode, len(p.recs), p.status)
	}
	// Record 2: every per-request change, selected with space on each header.
	for i := range p.rows {
		if g := p.diff.Groups[p.rows[i].group]; p.rows[i].change < 0 && g.Request != "" {
			p.cursor = i
			p, _ = press(p, "space")
		}
	}
	p, _ = pressSettled(t, p, "e")
	if got := p.form.record().Pointers; len(got) != 6 {
		t.Fatalf("second record pointers %v", got)
	}
	p.form.focused = 2
	p = fill(p, "LIFO readmission order")
	// 6 of 8 is more than half: the record is broad and saving asks first.
	p, _ = pressSettled(t, p, "ctrl+s")
	if p.form.confirm == "" || len(p.recs) != 1 {
		t.Fatalf("a broad record needs a confirmation: confirm %q, %d records", p.form.confirm, len(p.recs))
	}
	p, _ = pressSettled(t, p, "y")
	if len(p.recs) != 2 || !p.recs[1].Broad {
		t.Fatalf("confirmed: %+v", p.recs)
	}
	v, x := exceptions.SemanticVerdict(p.diff.Diff, p.recs, false)
	if v != verdict.PassWithSemanticExceptions || x.Uncovered != 0 {
		t.Fatalf("verdict %s uncovered %v", v, x.First)
	}
	if !strings.Contains(stripANSI(p.View()), "2 record(s) (1 BROAD) · all 8 differing pointers covered") {
		t.Fatalf("view:\n%s", stripANSI(p.View()))
	}
	// the file on disk agrees
	onDisk, err := exceptions.LoadExceptions(dir)
	if err != nil || len(onDisk) != 2 {
		t.Fatalf("on disk: %v %v", onDisk, err)
	}
	// edit the first record's disposition from the records list
	p, _ = press(p, "L")
	p, _ = pressSettled(t, p, "enter")
	p, _ = press(p, "shift+tab") // from the first field round to the disposition
	p = typeText(p, " by reviewer")
	p, _ = pressSettled(t, p, "ctrl+s")
	if p.recs[0].Disposition != "accepted by reviewer" || len(p.recs) != 2 {
		t.Fatalf("edit: %+v", p.recs)
	}
	// delete the metadata record: FAIL, listing the metadata pointers
	p, _ = press(p, "L", "D")
	if !p.Capturing() || p.ShortHelp()[0].Help().Key != "y" {
		t.Fatal("a pending delete must capture keys and offer y")
	}
	p, _ = pressSettled(t, p, "y")
	v, x = exceptions.SemanticVerdict(p.diff.Diff, p.recs, false)
	if v != verdict.Fail || strings.Join(x.First, ",") != "/metadata/engine_config/decode/preemption_mode,/metadata/engine_config/prefill/preemption_mode" {
		t.Fatalf("after delete: %s %v", v, x.First)
	}
	p, _ = press(p, "esc")
	if !strings.Contains(stripANSI(p.View()), "1 record(s) (1 BROAD) · 2 of 8 differing pointers uncovered") {
		t.Fatalf("view:\n%s", stripANSI(p.View()))
	}
}

func TestPaneGoldenView100x30(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	p.a.Label, p.b.Label = "baseline#1", "candidate#1"
	p, _ = press(p, "n", "n")
	got := stripANSI(p.View())
	lines := strings.Split(got, "\n")
	if len(lines) != 30 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		if n := len([]rune(l)); n != 100 {
			t.Errorf("line %d is %d cells: %q", i, n, l)
		}
	}
	golden.RequireEqual(t, got)
}

// The profile's excluded pointers that differ are said in the pane, also when nothing else
// differs.
func TestPaneSaysWhatTheProfileExcluded(t *testing.T) {
	dir := t.TempDir()
	ra, rb := fx.ExcludedOnly()
	a, b := writePair(t, dir, ra, rb)
	v := stripANSI(openPane(t, dir, a, b).View())
	for _, w := range []string{"no differing pointer: the canonical reports are identical",
		"identical under the canonical profile", "excluded by the canonical profile (not compared): /summary/processed_tokens_per_s 99.25 → 91.5 · +1"} {
		if !strings.Contains(v, w) {
			t.Errorf("view lacks %q:\n%s", w, v)
		}
	}
	fx.Shift(rb, "/per_request/3/terminal_time_ms", 0.5)
	os.WriteFile(b, fx.Encode(rb), 0o644)
	if v := stripANSI(openPane(t, dir, a, b).View()); !strings.Contains(v, "excluded by the canonical profile (not compared): /summary/processed_tokens_per_s") || !strings.Contains(v, "why   1.") {
		t.Errorf("view:\n%s", v)
	}
}

// A flood of differences (more than the diff holds in detail) is listed by its first held
// changes, while the counts, the exception line and the form's live coverage read every
// differing pointer.
func TestPaneCountsEveryPointerOfATruncatedDiff(t *testing.T) {
	const n = 300_000 // past diffview's smallest hold bound (262,144)
	dir := t.TempDir()
	ra, rb := fx.Flood(fx.Report(10, 0), "events", n, nil)
	fx.Shift(rb, "/per_request/3/terminal_time_ms", 0.5)
	a, b := writePair(t, dir, ra, rb)
	p := openPane(t, dir, a, b)
	if p.diff == nil || !p.diff.Truncated() {
		t.Fatalf("not truncated: %v", p.err)
	}
	total, held := p.diff.Count, len(p.diff.Changes)
	v := stripANSI(p.View())
	for _, w := range []string{fmt.Sprintf("%d differing, %d held", total, held), fmt.Sprintf("%d of %d differing pointers uncovered", total, total)} {
		if !strings.Contains(v, w) {
			t.Errorf("view lacks %q:\n%s", w, v)
		}
	}
	c := computeCoverage(p.diff.Diff, nil, "", []string{"/events/*"}, nil, 0, nil)
	if !c.done || c.covered != n || c.uncovered != total-n {
		t.Fatalf("form coverage over every pointer: done %v covered %d uncovered %d", c.done, c.covered, c.uncovered)
	}
}

// The records' standing (verdict, uncovered count, each record's coverage) is computed with
// the load, off the update loop, and the pane shows the one the load computed; one computed
// for another diff or another UNSTABLE flag is recomputed instead.
func TestPaneTakesTheStandingTheLoadComputed(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := newPane(true)
	p.SetSize(100, 30)
	p.SetCampaign(dir)
	cmd := p.Open(diffview.Side{Label: "base#1", ReportPath: a}, diffview.Side{Label: "cand#1", ReportPath: b})
	p, load := p.Update(cmd())
	msg := load().(diffLoadedMsg)
	if msg.stand.verdict != verdict.Fail || msg.stand.uncovered != 8 {
		t.Fatalf("the load's standing: %+v", msg.stand)
	}
	msg.stand.uncovered = 42 // a mark: shown only if the pane took it
	q, _ := p.Update(msg)
	if v := stripANSI(q.View()); !strings.Contains(v, "42 of 8 differing pointers uncovered") {
		t.Fatalf("the pane recomputed what the load computed:\n%s", v)
	}
	msg.stand.unstable = true // computed for another flag: recomputed
	q, _ = p.Update(msg)
	if v := stripANSI(q.View()); !strings.Contains(v, "8 of 8 differing pointers uncovered") {
		t.Fatalf("a standing for another flag was shown:\n%s", v)
	}
}

// A field pattern none of whose pointers the truncated diff holds in detail is still listed
// (with its count, said to be held in none), so c can cover it.
func TestPaneListsAPatternHeldInNone(t *testing.T) {
	const n = 270_000 // past diffview's smallest hold bound (262,144): a holds it whole
	dir := t.TempDir()
	ra, rb := fx.Flood(fx.Report(5, 0), "events", n, func(i int, inB bool) any {
		e := map[string]any{"a": fx.Int(0), "b": fx.Int(0)}
		switch {
		case inB && i < n-10:
			e["a"] = fx.Int(1)
		case inB:
			e["b"] = fx.Int(1) // the last ten differ in b only
		}
		return e
	})
	a, b := writePair(t, dir, ra, rb)
	p := openPane(t, dir, a, b)
	if p.diff == nil || !p.diff.Truncated() {
		t.Fatalf("not truncated: %v", p.err)
	}
	p, _ = press(p, "f")
	if v := stripANSI(p.View()); !strings.Contains(v, "     10  /events/*/b (none held in detail)") {
		t.Fatalf("the pattern held in none is not listed:\n%s", v)
	}
}

// Two repetitions of one build (an arm's one generation) are diffed as repetitions: a value that
// moved before any decision is entropy. Two generations of one arm (a desk-loop rebuild between
// them) are two builds, and are not.
func TestPaneDiagnosesRepetitionsOfOneBuildAsEntropy(t *testing.T) {
	dir := t.TempDir()
	ra := fx.Report(30, 0)
	rb := fx.Clone(ra)
	fx.Shift(rb, "/per_request/5/first_admit_ms", 1.5e-5)
	a, b := writePair(t, dir, ra, rb)
	for _, c := range []struct {
		buildA, buildB string
		entropy        bool
	}{{"baseline/g1", "baseline/g1", true}, {"baseline/g1", "baseline/g2", false}} {
		p := newPane(true)
		p.SetSize(100, 30)
		p.SetCampaign(dir)
		p = run(t, p, p.Open(diffview.Side{Label: "base#1", ReportPath: a, Arm: "baseline", Build: c.buildA},
			diffview.Side{Label: "base#2", ReportPath: b, Arm: "baseline", Build: c.buildB}))
		if !p.Loaded() {
			t.Fatalf("%s vs %s: not loaded", c.buildA, c.buildB)
		}
		if got := p.diff.Repetitions && p.diff.Diagnosis[0].Code == diagnose.SigEntropy; got != c.entropy {
			t.Errorf("%s vs %s: entropy %v, want %v (%v)", c.buildA, c.buildB, got, c.entropy, p.diff.Diagnosis)
		}
	}
}
