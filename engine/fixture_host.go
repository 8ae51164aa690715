package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	armkind "kvparity/engine/arm"
	"kvparity/engine/fixtures"
	"kvparity/internal/layout"
)

// Protocol stage 6 (engine/fixtures): the row's [fixtures] run on each arm's pinned binary,
// one process each, their lifecycles asserted. This file is the stage's host: it runs a
// fixture's process like any run of the campaign (journaled run_start/run_end of kind
// "fixture", in runs/fixture/...), and journals each result as a fixture_result record that
// History.Fixtures, the summary (--json) and the report read. A fixture result never changes
// the campaign's verdicts; `kvparity run --stage fixtures` exits with the fixtures' worst.

// StageFixtures is stage 6's stage (events and journal).
const StageFixtures Stage = "fixtures"

// KindFixture is one fixture's replay.
const KindFixture RunKind = "fixture"

// recFixture records one fixture's result on one arm's artifact (Data: fixtures.Result).
const recFixture RecordType = "fixture_result"

// FixtureDone: a fixture was judged on one arm (live, or replayed on open).
type FixtureDone struct{ Result fixtures.Result }

func (FixtureDone) event() {}

// fixtureState is the journal's view of the stage: the latest result per fixture, arm and
// generation.
type fixtureState struct {
	results map[fixtureKey]fixtures.Result
}

type fixtureKey struct {
	name string
	arm  Arm
	gen  int
}

func fixtureResults(h *History) *fixtureState {
	s := kindState[fixtureState](h, recFixture)
	if s.results == nil {
		s.results = map[fixtureKey]fixtures.Result{}
	}
	return s
}

func init() {
	defineRecord(recFixture, func(h *History, r *Record, d *fixtures.Result) {
		fixtureResults(h).results[fixtureKey{d.Fixture, Arm(d.Arm), d.Gen}] = *d
	}, func(c *Campaign, h *History, r *Record, d *fixtures.Result) {
		c.emit(FixtureDone{Result: *d})
	})
}

