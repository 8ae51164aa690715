package consistency_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"kvparity/campaignreport"
	"kvparity/e2e"
	"kvparity/e2e/consistency"
	"kvparity/engine"
	"kvparity/engine/stages"
	"kvparity/headless"
	"kvparity/internal/layout"
	"kvparity/ui"
	"kvparity/verdict"
)

// Issue 40, item 4 ("true at every moment"): a campaign driven in the workbench through a
// performance stage that blocks (its pinned candidate copy changed after opening: the stage's checksums refuse it), is
// fixed and resumed then stopped by the user, and is resumed to its end. At each state the
// header (the real model over the real campaign), the status line, report.md, summary.md,
// report.json and the headless `run --json` document say the same verdict words; the header
// says BLOCKED once the block's assessment is in, never UNDECIDED beside it; `s` (save report)
// changes no verdict; a report of a stage that ended blocked says BLOCKED with its reason,
// never "in progress".
func TestBlockedResumedFinishedAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign end to end")
	}
	bin := e2e.Binary(t)
	row, err := engine.LoadRow("rows/tiny.toml")
	if err != nil {
		t.Fatal(err)
	}
	row.Perf.Pairs = 16 // long enough for x to stop the resumed stage before its end
	rowFile := e2e.RowFile(t, "tiny.toml", row)
	dir := e2e.CampaignDir(t, "tiny")
	if code, _, errs := e2e.Run(t, bin, 10*time.Minute, "run", rowFile, "--campaign", dir, "--stage", "determinism"); code != verdict.ExitPass {
		t.Fatalf("determinism: exit %d\n%s", code, e2e.Tail(errs, 20))
	}
	var c *engine.Campaign
	open := func() *workbench {
		var err error
		if c, err = engine.Open(dir, engine.Options{BuiltinPath: bin, Perf: engine.PerfOptions{CompetingLoadFraction: 1}}); err != nil {
			t.Fatal(err)
		}
		return newWorkbench(t, c, dir)
	}
	w := open()
	defer func() { c.Close() }()
	// Once open (opening checks the copies too), the pinned candidate copy changes (one byte
	// appended): the perf stage's checksums refuse it, a block without a perf result. Cutting
	// the byte fixes it.
	artifact := filepath.Join(dir, "artifacts", "candidate-g1-kvparity")
	fi, err := os.Stat(artifact)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(artifact, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0})
	f.Close()

	// Blocked: p starts the perf stage, which blocks on the changed copy.
	w.key('p')
	w.until("the perf stage blocked and its assessment is in", func(s string) bool {
		return strings.Contains(s, "perf stage ended BLOCKED") && w.settled()
	})
	blocked := w.check("blocked")
	if blocked.Performance != verdict.Blocked || blocked.Overall != verdict.Blocked {
		t.Errorf("blocked: %v, want performance and overall BLOCKED", blocked)
	}
	if !strings.Contains(w.status(), "BLOCKED") {
		t.Errorf("blocked: the status line says nothing of it: %q", w.status())
	}
	for _, f := range []string{layout.FileReportMD, layout.FileSummaryMD} {
		text, _ := os.ReadFile(filepath.Join(dir, f))
		if strings.Contains(string(text), "in progress") {
			t.Errorf("blocked: %s says the stage is in progress:\n%s", f, grepLines(string(text), "in progress"))
		}
	}
	// The headless document of the campaign as it stands (what `run --stage perf --json`
	// prints after its stages: a run here would refuse to open the changed copy).
	doc, err := headless.Assess(dir, headless.StagePerf, c.Summary())
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := doc.Write(&js, true); err != nil {
		t.Fatal(err)
	}
	var printed verdict.Document
	if err := json.Unmarshal(js.Bytes(), &printed); err != nil {
		t.Fatal(err)
	}
	if got := consistency.WordsOf(printed.Verdicts); got != blocked {
		t.Errorf("blocked: the headless --json document says %v, the workbench %v", got, blocked)
	}

	// Resumed and stopped by the user: the block is over; nothing is BLOCKED any more.
	if err := os.Truncate(artifact, fi.Size()); err != nil {
		t.Fatal(err)
	}
	w.key('p')
	w.until("the resumed stage recorded a pair", func(string) bool {
		return consistency.JournalHas(filepath.Join(dir, layout.FileJournal), engine.RecPerfPair)
	})
	w.key('x')
	w.key('y') // x asks first while a stage runs; y stops it
	w.until("the stage stopped and its assessment is in", func(s string) bool {
		return strings.Contains(s, "perf stage stopped") && w.settled()
	})
	stopped := w.check("resumed and stopped")
	if stopped.Performance == verdict.Blocked || stopped.Overall == verdict.Blocked || strings.Contains(w.status(), "BLOCKED") {
		t.Errorf("resumed and stopped: %v, status %q: the block was retried and is over", stopped, w.status())
	}

	// Finished: p again runs the stage to its result.
	w.key('p')
	w.until("the stage finished and its assessment is in", func(s string) bool {
		return strings.Contains(s, "perf stage finished") && w.settled()
	})
	finished := w.check("finished")
	c.Close()
	if !finished.Performance.Decided() || finished.Performance == verdict.Blocked {
		t.Errorf("finished: %v, want a decided performance verdict", finished)
	}
	headlessAgrees(t, "finished", bin, rowFile, dir, "perf", finished)
}

