package bisect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kvparity/driver"
	"kvparity/engine"
	"kvparity/engine/determinism"
	"kvparity/engine/instructions"
	"kvparity/engine/instrument"
	"kvparity/engine/perf"
	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// An Outcome is how a probed commit was judged.
type Outcome string

const (
	Good Outcome = "good"
	Bad  Outcome = "bad"
	// Skip: the commit could not be judged (it does not build, or its verdict is
	// INCONCLUSIVE, BLOCKED or undecided); the search goes on around it, as git bisect skip.
	Skip Outcome = "skip"
)

// A Step is one probed commit: how it was judged and why, its build and its campaign.
type Step struct {
	N       int     `json:"step"`
	Commit  string  `json:"commit"`
	Subject string  `json:"subject"`
	Outcome Outcome `json:"outcome"`
	Why     string  `json:"why"`
	// Campaign is the probe's campaign folder, relative to the bisect's ("" when the commit
	// did not build: no campaign was created).
	Campaign string `json:"campaign,omitempty"`
	// Verdicts are the probe campaign's words the judgment read: semantic, parity, the
	// candidate's determinism and performance.
	Semantic    verdict.Word `json:"semantic,omitempty"`
	Parity      verdict.Word `json:"parity,omitempty"`
	Determinism verdict.Word `json:"determinism,omitempty"`
	Performance verdict.Word `json:"performance,omitempty"`
	// Instructions is the instruction judge's count of both arms (nil for other judges).
	Instructions *instrument.InstructionResult `json:"instructions,omitempty"`
	Build        *StepBuild                    `json:"build,omitempty"`
	Seconds      float64                       `json:"seconds"` // the whole probe: build, campaign, judgment
}

// StepBuild is how the probed commit's candidate was built.
type StepBuild struct {
	Seconds      float64 `json:"seconds"`
	Cached       bool    `json:"cached,omitempty"`
	Incremental  bool    `json:"incremental,omitempty"`
	Units        int     `json:"compiled_units"`
	ChangedFiles int     `json:"changed_files,omitempty"`
}

// probeDir names a commit's probe campaign in the bisect folder.
func probeDir(sha string) string { return "probe-" + short(sha) }

// probe builds commit sha as the candidate against the good commit, runs its campaign and
// judges it. An error is the bisect's own failure (an interrupt, a campaign that cannot be
// created); a commit that does not build is a skipped step.
func (b *bisector) probe(ctx context.Context, sha string) (Step, error) {
	start := time.Now()
	st := Step{Commit: sha}
	if c, err := describe(ctx, b.repo, sha); err == nil {
		st.Subject = c.Subject
	}
	b.say(Progress{Commit: sha, Phase: PhaseBuilding})
	row := b.rowFor(sha)
	builds, err := engine.BuildArms(ctx, row, b.o.Campaign.BuildCache, b.buildProgress(sha))
	if ctx.Err() != nil {
		return st, context.Cause(ctx)
	}
	if err != nil && stopped(err) {
		return st, fmt.Errorf("probe %s: the build was stopped, not judged (run the bisect again to resume): %w", short(sha), err)
	}
	if err != nil {
		st.Outcome, st.Why = Skip, "does not build, not judged: "+buildError(err)
		if strings.Contains(err.Error(), "does not have the expected shape") { // build/extension.go's refusal
			st.Why = "the timing extension refuses its shape, not judged: " + buildError(err)
		}
		st.Seconds = time.Since(start).Seconds()
		return st, nil
	}
	if info, ok := builds[engine.Candidate]; ok {
		st.Build = &StepBuild{Seconds: info.BuildSeconds, Cached: info.Cached, Incremental: info.Incremental, Units: info.Units, ChangedFiles: info.ChangedFiles}
	}
	st.Campaign = probeDir(sha)
	dir := filepath.Join(b.dir, st.Campaign)
	instr, failure, v, err := b.runCampaign(ctx, sha, row, dir)
	if err != nil {
		return st, err
	}
	st.Semantic, st.Parity, st.Determinism, st.Performance = v.Semantic.Verdict, v.Parity.Verdict, v.Determinism.Candidate.Verdict, v.Performance.Verdict
	if b.o.Judge == JudgeInstructions {
		st.Instructions = instr
		st.Outcome, st.Why = judgeInstructions(instr, failure, v)
	} else {
		st.Outcome, st.Why = judge(b.o.Judge, v)
	}
	st.Seconds = time.Since(start).Seconds()
	return st, nil
}