// Fixtures are the results of the row's fixtures on the current artifacts, in the row's order
// and baseline first (nil when the row declares none or none ran yet).
func (h *History) Fixtures() []fixtures.Result {
	if h.row == nil || len(h.row.Fixtures.Names) == 0 {
		return nil
	}
	st := fixtureResults(h)
	var out []fixtures.Result
	for _, name := range h.row.Fixtures.Names {
		for _, arm := range []Arm{Baseline, Candidate} {
			if r, ok := st.results[fixtureKey{name, arm, max(h.Current[arm].Gen, 1)}]; ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// StartFixtures runs the row's fixtures on both arms' current artifacts (those already judged
// on them are not rerun).
func (c *Campaign) StartFixtures() error {
	if err := c.refusal(); err != nil {
		return err
	}
	if len(c.row.Fixtures.Names) == 0 {
		return fmt.Errorf("the row declares no fixtures ([fixtures] names)")
	}
	return c.startStage(StageFixtures, func(ctx context.Context) bool {
		if err := c.prepareArms(); err != nil {
			c.block(StageFixtures, err.Error())
			return false
		}
		h := &fixtureHost{c: c, help: map[string]string{}}
		cancelled, err := fixtures.Run(ctx, h, c.row.Fixtures.Names, []string{string(Baseline), string(Candidate)})
		if err != nil {
			c.block(StageFixtures, err.Error())
		}
		return cancelled
	})
}

// fixtureHost is the campaign as stage 6 sees it (fixtures.Host).
type fixtureHost struct {
	c    *Campaign
	help map[string]string // per arm, asked once per stage
}

// binaryName names an arm's artifact for people, as its kind does: builtin (and its variant),
// or the crate, version and source it was built from, or the given binary's path.
func (c *Campaign) binaryName(arm Arm) string {
	p := c.Pinned(arm)
	return c.kind(arm).Label(armkind.Pinned{Source: p.Source, Variant: p.Variant, Build: p.Build})
}

func (h *fixtureHost) Help(ctx context.Context, arm string) (string, string, error) {
	p := h.c.Pinned(Arm(arm))
	name := h.c.binaryName(Arm(arm))
	if s, ok := h.help[arm]; ok {
		return s, name, nil
	}
	args := h.c.kind(Arm(arm)).HelpArgv()
	hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(hctx, filepath.Join(h.c.dir, p.Path), args...).CombinedOutput()
	if err != nil && len(out) == 0 {
		// No help at all: every fixture is refused with the reason, not the stage.
		out = []byte(fmt.Sprintf("(%s --help failed: %v)", p.Path, err))
	}
	h.help[arm] = string(out)
	return string(out), name, nil
}

func (h *fixtureHost) Done(name, arm string) bool {
	_, ok := fixtureResults(h.c.history()).results[fixtureKey{name, Arm(arm), h.c.Pinned(Arm(arm)).Gen}]
	return ok
}

func (h *fixtureHost) Record(r fixtures.Result) error {
	c := h.c
	r.Gen = c.Pinned(Arm(r.Arm)).Gen
	if _, err := c.journal.Append(Record{Type: recFixture, Stage: StageFixtures, Arm: Arm(r.Arm), Gen: r.Gen, Data: marshalData(r)}); err != nil {
		return err
	}
	line := fmt.Sprintf("fixture %s (%s): %s %s", r.Fixture, r.Arm, r.Verdict, r.Status)
	if r.Reason != "" {
		line += ": " + r.Reason
	}
	c.emit(LogLine{Run: RunID("fixture/" + r.Fixture), Line: line})
	c.emit(FixtureDone{Result: r})
	return nil
}

// Run runs the fixture on arm's pinned binary in its own run folder (the trace written there
// first), canonical mode, one iteration, pinned to the campaign's last CPU.
func (h *fixtureHost) Run(ctx context.Context, armName string, f *fixtures.Fixture) (fixtures.Outcome, error) {
	c, arm := h.c, Arm(armName)
	p := c.Pinned(arm)
	attempt := 1
	for _, r := range c.history().runs { // a killed kvparity's attempt is rerun as the next one
		if s := r.Start; s != nil && s.Kind == KindFixture && s.Arm == arm && s.Gen == p.Gen && s.Note == f.Name {
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
	runDir := filepath.Join(c.dir, layout.DirRuns, filepath.FromSlash(id))
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return fixtures.Outcome{}, err
	}
	trace := filepath.Join(runDir, "trace.jsonl")
	if err := os.WriteFile(trace, f.Trace(), 0o644); err != nil {
		return fixtures.Outcome{}, err
	}
	// Canonical mode only: no timings and no progress side channel; the arm's stand-in
	// revision (variant) as in every run of it.
	kind := c.kind(arm)
	canonical := kind.Outputs(runDir).Canonical
	process := armkind.Process{Trace: trace, Args: f.Args(), Outputs: armkind.Outputs{Canonical: canonical}, Variant: p.Variant}
	spec := runSpec{id: RunID(id), arm: arm, kind: KindFixture, index: 1, attempt: attempt, armKind: kind, process: process}
	spec.Spec.ID, spec.Binary, spec.Args, spec.Dir, spec.Root, spec.Timeout = id, filepath.Join(c.dir, p.Path), kind.Argv(process), runDir, c.dir, c.row.Determinism.Timeout.Duration
	cpus := c.CPUs()
	spec.CPUs = cpus[len(cpus)-1:]
	base := Record{Run: RunID(id), Arm: arm, Kind: KindFixture, Index: 1, Attempt: attempt, Gen: p.Gen, Note: f.Name}
	res, err := c.recordedRun(ctx, spec, base, nil)
	if err != nil {
		return fixtures.Outcome{}, err
	}
	if res.Cancelled || ctx.Err() != nil {
		return fixtures.Outcome{Cancelled: true}, nil
	}
	report, _ := filepath.Rel(c.dir, canonical)
	out := fixtures.Outcome{Run: id, Report: filepath.ToSlash(report)}
	end := endRecord(base, res)
	if res.Err != nil {
		out.Failure = fmt.Sprintf("%s: %v", id, res.Err)
	} else if line, rerr := firstLine(canonical); rerr != nil {
		out.Failure = fmt.Sprintf("%s: no canonical record: %v", id, rerr)
	} else {
		out.Canonical = line
	}
	end.Error = out.Failure
	if _, err := c.journal.Append(end); err != nil {
		return fixtures.Outcome{}, err
	}
	c.emitEnd(end, nil)
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

// validate checks the row's [fixtures] names (unknown or repeated names name the file and key).
func (s FixturesSpec) validate(file string) error {
	seen := map[string]bool{}
	for i, n := range s.Names {
		key := fmt.Sprintf("names[%d]", i)
		if _, ok := fixtures.Lookup(n); !ok {
			return &RowError{File: file, Table: "fixtures", Key: key, Msg: fmt.Sprintf("%q is not a stage-6 fixture (known: %s)", n, strings.Join(fixtures.Names(), ", "))}
		}
		if seen[n] {
			return &RowError{File: file, Table: "fixtures", Key: key, Msg: fmt.Sprintf("%q is named twice", n)}
		}
		seen[n] = true
	}
	return nil
}