// workbench drives the real workbench model over a campaign: messages are processed one at a
// time as Bubble Tea would, commands run in goroutines.
type workbench struct {
	t      *testing.T
	dir    string
	model  tea.Model
	msgs   chan tea.Msg
	screen string
}

func newWorkbench(t *testing.T, c *engine.Campaign, dir string) *workbench {
	w := &workbench{t: t, dir: dir, msgs: make(chan tea.Msg, 256)}
	var m tea.Model = ui.New(ui.Options{Controller: stages.New(c), Assess: campaignreport.Assess, SaveReport: campaignreport.Write,
		PreflightText: campaignreport.PreflightText, NoColor: true})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 240, Height: 50})
	w.model = m
	w.start(m.Init())
	w.until("the first assessment", func(string) bool { return w.settled() })
	return w
}

func (w *workbench) start(cmd tea.Cmd) {
	if cmd != nil {
		go func() { w.msgs <- cmd() }()
	}
}

// step processes one message.
func (w *workbench) step(timeout <-chan time.Time) bool {
	select {
	case msg := <-w.msgs:
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				w.start(c)
			}
			return true
		}
		var cmd tea.Cmd
		w.model, cmd = w.model.Update(msg)
		w.start(cmd)
		w.screen = ansi.Strip(w.model.View().Content)
		return true
	case <-timeout:
		return false
	}
}

// until processes messages until cond holds on the screen.
func (w *workbench) until(what string, cond func(screen string) bool) {
	w.t.Helper()
	deadline := time.After(5 * time.Minute)
	for !cond(w.screen) {
		if !w.step(deadline) {
			w.t.Fatalf("waiting for %s: timed out; screen:\n%s", what, w.screen)
		}
	}
}

var headerRe = regexp.MustCompile(`semantic (\S+) · performance (\S+) · footprint (\S+) · overall (\S+)`)

// settled says the header shows words, not "running", "pending" or "computing", and no
// assessment is on its way: wait a little for one that may still come.
func (w *workbench) settled() bool {
	m := headerRe.FindStringSubmatch(w.header())
	if m == nil {
		return false
	}
	for _, word := range m[1:] {
		if _, err := verdict.Parse(word); err != nil {
			return false
		}
	}
	quiet := time.After(300 * time.Millisecond)
	for w.step(quiet) {
		quiet = time.After(300 * time.Millisecond)
	}
	return headerRe.MatchString(w.header())
}

func (w *workbench) header() string { return strings.SplitN(w.screen, "\n", 2)[0] }

// status is the status line (one or two rows): under the header and the two artifact rows,
// above the determinism pane.
func (w *workbench) status() string {
	lines := strings.Split(w.screen, "\n")
	var out []string
	for i := 3; i < len(lines) && !strings.Contains(lines[i], "DETERMINISM"); i++ {
		out = append(out, strings.TrimSpace(lines[i]))
	}
	return strings.Join(out, " ")
}

func (w *workbench) key(r rune) {
	var cmd tea.Cmd
	w.model, cmd = w.model.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	w.start(cmd)
}

