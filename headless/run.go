package headless

import (
	"context"
	"errors"
	"fmt"
	"io"

	"kvparity/campaignreport"
	"kvparity/driver"
	"kvparity/engine"
	"kvparity/engine/determinism"
	"kvparity/engine/fixturestage"
	"kvparity/engine/instructions"
	"kvparity/engine/perf"
	"kvparity/engine/stages"
	"kvparity/verdict"
)

// Stages a run may ask for.
const (
	StageDeterminism = "determinism"
	StagePerf        = "perf"
	StageAll         = "all"
	// StageInstructions counts the arms' instructions (a secondary measure that decides
	// nothing; the exit status is the semantic verdict's, as for StageDeterminism).
	StageInstructions = "instructions"
	// StageFixtures runs the row's stage-6 fixtures after determinism (a failed fixture is
	// missing lifecycle evidence: the exit status is the semantic verdict's).
	StageFixtures = "fixtures"
)

// Options is one headless run.
type Options struct {
	Row     *engine.Row
	RowPath string // the row file ("" for a built-in row)
	Dir     string // campaign directory ("" for ./campaigns/<row>-<timestamp>)
	Stage   string // StageDeterminism, StagePerf, StageInstructions or StageAll
	JSON    bool
	Watch   bool
	Verbose bool
	CPUs    []int
	// IsolateCPU moves the machine's other processes off the measured CPU during the perf stage.
	IsolateCPU bool
	// NoInstructions: StageAll without the instruction counts, even when the row declares
	// instructions_runs (kvparity matrix on Slurm counts them in a job of their own).
	NoInstructions bool
	// Diagnose names the likely entropy source of two differing reports of one revision
	// (engine.Options.Diagnose: the command passes the diff's diagnosis, diffview/diagnose).
	Diagnose func(a, b string) (string, error)
	// WriteReport writes the campaign's report as the run ends (the matrix's local rows: the
	// matrix report links it and reads the row's verdicts from it, as after a Slurm job), and
	// prints the verdicts it states; the report is built once.
	WriteReport bool
}

// Run runs the asked stages of o's campaign, prints the summary and returns the exit status:
// the overall verdict's (the semantic one for --stage determinism), as the report says it.
func Run(ctx context.Context, o Options, stdout, stderr io.Writer) int {
	var summary engine.Summary
	readOnly := false
	k := driver.Campaign{Row: o.Row, Options: engine.Options{Dir: o.Dir, RowPath: o.RowPath, CPUs: o.CPUs, Perf: engine.PerfOptions{IsolateCPU: o.IsolateCPU}, Warn: func(s string) { fmt.Fprintln(stderr, "warning:", s) },
		BuildProgress: driver.BuildPrinter(stderr), Context: ctx, Diagnose: o.Diagnose},
		Pump: func(events <-chan engine.Event) { printProgress(events, stderr, o.Verbose) },
		Warn: func(err error) { fmt.Fprintln(stderr, "kvparity report:", err) },
	}
	if o.WriteReport {
		k.Report = driver.Write
	}
	k.Stages = func(c *engine.Campaign) error {
		info := c.Info()
		fmt.Fprintf(stderr, "kvparity run: row %s · trace %s · campaign %s · %d CPUs\n", info.Row, info.TraceSpec, info.Dir, len(c.CPUs()))
		readOnly = info.ReadOnly != ""
		if readOnly {
			// A cleaned campaign: say so once, print what it recorded, and exit as an input error
			// (nothing was run, so its recorded verdict is not this invocation's).
			fmt.Fprintf(stderr, "kvparity run: %s: nothing was run; 'kvparity report %s' reprints its report\n", info.ReadOnly, info.Dir)
		} else if runStages(ctx, c, o.Stage, o.NoInstructions, stderr) == nil && o.Watch {
			if err := stages.New(c).SetWatch(true); err != nil {
				fmt.Fprintln(stderr, "kvparity run: watch:", err)
			} else {
				fmt.Fprintln(stderr, "kvparity run: watching the arms' source binaries; Ctrl-C to stop")
				<-ctx.Done()
			}
		}
		summary = c.Summary()
		return nil // an interrupted stage still has its summary printed
	}
	_, v, err := driver.Run(ctx, k)
	if err != nil {
		fmt.Fprintf(stderr, "kvparity run: %v\n", err)
		return verdict.ExitUsage
	}
	doc := document(v, o.Stage, summary)
	if readOnly {
		// The recorded verdicts are printed as recorded; the exit status printed with them is
		// this invocation's, which ran nothing.
		doc.ExitCode = verdict.ExitUsage
	}
	if err := doc.Write(stdout, o.JSON); err != nil {
		fmt.Fprintf(stderr, "kvparity run: %v\n", err) // stdout refused the summary
		return verdict.ExitError
	}
	return doc.ExitCode
}