// runCampaign creates (or resumes) a probe's campaign and runs what the judge reads (the
// shared step, driver.Run): the determinism stage (and parity), then for the perf judge the
// performance stage; for the instruction judge only one counted run per arm, whose result it
// returns. The verdicts are the probe campaign's, as its report states them.
func (b *bisector) runCampaign(ctx context.Context, sha string, row *engine.Row, dir string) (*instrument.InstructionResult, string, verdict.Verdicts, error) {
	opts := b.o.Campaign
	opts.Dir, opts.RowPath, opts.Context = dir, b.o.RowPath, ctx
	opts.BuildProgress = b.buildProgress(sha)
	var instr *instrument.InstructionResult
	var failure string
	k := driver.Campaign{Row: row, Options: opts, Pump: func(events <-chan engine.Event) {
		for ev := range events {
			b.say(Progress{Commit: sha, Phase: PhaseRunning, Event: ev})
		}
	}}
	k.Stages = func(c *engine.Campaign) error {
		if b.exceptions != nil {
			if err := atomicfile.WriteIn(dir, filepath.Join(dir, layout.FileExceptions), b.exceptions, 0o600); err != nil {
				return fmt.Errorf("probe %s: the exception records: %w", short(sha), err)
			}
		}
		var err error
		instr, failure, err = b.runStages(ctx, sha, c)
		return err
	}
	_, v, err := driver.Run(ctx, k)
	var de *driver.Error
	if errors.As(err, &de) {
		switch {
		case de.Step == driver.StepAssess:
			return nil, "", v, fmt.Errorf("probe %s: %w", dir, de.Err)
		case ctx.Err() != nil:
			return nil, "", v, context.Cause(ctx)
		}
		return nil, "", v, fmt.Errorf("probe %s: %w", short(sha), de.Err)
	}
	return instr, failure, v, err
}

// runStages runs on the probe's open campaign what the judge reads and has not been decided.
func (b *bisector) runStages(ctx context.Context, sha string, c *engine.Campaign) (*instrument.InstructionResult, string, error) {
	wait := func() error { return c.WaitContext(ctx) } // finished runs are kept: the probe resumes
	if b.o.Judge == JudgeInstructions {
		if c.History().Instructions() == nil {
			b.say(Progress{Commit: sha, Phase: PhaseRunning})
			if err := instructions.Start(c.Host(), 1); err != nil {
				return nil, "", fmt.Errorf("probe %s: instructions: %w", short(sha), err)
			}
			if err := wait(); err != nil {
				return nil, "", err
			}
		}
		h := c.History()
		return h.Instructions(), h.InstructionsFailure(), nil
	}
	h := c.History()
	if !h.ArmResult(engine.Baseline).Verdict.Decided() || !h.ArmResult(engine.Candidate).Verdict.Decided() || !h.Parity().Verdict.Decided() {
		b.say(Progress{Commit: sha, Phase: PhaseRunning})
		if err := determinism.Start(c.Host()); err != nil {
			return nil, "", fmt.Errorf("probe %s: %w", short(sha), err)
		}
		if err := wait(); err != nil {
			return nil, "", err
		}
	}
	if b.o.Judge != JudgePerf {
		return nil, "", nil
	}
	h = c.History()
	if h.Perf().Result != nil || h.ArmResult(engine.Baseline).Verdict != verdict.Stable || h.ArmResult(engine.Candidate).Verdict != verdict.Stable {
		return nil, "", nil // decided, or refused: the judgment says why from the verdicts
	}
	if err := perf.Start(c.Host()); err != nil {
		return nil, "", fmt.Errorf("probe %s: perf: %w", short(sha), err)
	}
	return nil, "", wait()
}