func (w *workbench) headerWords() consistency.Words {
	w.t.Helper()
	m := headerRe.FindStringSubmatch(w.header())
	if m == nil {
		w.t.Fatalf("the header shows no verdicts: %q", w.header())
	}
	o := verdict.Word(m[4])
	return consistency.Words{verdict.Word(m[1]), verdict.Word(m[2]), verdict.Word(m[3]), o, verdict.ExitCode(o)}
}

// check saves the report with s (which must change no verdict on screen) and holds the
// header, report.md, summary.md and report.json equal; it returns the words.
func (w *workbench) check(state string) consistency.Words {
	t := w.t
	t.Helper()
	before := w.headerWords()
	// The status line may still say "report written" from the last state's s: wait for this
	// s's files themselves (removed first), not for the words.
	reports := []string{layout.FileReportMD, layout.FileSummaryMD, layout.FileReportJSON}
	for _, f := range reports {
		os.Remove(filepath.Join(w.dir, f))
	}
	w.key('s')
	w.until("the report written", func(s string) bool {
		for _, f := range reports {
			if _, err := os.Stat(filepath.Join(w.dir, f)); err != nil {
				return false
			}
		}
		return strings.Contains(s, "report written")
	})
	w.settled()
	if after := w.headerWords(); after != before {
		t.Errorf("%s: s changed the header from %v to %v", state, before, after)
	}
	surfaces := map[string]consistency.Words{"workbench header": before}
	md, _ := os.ReadFile(filepath.Join(w.dir, layout.FileReportMD))
	surfaces["report.md"] = consistency.MarkdownWords(t, string(md))
	sum, _ := os.ReadFile(filepath.Join(w.dir, layout.FileSummaryMD))
	surfaces["summary.md"] = summaryWords(t, string(sum), surfaces["report.md"].Exit)
	js, _ := os.ReadFile(filepath.Join(w.dir, layout.FileReportJSON))
	var rep verdict.Document
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	surfaces["report.json"] = consistency.WordsOf(rep.Verdicts)
	for s, words := range surfaces {
		if words != before {
			t.Errorf("%s: %s says %v, the header %v", state, s, words, before)
		}
	}
	// Blocked or not, the status line's mark and the verdicts agree.
	if marked := strings.Contains(w.status(), "BLOCKED"); marked != (before.Overall == verdict.Blocked) {
		t.Errorf("%s: status line %q beside overall %s", state, w.status(), before.Overall)
	}
	if before.Performance == verdict.Blocked {
		if !strings.Contains(string(md), "status: blocked") {
			t.Errorf("%s: report.md does not say the perf stage ended blocked:\n%s", state, grepLines(string(md), "status:"))
		}
		if rep.Performance.Reason == "" {
			t.Errorf("%s: report.json's BLOCKED performance has no reason", state)
		}
	}
	t.Logf("%s: %v", state, before)
	return before
}

// summaryWords reads summary.md's verdicts table (its exit status is report.md's).
func summaryWords(t *testing.T, md string, exit int) consistency.Words {
	t.Helper()
	cell := func(label string) verdict.Word {
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(label) + ` \| \**([A-Z_]+)\**`).FindStringSubmatch(md)
		if m == nil {
			t.Errorf("summary.md has no %q row", label)
			return ""
		}
		return verdict.Word(m[1])
	}
	return consistency.Words{cell("**semantic**"), cell("**performance**"), cell("footprint (growth ≤ 5%)"), cell("**overall**"), exit}
}

// headlessAgrees runs `kvparity run --stage STAGE --json` over the campaign and holds its
// document's words equal to want.
func headlessAgrees(t *testing.T, state, bin, rowFile, dir, stage string, want consistency.Words) {
	t.Helper()
	code, out, errs := e2e.Run(t, bin, 10*time.Minute, "run", rowFile, "--campaign", dir, "--stage", stage, "--json")
	var doc verdict.Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%s: run --json (exit %d): %v\n%s", state, code, err, e2e.Tail(errs, 20))
	}
	if got := consistency.WordsOf(doc.Verdicts); got != want || code != want.Exit {
		t.Errorf("%s: run --json says %v (exited %d), the workbench %v", state, got, code, want)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
