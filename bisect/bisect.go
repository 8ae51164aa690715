package bisect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"kvparity/engine"
	"kvparity/engine/instrument"
	"kvparity/engine/journal"
	"kvparity/exceptions"
)

// A Judge is what makes a commit bad.
type Judge string

const (
	// JudgeSemantic: the commit's canonical digest differs from the good commit's while both
	// are STABLE, and exception records do not explain every difference.
	JudgeSemantic Judge = "semantic"
	// JudgeDeterminism: the commit is UNSTABLE (perturbed repetitions included).
	JudgeDeterminism Judge = "determinism"
	// JudgePerf: the paired gate FAILs against the good commit.
	JudgePerf Judge = "perf"
	// JudgeInstructions: the commit's timed region executes more instructions than the good
	// commit's by more than the row's instructions_threshold (one callgrind count per arm, no
	// pairs: deterministic, so usable on a busy machine).
	JudgeInstructions Judge = "instructions"
)

// ParseJudge reads --judge.
func ParseJudge(s string) (Judge, error) {
	switch j := Judge(s); j {
	case JudgeSemantic, JudgeDeterminism, JudgePerf, JudgeInstructions:
		return j, nil
	}
	return "", fmt.Errorf("--judge %q: use semantic, determinism, perf or instructions", s)
}

// Options are one bisect.
type Options struct {
	Row     *engine.Row // its candidate is a git: checkout (relative paths already resolved)
	RowPath string      // the row file ("" for a row built in code)
	Good    string      // a ref of the candidate's checkout that is good
	Bad     string      // a ref after it (on its first-parent line) that is bad
	Judge   Judge       // "" is JudgeSemantic
	// Dir is the bisect folder ("" = campaigns/<row>-bisect-<good12>-<bad12>, so the same
	// command run again resumes it).
	Dir string
	// Exceptions is a campaign folder whose exceptions.jsonl applies to every probe ("": none).
	Exceptions string
	// Campaign is every probe campaign's options (CPUs, build cache, warnings, test hooks);
	// Dir, RowPath and Context are each probe's own.
	Campaign engine.Options
	// Progress receives the probes' phases and their campaigns' events; may be nil.
	Progress func(Progress)
}

// Phases of a bisect and of its probes.
const (
	PhaseStarted  = "started"  // Started set, once, before the good commit is built
	PhaseBuilding = "building" // Build set while a build reports
	PhaseRunning  = "running"  // Event set for each of the probe campaign's events
	PhaseJudged   = "judged"   // Step and Range set
)

// A Progress is one step of a bisect or of a probe, for the headless printer and the bisect
// view. Commit is the probed commit (the good one while its baseline builds).
type Progress struct {
	Commit  string
	Phase   string
	Started *Started
	Build   *engine.BuildProgress
	Event   engine.Event
	Step    *Step
	Range   *Range
}

// Started is what a bisect is over, sent before anything is built: the history with each
// commit's subject and date, and the steps a resumed bisect had recorded.
type Started struct {
	Row      string
	Judge    Judge
	Repo     string
	Dir      string
	Good     Commit
	Commits  []Commit // the first-parent history after Good, oldest first; Bad is the last
	Recorded []Step   // judged before this run (a resume), in order
	Range    Range
}

// Range is where the first bad commit can still be, as indexes into Started.Commits.
type Range struct {
	LastGood int // the newest commit judged good before FirstBad; -1 is the good ref
	FirstBad int // the oldest commit judged bad; -1 while none is
	// Left is how many more probes the search needs at most if none is skipped: ⌈log₂(n+1)⌉
	// for the n untried commits between LastGood and FirstBad.
	Left int
}

// rangeOf is the search's range over commits after the judged steps.
func rangeOf(commits []string, judged map[string]Step) Range {
	lo, hi, skipped := bounds(commits, judged)
	if hi < 0 {
		left := 1 // the bad ref is probed first
		if _, ok := judged[commits[len(commits)-1]]; ok {
			left = 0 // and was not bad: nothing to search
		}
		return Range{LastGood: lo, FirstBad: hi, Left: left}
	}
	n := hi - lo - 1 - len(skipped)
	return Range{LastGood: lo, FirstBad: hi, Left: bits.Len(uint(n))}
}