// errInterrupted: a signal stopped the run (SIGINT, SIGTERM, SIGHUP).
var errInterrupted = errors.New("interrupted")

// runStages runs the asked stages one after the other; errInterrupted when interrupted.
// noInstructions leaves the instruction counts out of StageAll.
func runStages(ctx context.Context, c *engine.Campaign, stage string, noInstructions bool, stderr io.Writer) error {
	wait := func() error {
		if err := c.WaitContext(ctx); err != nil {
			fmt.Fprintf(stderr, "kvparity run: interrupted (%v); the stage was stopped (finished runs are kept)\n", err)
			return errInterrupted
		}
		return nil
	}
	// The perf stage measures the artifacts the determinism stage proved STABLE: a campaign
	// that has not run it yet runs it first, so `--stage perf` works on a fresh row.
	needDeterminism := stage == StageDeterminism || stage == StageAll
	if stage == StagePerf || stage == StageInstructions || stage == StageFixtures {
		h := c.History()
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			if !h.ArmResult(arm).Verdict.Decided() {
				needDeterminism = true
			}
		}
	}
	if needDeterminism {
		if err := determinism.Start(c.Host()); err != nil {
			fmt.Fprintln(stderr, "kvparity run:", err)
			return nil
		}
		if err := wait(); err != nil {
			return err
		}
	}
	if stage == StagePerf || stage == StageAll {
		if err := perf.Start(c.Host()); err != nil {
			fmt.Fprintln(stderr, "kvparity run: perf:", err)
			return nil
		}
		if err := wait(); err != nil {
			return err
		}
	}
	// The instruction counts run after the performance stage has collected its samples, never
	// beside it: --stage all counts them when the row declares instructions_runs (unless they
	// are counted elsewhere: kvparity matrix on Slurm submits a job of their own).
	if stage == StageInstructions || (stage == StageAll && c.Row().Perf.InstructionsRuns > 0 && !noInstructions) {
		if err := instructions.Start(c.Host(), 0); err != nil {
			fmt.Fprintln(stderr, "kvparity run: instructions:", err)
			return nil
		}
		if err := wait(); err != nil {
			return err
		}
	}
	// Stage 6's fixtures: alone, or last in --stage all when the row declares them.
	if stage == StageFixtures || (stage == StageAll && len(c.Row().Fixtures.Names) > 0) {
		if err := fixturestage.Start(c.Host()); err != nil {
			fmt.Fprintln(stderr, "kvparity run: fixtures:", err)
			return nil
		}
		return wait()
	}
	return nil
}

// Assess is the run's document: the campaign's verdicts (campaignreport.Assess, scoped to
// the semantic verdict for --stage determinism) with its recorded summary. Run prints it after
// its stages; a test holds it against the other surfaces of a campaign it drives itself.
func Assess(dir, stage string, s engine.Summary) (Document, error) {
	v, err := campaignreport.Assess(dir)
	if err != nil {
		return Document{}, err
	}
	return document(v, stage, s), nil
}

// document is the run's document from the campaign's verdicts, scoped to the semantic verdict
// for the stages that decide only it.
func document(v verdict.Verdicts, stage string, s engine.Summary) Document {
	if stage == StageDeterminism || stage == StageInstructions || stage == StageFixtures {
		v = v.SemanticOnly()
	}
	return Document{Document: verdict.NewDocument(verdict.KindRun, v), Summary: s}
}
