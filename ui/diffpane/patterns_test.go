package diffpane

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"kvparity/diffview"
	"kvparity/exceptions"
)

func headers(p Model) []string {
	var out []string
	for _, r := range p.rows {
		if r.change < 0 {
			g := p.cur().groups[r.group]
			out = append(out, fmt.Sprintf("%d %s", p.vis.count(p.by, r.group, len(g.changes)), g.title))
		}
	}
	return out
}

// fillExplanations types the six explanations, from the field before baseline.
func fillExplanations(p Model) Model {
	p.form.focused = 2
	for _, v := range []string{"LIFO victim", "vLLM FIFO docs", "STABLE both", "TestFIFO", "none", "accepted"} {
		p, _ = press(p, "tab")
		p = typeText(p, v)
	}
	return p
}

func TestPaneGroupsByFieldPatternAndCoversOneInOneKey(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	first := p.rows[p.cursor].change
	p, _ = press(p, "f")
	want := []string{
		"3 /per_request/*/admission_history/*/at_ms",
		"3 /per_request/*/terminal_time_ms",
		"1 /metadata/engine_config/decode/preemption_mode",
		"1 /metadata/engine_config/prefill/preemption_mode",
	}
	if got := headers(p); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("pattern groups:\n%s", strings.Join(got, "\n"))
	}
	// f opens on the largest pattern, at the top (here also the first divergence's).
	if r := p.rows[p.cursor]; r.change >= 0 || p.cur().groups[r.group].changes[0] != first {
		t.Fatalf("after f the cursor is on %+v", r)
	}
	v := stripANSI(p.View())
	for _, w := range []string{"by field pattern: 4 patterns, largest first · c covers one", "▸       3  /per_request/*/admission_history/*/at_ms",
		"/per_request/*/admission_history/*/at_ms: 3 pointer(s) in 3 request(s)"} {
		if !strings.Contains(v, w) {
			t.Errorf("view lacks %q:\n%s", w, v)
		}
	}
	// c: one key opens the form on that pattern, and the form counts what it covers.
	p, _ = pressSettled(t, p, "c")
	if p.mode != modeForm || strings.Join(p.form.record().Pointers, ",") != "/per_request/*/admission_history/*/at_ms" {
		t.Fatalf("c: mode %v pointers %v", p.mode, p.form.record().Pointers)
	}
	v = stripANSI(p.View())
	for _, w := range []string{"covers 3 of 8 differing pointers · 5 stay uncovered",
		"what differs (computed on save): 3 pointer(s) in 3 request(s): at_ms 3"} {
		if !strings.Contains(v, w) {
			t.Errorf("form lacks %q:\n%s", w, v)
		}
	}
	// Typing more patterns updates the count as they are typed.
	p = typeSettled(t, p, ", /metadata/**")
	if v := stripANSI(p.View()); !strings.Contains(v, "covers 5 of 8 differing pointers · 3 stay uncovered") || !strings.Contains(v, "BROAD: names a root pattern (/metadata/**)") {
		t.Fatalf("live count after typing:\n%s", v)
	}
	p, _ = press(p, "esc")
	// f again: back to requests, the change's group selected.
	p, _ = press(p, "f")
	if p.by != byRequest || p.rows[p.cursor].change != first {
		t.Fatalf("back by request: %+v", p.rows[p.cursor])
	}
	// On a change in request grouping, c covers that change's field pattern.
	p, _ = pressSettled(t, p, "c")
	if got := p.form.record().Pointers; strings.Join(got, ",") != "/per_request/*/admission_history/*/at_ms" {
		t.Fatalf("c on a change: %v", got)
	}
}

