package fixturestage

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"kvparity/engine"
	armkind "kvparity/engine/arm"
	"kvparity/engine/fixtures"
	"kvparity/internal/layout"
)

// Start runs the row's fixtures on both arms' current artifacts (those already judged on them
// are not rerun).
func Start(c engine.StageHost) error {
	if err := c.Refusal(); err != nil {
		return err
	}
	if len(c.Row().Fixtures.Names) == 0 {
		return fmt.Errorf("the row declares no fixtures ([fixtures] names)")
	}
	return c.Start(engine.StageFixtures, func(ctx context.Context) bool {
		if err := c.PrepareArms(); err != nil {
			c.Block(engine.StageFixtures, err.Error())
			return false
		}
		h := &fixtureHost{c: c, help: map[string]string{}}
		cancelled, err := fixtures.Run(ctx, h, c.Row().Fixtures.Names, []string{string(engine.Baseline), string(engine.Candidate)})
		if err != nil {
			c.Block(engine.StageFixtures, err.Error())
		}
		return cancelled
	})
}

// fixtureHost is the campaign as stage 6 sees it (fixtures.Host).
type fixtureHost struct {
	c    engine.StageHost
	help map[string]string // per arm, asked once per stage
}

// binaryName names an arm's artifact for people, as its kind does: builtin (and its variant),
// or the crate, version and source it was built from, or the given binary's path.
func binaryName(c engine.StageHost, arm engine.Arm) string {
	p := c.Pinned(arm)
	return c.Kind(arm).Label(armkind.Pinned{Source: p.Source, Variant: p.Variant, Build: p.Build})
}

func (h *fixtureHost) Help(ctx context.Context, arm string) (string, string, error) {
	p := h.c.Pinned(engine.Arm(arm))
	name := binaryName(h.c, engine.Arm(arm))
	if s, ok := h.help[arm]; ok {
		return s, name, nil
	}
	args := h.c.Kind(engine.Arm(arm)).HelpArgv()
	hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(hctx, filepath.Join(h.c.Dir(), p.Path), args...).CombinedOutput()
	if err != nil && len(out) == 0 {
		// No help at all: every fixture is refused with the reason, not the stage.
		out = []byte(fmt.Sprintf("(%s --help failed: %v)", p.Path, err))
	}
	h.help[arm] = string(out)
	return string(out), name, nil
}

func (h *fixtureHost) Done(name, arm string) bool {
	return h.c.History().FixtureJudged(name, engine.Arm(arm), h.c.Pinned(engine.Arm(arm)).Gen)
}

func (h *fixtureHost) Record(r fixtures.Result) error {
	c := h.c
	r.Gen = c.Pinned(engine.Arm(r.Arm)).Gen
	if err := c.Append(engine.Record{Type: engine.RecFixture, Stage: engine.StageFixtures, Arm: engine.Arm(r.Arm), Gen: r.Gen, Data: engine.MarshalData(r)}); err != nil {
		return err
	}
	line := fmt.Sprintf("fixture %s (%s): %s %s", r.Fixture, r.Arm, r.Verdict, r.Status)
	if r.Reason != "" {
		line += ": " + r.Reason
	}
	c.Emit(engine.LogLine{Run: engine.RunID("fixture/" + r.Fixture), Line: line})
	c.Emit(engine.FixtureDone{Result: r})
	return nil
}

// Run runs the fixture on arm's pinned binary in its own run folder (the trace written there
// first), canonical mode, one iteration, pinned to the campaign's last CPU.
func (h *fixtureHost) Run(ctx context.Context, armName string, f *fixtures.Fixture) (fixtures.Outcome, error) {
	c, arm := h.c, engine.Arm(armName)
	p := c.Pinned(arm)
	attempt := 1
	for _, r := range c.History().Runs() { // a killed kvparity's attempt is rerun as the next one
		if s := r.Start; s != nil && s.Kind == engine.KindFixture && s.Arm == arm && s.Gen == p.Gen && s.Note == f.Name {
			attempt = max(attempt, s.Attempt+1)
		}
	}
	id := "fixture/" + f.Name + "/" + string(arm)
	if p.Gen > 1 {
		id += "-g" + strconv.Itoa(p.Gen)
	}
	if attempt > 1 {
		id += "-a" + strconv.Itoa(attempt)
	}
	runDir := filepath.Join(c.Dir(), layout.DirRuns, filepath.FromSlash(id))
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return fixtures.Outcome{}, err
	}
	trace := filepath.Join(runDir, "trace.jsonl")
	if err := os.WriteFile(trace, f.Trace(), 0o644); err != nil {
		return fixtures.Outcome{}, err
	}
	// Canonical mode only: no timings and no progress side channel; the arm's stand-in
	// revision (variant) as in every run of it.
	canonical := c.Kind(arm).Outputs(runDir).Canonical
	process := armkind.Process{Trace: trace, Args: f.Args(), Outputs: armkind.Outputs{Canonical: canonical}, Variant: p.Variant}
	spec := c.ProcessSpec(engine.RunID(id), arm, engine.KindFixture, 1, attempt, process)
	spec.Dir, spec.Timeout = runDir, c.Row().Determinism.Timeout.Duration
	cpus := c.CPUs()
	spec.CPUs = cpus[len(cpus)-1:]
	base := engine.Record{Run: engine.RunID(id), Arm: arm, Kind: engine.KindFixture, Index: 1, Attempt: attempt, Gen: p.Gen, Note: f.Name}
	res, err := c.RecordedRun(ctx, spec, base, nil)
	if err != nil {
		return fixtures.Outcome{}, err
	}
	if res.Cancelled || ctx.Err() != nil {
		return fixtures.Outcome{Cancelled: true}, nil
	}
	report, _ := filepath.Rel(c.Dir(), canonical)
	out := fixtures.Outcome{Run: id, Report: filepath.ToSlash(report)}
	end := engine.EndRecord(base, res)
	if res.Err != nil {
		out.Failure = fmt.Sprintf("%s: %v", id, res.Err)
	} else if line, rerr := firstLine(canonical); rerr != nil {
		out.Failure = fmt.Sprintf("%s: no canonical record: %v", id, rerr)
	} else {
		out.Canonical = line
	}
	end.Error = out.Failure
	if err := c.Append(end); err != nil {
		return fixtures.Outcome{}, err
	}
	c.EmitEnd(end, nil)
	return out, nil
}

// firstLine is a canonical report file's first record.
func firstLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	line, err := r.ReadBytes('\n')
	if len(bytes.TrimSpace(line)) == 0 {
		if err == nil {
			err = fmt.Errorf("%s: empty first line", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return line, nil
}
