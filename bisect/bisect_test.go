package bisect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"kvparity/engine/journal"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/engine/build/buildtest"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// fixture is engine/build's miniature dynamo-bench and replay crate (the fake registry).
func fixture(t *testing.T) string {
	f, err := filepath.Abs(filepath.Join("..", "engine", "build", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkoutHistory is a Dynamo-shaped checkout (a workspace with the bench in lib/bench) and its
// commits: base, then c1..c8, where c4 does not compile (buildtest.FailFile, removed by c5)
// and c6 builds variant into the bench (buildtest.VariantFile, kept after): "fifo-preemption"
// changes the preemption mode the bench reports. shas[0] is base, shas[i] is ci.
func checkoutHistory(t *testing.T, variant string) (repo string, shas []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	fx := fixture(t)
	var git func(...string) string
	repo, git = buildtest.Checkout(t, fx)
	commit := func(msg string) {
		git("add", "-A")
		git("commit", "-qm", msg)
		shas = append(shas, git("rev-parse", "HEAD"))
	}
	commit("base")
	harness := filepath.Join(repo, "lib", "bench", "offline_replay_bench.rs")
	edit := func(line string) {
		b, _ := os.ReadFile(harness)
		os.WriteFile(harness, append(b, []byte("// "+line+"\n")...), 0o644)
	}
	for i := 1; i <= 8; i++ {
		edit(fmt.Sprintf("c%d", i))
		switch i {
		case 4:
			os.WriteFile(filepath.Join(repo, buildtest.FailFile), []byte("cannot find value `best_cost` in this scope"), 0o644)
		case 5:
			os.Remove(filepath.Join(repo, buildtest.FailFile))
		case 6:
			os.WriteFile(filepath.Join(repo, buildtest.VariantFile), []byte(variant+"\n"), 0o644)
		}
		msg := map[int]string{4: "c4: a change that does not compile", 6: "c6: preempt first-in first-out"}[i]
		if msg == "" {
			msg = fmt.Sprintf("c%d: an edit", i)
		}
		commit(msg)
	}
	return repo, shas
}

// testRow is a small row over the checkout: 20 generated requests, two repetitions per arm,
// no perturbed repetitions (the fake replay has no environment to leak).
func testRow(repo string) *engine.Row {
	r := engine.TinyRow("", "")
	r.Name = "bisect-test"
	r.Trace = engine.TraceSpec{Path: "generated:conversation?seed=7&requests=20", Count: 20}
	r.Replay.Args = []string{"--serving-mode", "aggregated", "--num-workers", "2"}
	r.Determinism.Perturbations = []engine.Variation{}
	r.Baseline = engine.ArmSpec{Source: "git:" + repo + "@HEAD", Features: []string{"replay-bench"}}
	r.Candidate = engine.ArmSpec{Source: "git:" + repo + "@HEAD", Features: []string{"replay-bench"}}
	return r
}

func testOptions(repo, dir, cache string, progress func(Progress)) Options {
	return Options{Row: testRow(repo), Good: "HEAD~8", Bad: "HEAD", Dir: dir, Progress: progress,
		Campaign: engine.Options{BuildCache: cache, PollInterval: 20 * time.Millisecond, Settle: 100 * time.Millisecond,
			Perf: engine.PerfOptions{LoadWindow: 50 * time.Millisecond}}}
}

func cargoBuilds(t *testing.T, log string) int {
	n := 0
	for _, c := range buildtest.Calls(t, log) {
		if strings.HasPrefix(c, "cargo build") {
			n++
		}
	}
	return n
}

// Eight commits, one that does not compile and one that changes the canonical report: the
// bisect names the change, skips the broken commit saying why, and points at the probe
// campaign of good vs first bad. Run again, it resumes the finished bisect: nothing is built
// or run, and the result is the same.
func TestBisectNamesTheSemanticChangeAndSkipsABrokenCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("five probe campaigns of fake builds and replays")
	}
	log := buildtest.Install(t, buildtest.Options{Fixture: fixture(t), Bench: selfExe(t)})
	repo, shas := checkoutHistory(t, "fifo-preemption")
	dir := filepath.Join(t.TempDir(), "bisect")
	o := testOptions(repo, dir, t.TempDir(), nil)
	o.Campaign.Warn = func(s string) { t.Log("warning:", s) }
	var phases []string
	var begun []Started
	var ranges []Range
	o.Progress = func(p Progress) {
		switch p.Phase {
		case PhaseJudged:
			phases = append(phases, short(p.Commit)+" "+string(p.Step.Outcome))
			ranges = append(ranges, *p.Range)
		case PhaseStarted:
			begun = append(begun, *p.Started)
		}
	}
	start := time.Now()
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bisect of 8 commits: %d probes in %s", len(r.Steps), time.Since(start).Round(time.Millisecond))
	var text bytes.Buffer
	r.WriteText(&text)
	t.Log("\n" + text.String())
	if r.Status != StatusFound || r.FirstBad == nil || r.FirstBad.SHA != shas[6] {
		t.Fatalf("the first bad commit is c6 %.12s: status %s, %s, first bad %+v", shas[6], r.Status, r.Reason, r.FirstBad)
	}
	if r.LastGood == nil || r.LastGood.SHA != shas[5] || r.ExitCode != verdict.ExitFail {
		t.Errorf("last good %+v (want c5 %.12s), exit %d", r.LastGood, shas[5], r.ExitCode)
	}
	if r.FirstBad.Subject != "c6: preempt first-in first-out" || r.FirstBad.AuthorDate == "" || !strings.Contains(r.FirstBad.DiffStat, buildtest.VariantFile) {
		t.Errorf("the first bad commit's description: %+v", r.FirstBad)
	}
	// The bisect view's inputs: the history with subjects once, before any build, and the
	// range after each step (indexes into it: c1 is 0).
	if len(begun) != 1 || len(begun[0].Commits) != 8 || begun[0].Commits[5].Subject != "c6: preempt first-in first-out" ||
		begun[0].Good.SHA != shas[0] || begun[0].Dir != dir || len(begun[0].Recorded) != 0 || begun[0].Range != (Range{-1, -1, 1}) {
		t.Errorf("started: %+v", begun)
	}
	if want := []Range{{-1, 7, 3}, {-1, 7, 3}, {2, 7, 2}, {4, 7, 2}, {4, 5, 0}}; fmt.Sprint(ranges) != fmt.Sprint(want) {
		t.Errorf("ranges %v, want %v (steps %v)", ranges, want, phases)
	}
	want := map[string]Outcome{shas[8]: Bad, shas[4]: Skip, shas[3]: Good, shas[5]: Good, shas[6]: Bad}
	if len(r.Steps) != len(want) {
		t.Errorf("steps %v, want the outcomes %v", phases, want)
	}
	for i, s := range r.Steps {
		if s.N != i+1 || want[s.Commit] != s.Outcome {
			t.Errorf("step %d (n %d) %.12s %s: %s", i+1, s.N, s.Commit, s.Outcome, s.Why)
		}
		switch s.Commit {
		case shas[4]:
			if s.Campaign != "" || s.Build != nil || !strings.Contains(s.Why, "does not build") || !strings.Contains(s.Why, "cannot find value `best_cost`") {
				t.Errorf("the broken commit's step: %+v", s)
			}
		case shas[6], shas[8]:
			if s.Parity != verdict.Fail || s.Determinism != verdict.Stable || !strings.Contains(s.Why, "differs from the good commit's") {
				t.Errorf("a bad step: %+v", s)
			}
		default:
			if s.Parity != verdict.Pass || !strings.Contains(s.Why, "equals the good commit's") {
				t.Errorf("a good step: %+v", s)
			}
		}
	}
	if r.Campaign != filepath.Join(dir, "probe-"+short(shas[6])) {
		t.Errorf("good vs first bad campaign %s", r.Campaign)
	}
	if _, err := os.Stat(filepath.Join(r.Campaign, layout.FileJournal)); err != nil {
		t.Errorf("the probe campaign: %v", err)
	}
	// The diagnosis of good vs first bad, from the probe campaign's report.
	if d := r.Diagnosis; d == nil || d.Differing != 1 || d.First == nil || d.First.Pointer != "/metadata/engine_config/aggregated/preemption_mode" || len(d.Causes) == 0 {
		t.Errorf("the diagnosis: %+v", r.Diagnosis)
	}
	for _, s := range []string{"first bad commit " + shas[6], "does not build", "last good commit " + shas[5], "kvparity open " + r.Campaign,
		"diagnosis of the good commit vs the first bad one: 1 differing pointer\n", "first divergence: "} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("the text lacks %q", s)
		}
	}
	var doc struct {
		SchemaVersion int    `json:"schema_version"`
		Kind          string `json:"kind"`
		FirstBad      Commit `json:"first_bad"`
		ExitCode      int    `json:"exit_code"`
	}
	var js bytes.Buffer
	r.WriteJSON(&js)
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc.SchemaVersion != verdict.SchemaVersion || doc.Kind != documentKind || doc.FirstBad.SHA != shas[6] || doc.ExitCode != verdict.ExitFail {
		t.Errorf("the JSON document: %v\n%s", err, js.String())
	}
	// 1 good build + 4 probes that compiled + 1 that failed.
	if n := cargoBuilds(t, log); n != 6 {
		t.Errorf("%d cargo builds, want 6 (the good commit, four probes, the broken one)", n)
	}

	begun = nil
	again, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.FirstBad == nil || again.FirstBad.SHA != shas[6] || len(again.Steps) != len(r.Steps) {
		t.Errorf("resumed: %+v", again)
	}
	if len(begun) != 1 || len(begun[0].Recorded) != len(r.Steps) || begun[0].Range != (Range{4, 5, 0}) {
		t.Errorf("resumed, the view starts from the recorded steps: %+v", begun)
	}
	if n := cargoBuilds(t, log); n != 6 {
		t.Errorf("the finished bisect run again compiled: %d cargo builds", n)
	}
}