type bisector struct {
	o          Options
	dir        string
	repo       string
	cand       engine.ArmSpec
	good, bad  string
	exceptions []byte
}

func (b *bisector) say(p Progress) {
	if b.o.Progress != nil {
		b.o.Progress(p)
	}
}

func (b *bisector) buildProgress(sha string) func(engine.BuildProgress) {
	return func(p engine.BuildProgress) { b.say(Progress{Commit: sha, Phase: PhaseBuilding, Build: &p}) }
}

// rowFor is the row of commit sha's probe: the candidate built from sha, the baseline from the
// good commit the same way (features, variant), everything else the row's.
func (b *bisector) rowFor(sha string) *engine.Row {
	r := *b.o.Row
	at := func(commit string) engine.ArmSpec {
		a := b.cand
		a.Source, a.Revision = "git:"+b.repo+"@"+commit, ""
		return a
	}
	r.Baseline, r.Candidate = at(b.good), at(sha)
	return &r
}

// Run bisects (or resumes the bisect in o.Dir) and returns its result. An error is a bisect
// that could not run or was interrupted (recorded steps are kept; run it again to resume).
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Row == nil {
		return nil, errors.New("bisect: no row")
	}
	if o.Judge == "" {
		o.Judge = JudgeSemantic
	}
	if o.Row.Desk() && (o.Judge == JudgePerf || o.Judge == JudgeInstructions) {
		return nil, fmt.Errorf("--judge %s: %w", o.Judge, engine.ErrDeskBuild)
	}
	if o.Judge == JudgeInstructions {
		if _, err := instrument.FindValgrind(ctx); err != nil {
			return nil, fmt.Errorf("--judge instructions: %w", err)
		}
	}
	b := &bisector{o: o, cand: o.Row.Candidate}
	src, err := engine.ParseSource(b.cand.Source)
	if err != nil || src.Kind != "git" {
		return nil, fmt.Errorf("row %s: bisect needs a candidate source = \"git:PATH@REF\" (a checkout's commit), not %q", o.Row.Name, b.cand.Source)
	}
	if b.repo, err = filepath.Abs(src.Repo); err != nil {
		return nil, err
	}
	if b.good, err = resolve(ctx, b.repo, o.Good); err != nil {
		return nil, fmt.Errorf("--good: %w", err)
	}
	if b.bad, err = resolve(ctx, b.repo, o.Bad); err != nil {
		return nil, fmt.Errorf("--bad: %w", err)
	}
	commits, err := history(ctx, b.repo, b.good, b.bad)
	if err != nil {
		return nil, err
	}
	if b.exceptions, err = readExceptions(o.Exceptions); err != nil {
		return nil, err
	}
	b.dir = o.Dir
	if b.dir == "" {
		b.dir = filepath.Join("campaigns", fmt.Sprintf("%s-bisect-%s-%s", o.Row.Name, short(b.good), short(b.bad)))
	}
	if b.dir, err = filepath.Abs(b.dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return nil, fmt.Errorf("bisect folder: %w", err)
	}
	unlock, err := lockFolder(b.dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	jr, err := journal.Open[engine.Record](filepath.Join(b.dir, journalFile), o.Campaign.Warn)
	if err != nil {
		return nil, err
	}
	defer jr.Close()
	encoded, err := o.Row.Encode()
	if err != nil {
		return nil, fmt.Errorf("row %s: %w", o.Row.Name, err)
	}
	sum := sha256.Sum256(encoded)
	want := founding{Row: o.Row.Name, RowSHA256: hex.EncodeToString(sum[:]), Repo: b.repo, Judge: o.Judge, Good: b.good, Bad: b.bad, Commits: commits}
	recorded, steps, err := fold(jr.Records())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(b.dir, journalFile), err)
	}
	if recorded == nil {
		if _, err := jr.Append(engine.Record{Type: recBisect, Note: fmt.Sprintf("%s %s..%s, %d commits, judge %s", o.Row.Name, short(b.good), short(b.bad), len(commits), o.Judge), Data: dataOf(want)}); err != nil {
			return nil, err
		}
	} else if why := want.sameAs(*recorded); why != "" {
		return nil, fmt.Errorf("bisect folder %s holds another bisect: %s; give another --dir", b.dir, why)
	} else {
		commits = recorded.Commits // the history as it was when the bisect started
	}

	judged := map[string]Step{}
	for _, s := range steps {
		judged[s.Commit] = s
	}
	if o.Progress != nil {
		started := &Started{Row: o.Row.Name, Judge: o.Judge, Repo: b.repo, Dir: b.dir, Recorded: slices.Clone(steps), Range: rangeOf(commits, judged)}
		if started.Good, err = describe(ctx, b.repo, b.good); err != nil {
			started.Good = Commit{SHA: b.good}
		}
		started.Commits = describeAll(ctx, b.repo, b.good, commits)
		b.say(Progress{Commit: b.good, Phase: PhaseStarted, Started: started})
	}

	// The good commit is every probe's baseline: it must build, or nothing can be judged.
	if _, err := engine.BuildArms(ctx, b.rowFor(b.good), o.Campaign.BuildCache, b.buildProgress(b.good)); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if stopped(err) {
			return nil, fmt.Errorf("the build of --good %s was stopped (run the bisect again to resume): %w", short(b.good), err)
		}
		return nil, fmt.Errorf("--good %s does not build, and it is every probe's baseline: %w", short(b.good), err)
	}

	record := func(sha string) (Step, error) {
		st, err := b.probe(ctx, sha)
		if err != nil {
			return st, err
		}
		st.N = len(steps) + 1
		if _, err := jr.Append(engine.Record{Type: recStep, Note: fmt.Sprintf("%s %s: %s", short(sha), st.Outcome, st.Why), Data: dataOf(st)}); err != nil {
			return st, err
		}
		steps = append(steps, st)
		judged[sha] = st
		r := rangeOf(commits, judged)
		b.say(Progress{Commit: sha, Phase: PhaseJudged, Step: &st, Range: &r})
		return st, nil
	}
	// The bad commit first: a bisect of a range whose end is not bad would name nothing.
	if _, ok := judged[b.bad]; !ok {
		if _, err := record(b.bad); err != nil {
			return nil, err
		}
	}
	for judged[b.bad].Outcome == Bad {
		next := pick(bounds(commits, judged))
		if next < 0 {
			break
		}
		if _, err := record(commits[next]); err != nil {
			return nil, err
		}
	}
	return b.result(ctx, commits, steps, judged)
}