func TestPaneFilterIsIncrementalAndDropsStaleResults(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	p, _ = press(p, "/")
	var cmds []tea.Cmd
	for _, r := range "terminal" {
		var cmd tea.Cmd
		p, cmd = p.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		cmds = append(cmds, cmd)
	}
	if p.pattern != "" || p.visibleCount() != 8 {
		t.Fatal("a keystroke must not scan the diff on the update loop")
	}
	if !strings.Contains(stripANSI(p.View()), "filtering…") {
		t.Fatal("the field should say a scan is in flight")
	}
	// The newest result is shown; an older one arriving later is dropped.
	p, _ = settle(t, p, cmds[len(cmds)-1])
	if p.pattern != "terminal" || p.visibleCount() != 3 {
		t.Fatalf("newest: %q %d", p.pattern, p.visibleCount())
	}
	p, _ = settle(t, p, cmds[0])
	if p.pattern != "terminal" || p.visibleCount() != 3 {
		t.Fatalf("a stale result was applied: %q %d", p.pattern, p.visibleCount())
	}
	for _, r := range p.rows {
		if r.change >= 0 && !strings.Contains(p.diff.Changes[r.change].Pointer, "terminal") {
			t.Fatalf("row %s passes the filter", p.diff.Changes[r.change].Pointer)
		}
	}
	// esc while typing restores what was shown before the field opened.
	p, _ = press(p, "esc")
	if p.pattern != "" || p.visibleCount() != 8 || p.Capturing() {
		t.Fatalf("esc: %q %d", p.pattern, p.visibleCount())
	}
	// Stale scans give up on a large diff (they poll the latest generation).
	big := &diffview.Diff{Changes: make([]diffview.Change, 50000)}
	for i := range big.Changes {
		big.Changes[i].Pointer = fmt.Sprintf("/per_request/%d/ttft_ms", i)
	}
	g := buildGroupings(big)
	p.latest.Store(99)
	if msg := scanFilter(big, g, "ttft", 98, p.latest)(); msg != nil {
		t.Fatalf("a superseded scan should give up, got %T", msg)
	}
	msg := scanFilter(big, g, "/per_request/1*/ttft_ms", 99, p.latest)().(filterDoneMsg)
	if msg.vis.total != 11111 || msg.vis.counts[byPattern][0] != 11111 {
		t.Fatalf("scan: %d, %v", msg.vis.total, msg.vis.counts[byPattern])
	}
}

func TestPaneBroadRecordNeedsConfirmationAndIsFlagged(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	p, _ = pressSettled(t, p, "e", "ctrl+u")
	p = typeSettled(t, p, "/**")
	p = fillExplanations(p)
	p, _ = pressSettled(t, p, "ctrl+s")
	if p.form.confirm == "" || !p.Capturing() {
		t.Fatal("/** must ask for a confirmation")
	}
	v := stripANSI(p.View())
	for _, w := range []string{"BROAD RECORD: confirm before saving", "names a root pattern (/**) and covers 8 of 8 differing pointers (100%, more than",
		"y save it flagged broad · n keep editing"} {
		if !strings.Contains(v, w) {
			t.Errorf("confirmation lacks %q:\n%s", w, v)
		}
	}
	if got := p.ShortHelp(); len(got) != 2 || got[0].Help().Key != "y" {
		t.Fatalf("while confirming only y and n apply: %v", got)
	}
	p, _ = pressSettled(t, p, "n")
	if p.form.confirm != "" || p.mode != modeForm {
		t.Fatal("n goes back to the form")
	}
	if recs, _ := exceptions.LoadExceptions(dir); len(recs) != 0 {
		t.Fatal("nothing is written before the confirmation")
	}
	p, _ = pressSettled(t, p, "ctrl+s")
	p, msgs := pressSettled(t, p, "y")
	recs, err := exceptions.LoadExceptions(dir)
	if err != nil || len(recs) != 1 || !recs[0].Broad {
		t.Fatalf("saved: %+v %v", recs, err)
	}
	if !hasStatus(msgs, "(flagged broad) · covers 8 · 0 uncovered (the header has the campaign's semantic verdict)") {
		t.Fatalf("the workbench should be told: %v", msgs)
	}
	p, _ = press(p, "L")
	if v := stripANSI(p.View()); !strings.Contains(v, recs[0].ID+"  BROAD · covers 8 of 8 · /**") {
		t.Fatalf("records list:\n%s", v)
	}
	// A narrower edit clears the flag.
	p, _ = pressSettled(t, p, "enter", "ctrl+u")
	p = typeSettled(t, p, "/per_request/*/terminal_time_ms")
	p, _ = pressSettled(t, p, "ctrl+s")
	if recs, _ = exceptions.LoadExceptions(dir); recs[0].Broad || p.form.confirm != "" {
		t.Fatalf("narrowed record still broad: %+v", recs[0])
	}
}

func hasStatus(msgs []tea.Msg, want string) bool {
	for _, m := range msgs {
		if s, ok := m.(StatusMsg); ok && strings.Contains(s.Text, want) {
			return true
		}
	}
	return false
}

