package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"kvparity/driver"
	"kvparity/engine"
	"kvparity/engine/run"
	"kvparity/headless"
	"kvparity/verdict"
)

func init() {
	register("run", "run a row's campaign headless (determinism, parity, perf); exit status = verdict", runCmd)
}

const runUsage = `usage: kvparity run [ROW.toml | --row default|tiny] [--stage determinism|perf|instructions|fixtures|all]
                    [--no-instructions] [--campaign DIR] [--json] [--watch] [--cpus LIST] [--isolate] [-v]

Runs the row's campaign without a terminal UI, the same engine the workbench drives. Without a
row file it runs the built-in default row (--row tiny: the 200-request row for smoke tests).
--campaign DIR resumes the campaign there when it has a journal (finished repetitions are never
rerun), else creates it; the default is ./campaigns/<row>-<timestamp>. Progress goes to stderr,
the summary to stdout (JSON with --json, schema_version 2: see docs/guide.md). --watch keeps
watching the arms' source binaries and reruns determinism after every rebuild until interrupted.
Before its runs the perf stage watches the measured CPU for 2 s and says what load to expect;
--isolate (root) moves every other process of the machine off that CPU for the stage, as
'cset shield' does, and back after (recorded in the journal; undone on resume after a kill).

A campaign cleaned by 'kvparity clean' (binaries and trace window removed) opens read-only: its
recorded summary is printed, no stage starts, and the exit status is 3.

--stage instructions counts each arm's instructions in the timed region under valgrind's
callgrind ([perf] instructions_runs per arm, default 3): a secondary, deterministic measure
beside the wall-clock gate that decides nothing; --stage all counts them after the perf stage
when the row declares instructions_runs. Without valgrind it says so and nothing else changes.
--stage fixtures runs the row's stage-6 fixtures ([fixtures] names: router-queue, preemption-edge,
handoff-vllm, handoff-sglang, scale-to-zero) on both arms' pinned binaries, each asserting its
lifecycle; it exits 0 when all asserted it, 1 when one failed, 2 when a harness was refused
("protocol needs updating", "unsupported"). --stage all runs them last when the row declares them.
--no-instructions is --stage all without the instruction counts: kvparity matrix on Slurm
counts them in a job of their own, on another node, in the campaign DIR/<row>/instructions.

exit status (the overall verdict; --stage determinism and instructions ask for the semantic
verdict only):
0 PASS or PASS_WITH_SEMANTIC_EXCEPTIONS, 1 a FAIL (unstable revision, unexplained mismatch,
missing lifecycle evidence, perf or footprint FAIL), 2 inconclusive, blocked or not decided,
3 usage or input error.
`

func runCmd(args []string, stdout, stderr io.Writer) int {
	o, code, ok := parseRunArgs(args, stderr)
	if !ok {
		return code
	}
	ctx, stop := interruptContext()
	defer stop()
	code = headless.Run(ctx, o, stdout, stderr)
	if sig, ok := interruptedExit(ctx); ok && code == verdict.ExitUsage {
		return sig // a build (or the campaign's creation) stopped by a signal: not an input error
	}
	return code
}

// parseRunArgs reads `kvparity run`'s arguments. ok false means return code (0 for -h, 3 for a
// usage error, which was printed).
func parseRunArgs(args []string, stderr io.Writer) (o headless.Options, code int, ok bool) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage) }
	stage := fs.String("stage", headless.StageDeterminism, "determinism, perf, instructions, fixtures or all")
	dir := fs.String("campaign", "", "campaign directory (resumed when it has a journal)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	watch := fs.Bool("watch", false, "re-pin and rerun determinism whenever an arm's source binary is rebuilt")
	builtin := fs.String("row", "", "a built-in row: default or tiny")
	cpuList := fs.String("cpus", "", "CPUs replays may be pinned to, e.g. 0-3 (default: all this process may use)")
	verbose := fs.Bool("v", false, "also print every stderr line of the replays")
	isolate := fs.Bool("isolate", false, "root only: move every other process off the measured CPU during the perf stage (and back after)")
	noInstr := fs.Bool("no-instructions", false, "--stage all without the instruction counts (kvparity matrix on Slurm counts them in a job of their own)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return o, flagExit(err), false
	}
	usageErr := func(format string, a ...any) (headless.Options, int, bool) {
		fmt.Fprintf(stderr, "kvparity run: "+format+"\n", a...)
		return o, verdict.ExitUsage, false
	}
	if len(pos) > 1 {
		return usageErr("one row file at most, got %q", pos)
	}
	switch *stage {
	case headless.StageDeterminism, headless.StagePerf, headless.StageInstructions, headless.StageFixtures, headless.StageAll:
	default:
		return usageErr("--stage %q: use determinism, perf, instructions, fixtures or all", *stage)
	}
	if *noInstr && *stage == headless.StageInstructions {
		return usageErr("--no-instructions and --stage instructions exclude each other")
	}
	o = headless.Options{Dir: *dir, Stage: *stage, NoInstructions: *noInstr, JSON: *asJSON, Watch: *watch, Verbose: *verbose, IsolateCPU: *isolate, Diagnose: diagnoseInstability}
	if o.Row, o.RowPath, err = loadRunRow(pos, *builtin); err != nil {
		return usageErr("%v", err)
	}
	if *cpuList != "" {
		if o.CPUs, err = run.ParseCPUList(*cpuList); err != nil || len(o.CPUs) == 0 {
			return usageErr("--cpus %q: %v", *cpuList, err)
		}
	}
	return o, 0, true
}

// loadRunRow picks the row: a file (relative paths resolved against its folder), a named
// built-in row, or the default row.
func loadRunRow(pos []string, builtin string) (*engine.Row, string, error) {
	if len(pos) == 1 {
		if builtin != "" {
			return nil, "", errors.New("give a row file or --row, not both")
		}
		return driver.LoadRow(pos[0])
	}
	switch builtin {
	case "", "default":
		return engine.DefaultRow(), "", nil
	case "tiny":
		return engine.TinyRow("", ""), "", nil
	}
	return nil, "", fmt.Errorf("--row %q: the built-in rows are default and tiny", builtin)
}