// A bisect killed mid-way resumes: what its journal recorded is neither rebuilt nor rerun,
// and it names the same commit.
func TestBisectResumesAfterAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("a bisect killed and resumed")
	}
	log := buildtest.Install(t, buildtest.Options{Fixture: fixture(t), Bench: selfExe(t)})
	repo, shas := checkoutHistory(t, "fifo-preemption")
	dir, cache := filepath.Join(t.TempDir(), "bisect"), t.TempDir()
	spec, _ := json.Marshal(childSpec{Repo: repo, Dir: dir, Cache: cache})
	child := exec.Command(selfExe(t), "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+string(spec))
	var stderr bytes.Buffer
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	// The kill comes mid-probe: two steps recorded, and the third probe's campaign has
	// finished repetitions (its journal) but no step yet.
	jpath := filepath.Join(dir, journalFile)
	inFlight := func() (string, []Step) {
		recs, _, _ := journal.Read[engine.Record](jpath, journal.SkipDamagedTail)
		_, steps, _ := fold(recs)
		if len(steps) < 2 {
			return "", steps
		}
		recorded := map[string]bool{}
		for _, s := range steps {
			recorded[s.Campaign] = true
		}
		probes, _ := filepath.Glob(filepath.Join(dir, "probe-*"))
		for _, p := range probes {
			if !recorded[filepath.Base(p)] && len(finishedRuns(t, p)) > 0 {
				return filepath.Base(p), steps
			}
		}
		return "", steps
	}
	deadline := time.Now().Add(3 * time.Minute)
	var probe string
	for {
		if probe, _ = inFlight(); probe != "" {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the child bisect ended before it was killed mid-probe: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("no probe in flight after two steps in 3 minutes\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	child.Process.Signal(syscall.SIGKILL)
	<-exited
	recs, _, err := journal.Read[engine.Record](jpath, journal.RefuseDamage)
	if err != nil {
		t.Fatal(err)
	}
	_, before, _ := fold(recs)
	buildsBefore := cargoBuilds(t, log)
	runsOf := map[string]int{}
	for _, s := range before {
		if s.Campaign != "" {
			runsOf[s.Campaign] = countRuns(t, filepath.Join(dir, s.Campaign))
		}
	}
	finished := finishedRuns(t, filepath.Join(dir, probe))
	t.Logf("killed after %d steps and %d cargo builds, in %s with %d runs finished", len(before), buildsBefore, probe, len(finished))
	// A process the killed bisect was forking holds the lock's descriptor until it execs (close
	// on exec): on a loaded machine that can outlive the kill by a moment. Wait for the lock,
	// with a deadline, as a user resuming would find it.
	for lockDeadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		unlock, err := lockFolder(dir)
		if err == nil {
			unlock()
			break
		}
		if time.Now().After(lockDeadline) {
			t.Fatalf("the killed bisect's lock is still held after 30 s: %v", err)
		}
	}

	r, err := Run(context.Background(), testOptions(repo, dir, cache, nil))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusFound || r.FirstBad.SHA != shas[6] {
		t.Fatalf("resumed: %s %s", r.Status, r.Reason)
	}
	for i, s := range before {
		if r.Steps[i].Commit != s.Commit || r.Steps[i].Outcome != s.Outcome {
			t.Errorf("recorded step %d %.12s %s became %.12s %s", i+1, s.Commit, s.Outcome, r.Steps[i].Commit, r.Steps[i].Outcome)
		}
	}
	for c, n := range runsOf {
		if m := countRuns(t, filepath.Join(dir, c)); m != n {
			t.Errorf("the recorded probe %s ran again: %d runs, %d before", c, m, n)
		}
	}
	// The interrupted probe was built before it ran: only the steps after it compile.
	if added, steps := cargoBuilds(t, log)-buildsBefore, len(r.Steps)-len(before)-1; added > steps {
		t.Errorf("the resume compiled %d times for %d new probes: a recorded or built one was rebuilt", added, steps)
	}
	// Its campaign resumed: the runs that had finished were not run again.
	starts := map[engine.RunID]int{}
	for _, rec := range campaignRecords(t, filepath.Join(dir, probe)) {
		if rec.Type == engine.RecRunStart {
			starts[rec.Run]++
		}
	}
	for _, id := range finished {
		if starts[id] != 1 {
			t.Errorf("%s: run %s finished before the kill and started %d times", probe, id, starts[id])
		}
	}
}

func campaignRecords(t *testing.T, dir string) []engine.Record {
	recs, _, err := journal.Read[engine.Record](filepath.Join(dir, layout.FileJournal), journal.SkipDamagedTail)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return recs
}

// finishedRuns are the runs of a campaign that ended without error.
func finishedRuns(t *testing.T, dir string) []engine.RunID {
	var ids []engine.RunID
	for _, r := range campaignRecords(t, dir) {
		if r.Type == engine.RecRunEnd && r.Error == "" && r.Digest != "" {
			ids = append(ids, r.Run)
		}
	}
	return ids
}

// countRuns is how many processes a campaign started (run_start records).
func countRuns(t *testing.T, dir string) int {
	n := 0
	for _, r := range campaignRecords(t, dir) {
		if r.Type == engine.RecRunStart {
			n++
		}
	}
	return n
}

func selfExe(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// The row's exception records apply: with a record explaining the preemption mode's change,
// the bad ref is good (its digest differs, every difference explained) and nothing is
// bisected; the exit status says so.
func TestBisectAppliesExceptionRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("a probe campaign of fake builds and replays")
	}
	buildtest.Install(t, buildtest.Options{Fixture: fixture(t), Bench: selfExe(t)})
	repo, _ := checkoutHistory(t, "fifo-preemption")
	records := t.TempDir()
	rec := `{"id":"fifo","differs":"preemption_mode","pointers":["/metadata/engine_config/aggregated/preemption_mode"],` +
		`"baseline":"lifo","candidate":"fifo, as the engine documents","cause":"c6 changes the preemption policy on purpose",` +
		`"regression_test":"preemption_fifo_test","impact":"none downstream","disposition":"accepted"}` + "\n"
	os.WriteFile(filepath.Join(records, layout.FileExceptions), []byte(rec), 0o600)
	o := testOptions(repo, filepath.Join(t.TempDir(), "bisect"), t.TempDir(), nil)
	o.Exceptions = records
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusNotReproduced || r.ExitCode != verdict.ExitPass || len(r.Steps) != 1 || r.FirstBad != nil {
		t.Fatalf("with the record: %s (%s), exit %d, %d steps", r.Status, r.Reason, r.ExitCode, len(r.Steps))
	}
	if s := r.Steps[0]; s.Outcome != Good || s.Semantic != verdict.PassWithSemanticExceptions || !strings.Contains(s.Why, "exception records explain every difference") {
		t.Errorf("the bad ref's step: %+v", s)
	}
	os.WriteFile(filepath.Join(records, layout.FileExceptions), []byte(`{"id":"x","pointers":[]}`+"\n"), 0o600)
	o.Dir = filepath.Join(t.TempDir(), "again")
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--exceptions "+records) {
		t.Errorf("an invalid record: %v", err)
	}
}

