package chaos_test

import (
	"bytes"
	"encoding/json"
	"kvparity/e2e"
	"kvparity/engine/journal"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/engine/run"
	"kvparity/engine/stages"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// The chaos cases of issue 25: several kvparity processes on one campaign, and the signals a
// closed terminal sends. Each asserts that nothing recorded is lost, no verdict is false and
// nothing is left running.

// startRun starts `kvparity run --row tiny` on dir in its own process group.
func startRun(t *testing.T, bin, dir, stage string) *e2e.Proc {
	t.Helper()
	return e2e.Start(t, bin, "run", "--row", "tiny", "--campaign", dir, "--stage", stage)
}

// waitJournal polls dir's journal until pred holds over its records.
func waitJournal(t *testing.T, dir, what string, pred func([]engine.Record) bool) []engine.Record {
	t.Helper()
	var recs []engine.Record
	e2e.WaitFor(t, what+" in "+dir, 3*time.Minute, func() bool {
		var err error
		recs, _, err = journal.Read[engine.Record](filepath.Join(dir, layout.FileJournal), journal.SkipDamagedTail)
		return err == nil && pred(recs)
	})
	return recs
}

// aRunIsOpen: a replay has started and not ended.
func aRunIsOpen(recs []engine.Record) bool {
	open := map[engine.RunID]bool{}
	for _, r := range recs {
		switch r.Type {
		case engine.RecRunStart:
			open[r.Run] = true
		case engine.RecRunEnd:
			delete(open, r.Run)
		}
	}
	return len(open) > 0
}

func hasType(recs []engine.Record, ty engine.RecordType) bool {
	for _, r := range recs {
		if r.Type == ty {
			return true
		}
	}
	return false
}

// Two `run`s on one campaign at once: the second is refused at once naming the first, the
// first finishes, and the journal reads back whole with the verdict of an undisturbed run.
func TestChaosTwoWritersAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two real campaigns")
	}
	bin := e2e.Binary(t)
	dir := e2e.CampaignDir(t, "c")
	first := startRun(t, bin, dir, "all")
	waitJournal(t, dir, "a running replay", aRunIsOpen)
	start := time.Now()
	code, _, errOut := e2e.Run(t, bin, time.Minute, "run", "--row", "tiny", "--campaign", dir, "--stage", "all")
	if code != 3 || !strings.Contains(errOut, "is being written by kvparity pid "+strconv.Itoa(first.Pid())) {
		t.Fatalf("the second writer exited %d:\n%s", code, errOut)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the second writer took %s to be refused", d)
	}
	// The readers take no lock: each reads a consistent prefix of the journal while it grows.
	for _, args := range [][]string{{"report", dir}, {"diff", "--campaign", dir}, {"exceptions", "list", dir}} {
		if code, _, errs := e2e.Run(t, bin, time.Minute, args...); code == 3 {
			t.Errorf("kvparity %s while the campaign runs: exit 3\n%s", strings.Join(args, " "), errs)
		}
	}
	checkWriterExit(t, "the first writer", first.ExitCode())
	checkJournal(t, dir, 0)
	checkNoSurvivors(t, dir, 0)
	checkNoRunKilled(t, dir)
	checkNoFalseVerdict(t, bin, dir, true)
}