// judge reads a probe's verdicts as the judge asks. What is not decided is skipped and said
// so, never guessed.
func judge(j Judge, v verdict.Verdicts) (Outcome, string) {
	base, cand := v.Determinism.Baseline, v.Determinism.Candidate
	switch j {
	case JudgeDeterminism:
		switch cand.Verdict {
		case verdict.Unstable:
			return Bad, "the commit is UNSTABLE: " + cand.Reason
		case verdict.Stable:
			return Good, "the commit is STABLE: " + cand.Reason
		}
		return Skip, fmt.Sprintf("its determinism is %s (%s): not judged", cand.Verdict, orNone(cand.Reason))
	case JudgePerf:
		switch p := v.Performance; p.Verdict {
		case verdict.Fail:
			return Bad, "the paired gate FAILs against the good commit: " + p.Reason
		case verdict.Pass:
			return Good, "the paired gate PASSes against the good commit: " + p.Reason
		default:
			return Skip, fmt.Sprintf("performance is %s (%s): never guessed; skipped (remove its probe folder to retry it)", p.Verdict, orNone(p.Reason))
		}
	}
	if base.Verdict != verdict.Stable {
		return Skip, fmt.Sprintf("the good commit is %s (%s): its digest is no reference, not judged", base.Verdict, orNone(base.Reason))
	}
	if cand.Verdict != verdict.Stable {
		return Skip, fmt.Sprintf("the commit is %s (%s): the semantic judge needs a STABLE arm (--judge determinism bisects that), not judged", cand.Verdict, orNone(cand.Reason))
	}
	switch v.Parity.Verdict {
	case verdict.Pass:
		return Good, "its canonical digest equals the good commit's (" + v.Parity.Reason + ")"
	case verdict.Fail:
		if v.Semantic.Verdict == verdict.PassWithSemanticExceptions {
			return Good, "its digest differs, and exception records explain every difference: " + v.Semantic.Reason
		}
		return Bad, "its canonical digest differs from the good commit's: " + v.Semantic.Reason
	}
	return Skip, fmt.Sprintf("byte parity is %s (%s): not judged", v.Parity.Verdict, orNone(v.Parity.Reason))
}

// judgeInstructions reads the instruction judge's count: bad above the row's threshold, good
// at or below it; a probe whose arms were not counted is skipped, never guessed.
func judgeInstructions(r *instrument.InstructionResult, failure string, v verdict.Verdicts) (Outcome, string) {
	if r == nil {
		why := "no instruction count was recorded"
		if failure != "" {
			why += " (" + failure + ")"
		} else if len(v.Blocked) > 0 {
			why += " (" + strings.Join(v.Blocked, "; ") + ")"
		}
		return Skip, why + ": not judged"
	}
	if r.Explain {
		return Bad, fmt.Sprintf("the timed region executes %.2f%% more instructions than the good commit's (ratio %.4f > %.2f): %s", 100*(r.Ratio-1), r.Ratio, r.Threshold, r.Reason)
	}
	return Good, fmt.Sprintf("instruction count ratio %.4f ≤ %.2f against the good commit: %s", r.Ratio, r.Threshold, r.Reason)
}

// readExceptions is the exceptions.jsonl of a campaign folder, validated, or nil when none.
func readExceptions(campaign string) ([]byte, error) {
	if campaign == "" {
		return nil, nil
	}
	if _, err := loadExceptions(campaign); err != nil {
		return nil, fmt.Errorf("--exceptions %s: %w", campaign, err)
	}
	b, err := os.ReadFile(filepath.Join(campaign, layout.FileExceptions))
	if err != nil {
		return nil, fmt.Errorf("--exceptions %s: %w", campaign, err)
	}
	return b, nil
}

// stopped says a build failed because a tool was killed by a signal from outside (the
// machine, a user): no verdict on the commit, so it is not skipped but left to a resume. A
// compiler that crashes is reported by cargo, which exits with its own status.
func stopped(err error) bool {
	first, _, _ := strings.Cut(err.Error(), "\n")
	return strings.Contains(first, ": signal: ")
}

// buildError is what a failed build said: the compiler's errors (from its first "error" line
// on; cargo's progress before it is dropped) when there are some, then how the command ended;
// the command and source are the step's already.
func buildError(err error) string {
	first, rest, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	if rest == "" {
		return condense(first)
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "error") {
			lines = lines[i:]
			break
		}
	}
	what := first
	if i := strings.LastIndex(first, ": "); i >= 0 {
		what = first[i+2:]
	}
	return condense(strings.Join(lines, "\n")) + " (" + what + ")"
}

// condense puts a build error on one line (the compiler's lines after the command's), short
// enough for a step's reason; the build's own output keeps the whole of it.
func condense(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(s), "\n", " · ")), " ")
	if r := []rune(s); len(r) > 400 {
		s = string(r[:400]) + "…"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "no reason recorded"
	}
	return s
}