// bounds folds the judged commits over the history: lo the index of the last good commit
// before the first bad one (-1: the good ref), hi that first bad one (-1: none judged bad),
// and which commits between them were skipped.
func bounds(commits []string, judged map[string]Step) (lo, hi int, skipped map[int]bool) {
	lo, hi = -1, -1
	for i, c := range commits {
		if judged[c].Outcome == Bad {
			hi = i
			break
		}
	}
	end := len(commits)
	if hi >= 0 {
		end = hi
	}
	for i := range end {
		if judged[commits[i]].Outcome == Good {
			lo = i
		}
	}
	skipped = map[int]bool{}
	for i := lo + 1; i < end; i++ {
		if judged[commits[i]].Outcome == Skip {
			skipped[i] = true
		}
	}
	return lo, hi, skipped
}

// pick is the commit to probe next between lo and hi (exclusive): the one nearest the middle
// that was not skipped, or -1 when none is left.
func pick(lo, hi int, skipped map[int]bool) int {
	mid := lo + (hi-lo)/2
	for d := 0; d < hi-lo; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > lo && i < hi && !skipped[i] {
				return i
			}
		}
	}
	return -1
}

// lockFolder holds the bisect folder for this process: a second bisect in it waits for none
// and is refused.
func lockFolder(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "bisect.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("bisect folder %s is in use by another kvparity bisect (%v)", dir, err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

var loadExceptions = exceptions.LoadExceptions