// --judge determinism: the commit whose bench leaks a random identifier into its report is
// the first UNSTABLE one; the broken commit is skipped as under the semantic judge.
func TestBisectJudgesDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("five probe campaigns of fake builds and replays")
	}
	buildtest.Install(t, buildtest.Options{Fixture: fixture(t), Bench: selfExe(t)})
	repo, shas := checkoutHistory(t, "leak-random-uuid")
	o := testOptions(repo, filepath.Join(t.TempDir(), "bisect"), t.TempDir(), nil)
	o.Judge = JudgeDeterminism
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusFound || r.FirstBad.SHA != shas[6] || r.LastGood.SHA != shas[5] || r.Judge != JudgeDeterminism {
		t.Fatalf("%s: %s", r.Status, r.Reason)
	}
	for _, s := range r.Steps {
		if s.Outcome == Bad && (s.Determinism != verdict.Unstable || !strings.Contains(s.Why, "UNSTABLE")) {
			t.Errorf("a bad step: %+v", s)
		}
		if s.Commit == shas[4] && s.Outcome != Skip {
			t.Errorf("the broken commit: %+v", s)
		}
	}
}

// --judge perf: the commit whose bench is 30% slower (the same report) is the first the paired
// gate FAILs against the good commit; the commits before it PASS, the broken one is skipped.
// The semantic judge would find nothing: the reports are the same bytes.
func TestBisectJudgesPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("five probe campaigns of fake builds and replays, each with a paired perf stage")
	}
	buildtest.Install(t, buildtest.Options{Fixture: fixture(t), Bench: selfExe(t)})
	repo, shas := checkoutHistory(t, "slow-30")
	o := testOptions(repo, filepath.Join(t.TempDir(), "bisect"), t.TempDir(), nil)
	o.Judge = JudgePerf
	o.Row.Perf.Pairs, o.Row.Perf.WarmupsPerArm = 20, 1
	// The fake replays take milliseconds: the competing-load guard would judge a busy test
	// machine, not the commits.
	o.Campaign.Perf.CompetingLoadFraction = 1
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusFound || r.FirstBad.SHA != shas[6] || r.LastGood.SHA != shas[5] || r.Judge != JudgePerf {
		t.Fatalf("%s: %s", r.Status, r.Reason)
	}
	for _, s := range r.Steps {
		switch {
		case s.Commit == shas[4]:
			if s.Outcome != Skip || !strings.Contains(s.Why, "does not build") {
				t.Errorf("the broken commit: %+v", s)
			}
		case s.Outcome == Bad:
			if s.Performance != verdict.Fail || s.Parity != verdict.Pass || !strings.Contains(s.Why, "paired gate FAILs") {
				t.Errorf("a bad step: %+v", s)
			}
		case s.Outcome == Good:
			if s.Performance != verdict.Pass {
				t.Errorf("a good step: %+v", s)
			}
		default:
			t.Errorf("a step neither good nor bad nor the broken commit: %+v", s)
		}
	}
	// Each probe's campaign ran its perf stage to a result.
	if _, err := os.Stat(filepath.Join(r.Campaign, "perf", "result.json")); err != nil {
		t.Errorf("the first bad commit's probe has no perf result: %v", err)
	}
}

// A desk row's builds are not the release artifact: bisect refuses to judge their speed, before
// it builds anything.
func TestBisectRefusesToTimeDeskBuilds(t *testing.T) {
	for _, judge := range []Judge{JudgePerf, JudgeInstructions} {
		o := testOptions(t.TempDir(), filepath.Join(t.TempDir(), "bisect"), t.TempDir(), nil)
		o.Row.Baseline.Profile, o.Row.Candidate.Profile = build.ProfileDesk, build.ProfileDesk
		o.Judge = judge
		if _, err := Run(context.Background(), o); err == nil || !errors.Is(err, engine.ErrDeskBuild) || !strings.Contains(err.Error(), "--judge "+string(judge)) {
			t.Errorf("--judge %s on a desk row: %v", judge, err)
		}
	}
}