func TestPaneWhatDiffersIsComputedWhenSavedAndWhenEdited(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	p, _ = press(p, "f")
	p, _ = pressSettled(t, p, "c") // the form opens on the admission pattern...
	p = fillExplanations(p)
	p, _ = pressSettled(t, p, "tab", "ctrl+u") // ...and the patterns change before saving
	p = typeSettled(t, p, "/per_request/*/terminal_time_ms")
	p, _ = pressSettled(t, p, "ctrl+s")
	recs, _ := exceptions.LoadExceptions(dir)
	if len(recs) != 1 || recs[0].Differs != "3 pointer(s) in 3 request(s): terminal_time_ms 3" {
		t.Fatalf("differs at save: %+v", recs)
	}
	// Edited, it describes the new patterns.
	p, _ = pressSettled(t, p, "L", "enter", "ctrl+u")
	p = typeSettled(t, p, "/metadata/engine_config/*/preemption_mode")
	p, _ = pressSettled(t, p, "ctrl+s")
	recs, _ = exceptions.LoadExceptions(dir)
	if recs[0].Differs != "2 pointer(s) in 0 request(s): preemption_mode 2" {
		t.Fatalf("differs after the edit: %q", recs[0].Differs)
	}
	// A new record whose patterns cover nothing is refused, naming the field.
	p, _ = pressSettled(t, p, "esc", "e", "ctrl+u")
	p = typeSettled(t, p, "/nothing/here")
	p = fillExplanations(p)
	p, _ = pressSettled(t, p, "ctrl+s")
	if !strings.Contains(p.form.err, "cover no differing pointer") || p.form.focused != 0 {
		t.Fatalf("empty coverage: %q", p.form.err)
	}
}

func TestPaneDiagnosisCollapsesAndTheListKeepsItsRows(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	if !p.diagOpen() {
		t.Fatal("at 100x30 the diagnosis has room to be open")
	}
	// The diff band at 110x34 (less the slot's indent).
	p.SetSize(109, 18)
	if p.diagOpen() || p.listHeight() < 8 {
		t.Fatalf("at 109x18: diagnosis open %v, %d list rows", p.diagOpen(), p.listHeight())
	}
	if v := stripANSI(p.View()); !strings.Contains(v, "· +1 more (i)") {
		t.Fatalf("closed diagnosis line:\n%s", v)
	}
	p, _ = press(p, "i")
	if !p.diagOpen() || !strings.Contains(stripANSI(p.View()), "also  2.") {
		t.Fatal("i opens the diagnosis")
	}
	p, _ = press(p, "i")
	if p.diagOpen() {
		t.Fatal("i closes it again")
	}
}

func TestPaneCopyAndMouse(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	sel := p.diff.Changes[p.rows[p.cursor].change]
	p, msgs := pressSettled(t, p, "y")
	if !clipboard(msgs, sel.Pointer) || !hasStatus(msgs, "copied "+sel.Pointer+" to the clipboard") {
		t.Fatalf("y: %v", msgs)
	}
	_, msgs = pressSettled(t, p, "Y")
	if !clipboard(msgs, `{"pointer":"`+sel.Pointer+`","a":`+sel.A+`,"b":`+sel.B+`}`) {
		t.Fatalf("Y: %v", msgs)
	}
	// A click on a list line selects that row; on the selected header it toggles the group.
	p.ClickAt(p.listTop())
	if p.cursor != p.offset || p.rows[p.cursor].change >= 0 {
		t.Fatalf("click: cursor %d", p.cursor)
	}
	g := p.cur().groups[p.rows[p.cursor].group]
	open := p.expanded[g.key]
	p.ClickAt(p.listTop())
	if p.expanded[g.key] == open {
		t.Fatal("a click on the selected header toggles it")
	}
	if p.ClickAt(0) {
		t.Fatal("the title line is not a row")
	}
	p.ScrollBy(3)
	if p.cursor != 3 {
		t.Fatalf("wheel: cursor %d", p.cursor)
	}
}

func clipboard(msgs []tea.Msg, want string) bool {
	for _, m := range msgs {
		if reflect.TypeOf(m).Name() == "setClipboardMsg" && fmt.Sprint(m) == want {
			return true
		}
	}
	return false
}

// The pane at the size the workbench gives it at 110x34 with focus, grouped by field pattern.
func TestPaneGoldenPatterns109x18(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	p.a.Label, p.b.Label = "base#1", "cand#1"
	p.SetSize(109, 18)
	p, _ = press(p, "f", "enter", "j")
	got := stripANSI(p.View())
	for i, l := range strings.Split(got, "\n") {
		if n := len([]rune(l)); n != 109 {
			t.Errorf("line %d is %d cells: %q", i, n, l)
		}
	}
	golden.RequireEqual(t, got)
}