// Following a running perf stage (what `kvparity open` does on a campaign another kvparity
// writes): the follower sees the samples as they are measured, kills nothing, writes nothing,
// and the writer's perf stage ends with no sample killed by a signal (the false FAIL of before).
func TestChaosFollowDuringPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real perf stage")
	}
	bin := e2e.Binary(t)
	dir := e2e.CampaignDir(t, "c")
	writer := startRun(t, bin, dir, "perf")
	waitJournal(t, dir, "the perf stage's first sample run", func(recs []engine.Record) bool {
		for _, r := range recs {
			if r.Type == engine.RecRunStart && (r.Kind == engine.KindWarmup || r.Kind == engine.KindSample) {
				return true
			}
		}
		return false
	})
	f, err := engine.Open(dir, engine.Options{Follow: true})
	if err != nil {
		t.Fatalf("following the campaign: %v", err)
	}
	var followed []engine.Event
	pumped, writerEnded := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(pumped)
		said := false
		for ev := range f.Events() {
			followed = append(followed, ev)
			if fw, ok := ev.(engine.FollowedWriter); ok && fw.Ended && !said {
				said = true
				close(writerEnded)
			}
		}
	}()
	if err := stages.New(f).StartPerf(); err == nil || !strings.Contains(err.Error(), "pid "+strconv.Itoa(writer.Pid())) {
		t.Errorf("a stage key on the follower: %v, want a refusal naming the writer", err)
	}
	if code := writer.ExitCode(); code != verdict.ExitPass && code != verdict.ExitInconclusive {
		t.Fatalf("the followed writer exited %d (want 0 or 2: identical arms cannot fail)\n%s", code, e2e.Tail(writer.Stderr(), 20))
	}
	// The follower says its writer ended only after reading the journal's last records
	// (engine/follow.go): once it has, it has seen everything the writer recorded.
	select {
	case <-writerEnded:
	case <-time.After(time.Minute):
		f.Close()
		t.Fatal("timed out after 1m waiting for the follower to report its writer's end (FollowedWriter Ended)")
	}
	f.Close()
	<-pumped
	samples, ended := 0, false
	for _, ev := range followed {
		switch ev := ev.(type) {
		case engine.SampleDone:
			samples++
		case engine.FollowedWriter:
			ended = ended || ev.Ended
		}
	}
	if samples == 0 || !ended {
		t.Errorf("the follower saw %d samples, writer ended %v", samples, ended)
	}
	recs := waitJournal(t, dir, "the whole journal", func([]engine.Record) bool { return true })
	checkNoRunKilled(t, dir)
	if !hasType(recs, engine.RecPerfResult) && !strings.Contains(writer.Stderr(), "BLOCKED") {
		t.Errorf("the followed perf stage recorded no result:\n%s", e2e.Tail(writer.Stderr(), 20))
	}
	checkJournal(t, dir, 0)
	checkNoSurvivors(t, dir, 0)
	checkNoFalseVerdict(t, bin, dir, true)
}

// SIGHUP (a closed terminal) stops the stage like SIGTERM: recorded as the stage's end with
// its cause, nothing of the campaign left running, and the campaign resumes.
func TestChaosSIGHUP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real campaign")
	}
	bin := e2e.Binary(t)
	dir := e2e.CampaignDir(t, "c")
	run := startRun(t, bin, dir, "all")
	waitJournal(t, dir, "a running replay", aRunIsOpen)
	run.Signal(syscall.SIGHUP) // kvparity alone: its replays are in groups of their own
	if !run.Wait(30 * time.Second) {
		t.Fatal("kvparity did not stop on SIGHUP")
	}
	// docs/guide.md: a headless run stopped mid-stage exits 2, its verdict undecided (never 1).
	if code := run.ExitCode(); code != verdict.ExitInconclusive {
		t.Errorf("kvparity stopped by SIGHUP mid-stage exited %d, want 2 (undecided)", code)
	}
	checkStoppedBy(t, dir, "hangup signal received")
	checkResumesToPass(t, bin, dir)
}

// A tmux session killed under the workbench: the workbench gets SIGHUP, stops its stage with
// the cause recorded, and leaves nothing running.
func TestChaosTmuxKilledUnderWorkbench(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the workbench in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is missing (.ci/run installs it)")
		}
		t.Skip("tmux is not installed: apt-get install tmux")
	}
	bin := e2e.Binary(t)
	dir := e2e.CampaignDir(t, "c")
	session := "kvparity-chaos-" + strconv.Itoa(os.Getpid())
	tmux := func(args ...string) {
		if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
	}
	tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", bin, "--row", "tiny", "--campaign", dir)
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", session).Run() })
	waitJournal(t, dir, "the campaign", func(recs []engine.Record) bool { return len(recs) > 0 })
	// A key sent before the workbench has drawn is lost: wait until its footer offers S.
	e2e.WaitFor(t, "the workbench to draw its footer offering \"S determinism\" in tmux", time.Minute, func() bool {
		screen, _ := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
		return strings.Contains(string(screen), "S determinism")
	})
	tmux("send-keys", "-t", session, "S")
	waitJournal(t, dir, "a running replay", aRunIsOpen)
	holder := readLockHolder(t, dir)
	tmux("kill-session", "-t", session)
	if !e2e.Until(30*time.Second, func() bool { return !holder.Alive() }) {
		t.Fatal("the workbench outlived its killed tmux session")
	}
	checkStoppedBy(t, dir, "hangup signal received")
	checkResumesToPass(t, bin, dir)
}

// checkWriterExit fails on an exit status the tiny row with identical arms cannot earn: a
// FAIL (1), a usage error (3), kvparity's own failure (4) or a death by signal.
func checkWriterExit(t *testing.T, who string, code int) {
	t.Helper()
	if code != verdict.ExitPass && code != verdict.ExitInconclusive {
		t.Errorf("%s exited %d: the tiny row's identical arms give 0 (or 2 when the machine's load blocks perf)", who, code)
	}
}

// checkNoRunKilled fails when a run of the campaign ended killed by a signal: on a campaign
// nobody interrupted, that is a writer (or a follower) killing another's replay.
func checkNoRunKilled(t *testing.T, dir string) {
	t.Helper()
	recs, _, err := journal.Read[engine.Record](filepath.Join(dir, layout.FileJournal), journal.RefuseDamage)
	if err != nil {
		t.Fatalf("the journal does not read back whole: %v", err)
	}
	for _, r := range recs {
		if r.Type == engine.RecRunEnd && r.Signal != "" {
			t.Errorf("%s ended by signal %s: a replay was killed", r.Run, r.Signal)
		}
	}
}

// checkNoFalseVerdict writes the campaign's report and fails on a verdict the tiny row with
// identical arms cannot produce: any FAIL or UNSTABLE, a semantic verdict other than PASS or a
// revision other than STABLE (when determinism ran: semanticRan), an exit status of 1, or a
// replay "killed by signal" anywhere in report.json or report.md.
func checkNoFalseVerdict(t *testing.T, bin, dir string, semanticRan bool) verdict.Document {
	t.Helper()
	if code, out, errs := e2e.Run(t, bin, 5*time.Minute, "report", dir); code != 0 {
		t.Fatalf("kvparity report: exit %d\n%s%s", code, out, errs)
	}
	js, err := os.ReadFile(filepath.Join(dir, layout.FileReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var doc verdict.Document
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	v := doc.Verdicts
	for name, o := range map[string]verdict.Outcome{"overall": v.Overall, "semantic": v.Semantic, "performance": v.Performance,
		"footprint": v.Footprint, "coverage": v.Coverage, "parity": v.Parity,
		"baseline determinism": v.Determinism.Baseline, "candidate determinism": v.Determinism.Candidate} {
		if o.Verdict.Fails() {
			t.Errorf("report.json: %s %s (%s): a false verdict on identical arms", name, o.Verdict, o.Reason)
		}
	}
	if v.ExitCode == verdict.ExitFail || v.SemanticExitCode == verdict.ExitFail {
		t.Errorf("report.json: exit_code %d, semantic_exit_code %d", v.ExitCode, v.SemanticExitCode)
	}
	if semanticRan {
		if v.Semantic.Verdict != verdict.Pass || v.Parity.Verdict != verdict.Pass ||
			v.Determinism.Baseline.Verdict != verdict.Stable || v.Determinism.Candidate.Verdict != verdict.Stable {
			t.Errorf("report.json: semantic %s, parity %s, baseline %s, candidate %s; want PASS, PASS, STABLE, STABLE",
				v.Semantic.Verdict, v.Parity.Verdict, v.Determinism.Baseline.Verdict, v.Determinism.Candidate.Verdict)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, layout.FileReportMD))
	for name, b := range map[string][]byte{"report.json": js, "report.md": md} {
		if bytes.Contains(b, []byte("killed by signal")) {
			t.Errorf("%s says a replay was killed by signal", name)
		}
	}
	return doc
}

// checkResumesToPass resumes an interrupted campaign's determinism stage: the runs the signal
// cut short are rerun, and the verdict is the one of an undisturbed run (exit 0, PASS, STABLE),
// never a FAIL made of the interruption.
func checkResumesToPass(t *testing.T, bin, dir string) {
	t.Helper()
	if code, _, errs := e2e.Run(t, bin, 5*time.Minute, "run", "--row", "tiny", "--campaign", dir, "--stage", "determinism"); code != verdict.ExitPass {
		t.Fatalf("resume after the interruption: exit %d\n%s", code, e2e.Tail(errs, 20))
	}
	checkJournal(t, dir, 0)
	checkNoSurvivors(t, dir, 0)
	checkNoFalseVerdict(t, bin, dir, true)
}

// checkStoppedBy checks that the journal reads back whole and ends with the stage's end
// recording why it stopped, and that nothing of the campaign is left running.
func checkStoppedBy(t *testing.T, dir, reason string) {
	t.Helper()
	recs := waitJournal(t, dir, "the journal", func([]engine.Record) bool { return true })
	if last := recs[len(recs)-1]; last.Type != engine.RecStageEnd || last.Reason != reason {
		t.Errorf("the last record is %s %q, want the stage's end recording %q", last.Type, last.Reason, reason)
	}
	checkJournal(t, dir, 0)
	checkNoSurvivors(t, dir, 0)
}

// readLockHolder is the kvparity the campaign lock names.
func readLockHolder(t *testing.T, dir string) run.Holder {
	t.Helper()
	err := func() error {
		release, err := run.LockCampaign(dir)
		if err == nil {
			release()
		}
		return err
	}()
	held, ok := err.(*run.HeldError)
	if !ok {
		t.Fatalf("nobody holds the campaign lock: %v", err)
	}
	return held.Holder
}
