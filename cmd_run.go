package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"kvparity/engine"
)

func init() {
	register("run", "run a row's campaign headless (determinism, parity, perf); exit status = verdict", runCmd)
}

const runUsage = `usage: kvparity run [ROW.toml | --row default|tiny] [--stage determinism|perf|all]
                    [--campaign DIR] [--json] [--watch] [--cpus LIST] [-v]

Runs the row's campaign without a terminal UI, the same engine the workbench drives. Without a
row file it runs the built-in default row (--row tiny: the 200-request row for smoke tests).
--campaign DIR resumes the campaign there when it has a journal (finished repetitions are never
rerun), else creates it; the default is ./campaigns/<row>-<timestamp>. Progress goes to stderr,
the summary to stdout (JSON with --json). --watch keeps watching the arms' source binaries and
reruns determinism after every rebuild until interrupted.

A campaign cleaned by 'kvparity clean' (binaries and trace window removed) opens read-only: its
recorded summary is printed, no stage starts, and the exit status is 3.

exit status: 0 every verdict passes, 1 a FAIL (unstable revision, parity mismatch, missing
lifecycle evidence, perf FAIL), 2 inconclusive or blocked, 3 usage or input error.
`

func runCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage) }
	var (
		stage   = fs.String("stage", "determinism", "determinism, perf or all")
		dir     = fs.String("campaign", "", "campaign directory (resumed when it has a journal)")
		asJSON  = fs.Bool("json", false, "print the summary as JSON")
		watch   = fs.Bool("watch", false, "re-pin and rerun determinism whenever an arm's source binary is rebuilt")
		builtin = fs.String("row", "", "a built-in row: default or tiny")
		cpuList = fs.String("cpus", "", "CPUs replays may be pinned to, e.g. 0-3 (default: all this process may use)")
		verbose = fs.Bool("v", false, "also print every stderr line of the replays")
	)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "kvparity run: "+format+"\n", a...)
		return 3
	}
	if len(pos) > 1 {
		return usageErr("one row file at most, got %q", pos)
	}
	var stages []engine.Stage
	switch *stage {
	case "determinism":
	case "perf":
		stages = []engine.Stage{engine.StagePerf}
	case "all":
		stages = []engine.Stage{engine.StagePerf}
	default:
		return usageErr("--stage %q: use determinism, perf or all", *stage)
	}
	row, rowPath, err := loadRunRow(pos, *builtin)
	if err != nil {
		return usageErr("%v", err)
	}
	opts := engine.Options{Dir: *dir, RowPath: rowPath, Warn: func(s string) { fmt.Fprintln(stderr, "warning:", s) }}
	if *cpuList != "" {
		if opts.CPUs, err = engine.ParseCPUList(*cpuList); err != nil || len(opts.CPUs) == 0 {
			return usageErr("--cpus %q: %v", *cpuList, err)
		}
	}
	c, err := engine.OpenOrCreate(row, opts)
	if err != nil {
		return usageErr("%v", err)
	}
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		printProgress(c.Events(), stderr, *verbose)
	}()
	info := c.Info()
	fmt.Fprintf(stderr, "kvparity run: row %s · trace %s · campaign %s · %d CPUs\n", info.Row, info.TraceSpec, info.Dir, len(c.CPUs()))

	if info.ReadOnly != "" {
		// A cleaned campaign: say so once, print what it recorded, and exit as an input error
		// (nothing was run, so its recorded verdict is not this invocation's).
		fmt.Fprintf(stderr, "kvparity run: %s: nothing was run; 'kvparity report %s' reprints its report\n", info.ReadOnly, info.Dir)
		summary := c.Summary()
		c.Close()
		<-printed
		writeSummary(stdout, summary, stages, *asJSON)
		return 3
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	interrupted := runStages(ctx, c, *stage, stderr)
	if *watch && !interrupted {
		if err := c.SetWatch(true); err != nil {
			fmt.Fprintln(stderr, "kvparity run: watch:", err)
		} else {
			fmt.Fprintln(stderr, "kvparity run: watching the arms' source binaries; Ctrl-C to stop")
			<-ctx.Done()
			interrupted = true
		}
	}
	summary := c.Summary()
	c.Close()
	<-printed
	writeSummary(stdout, summary, stages, *asJSON)
	code := summary.ExitCode(stages...)
	if interrupted && code == 0 && !*watch {
		code = 2
	}
	return code
}

// writeSummary prints the summary for people, or as indented JSON.
func writeSummary(w io.Writer, s engine.Summary, stages []engine.Stage, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(s)
		return
	}
	printSummary(w, s, stages)
}

// loadRunRow picks the row: a file (relative paths resolved against its folder), a named
// built-in row, or the default row.
func loadRunRow(pos []string, builtin string) (*engine.Row, string, error) {
	if len(pos) == 1 {
		if builtin != "" {
			return nil, "", errors.New("give a row file or --row, not both")
		}
		row, err := engine.LoadRow(pos[0])
		if err != nil {
			return nil, "", err
		}
		abs, _ := filepath.Abs(pos[0])
		row.WithBaseDir(filepath.Dir(abs))
		return row, abs, nil
	}
	switch builtin {
	case "", "default":
		return engine.DefaultRow(), "", nil
	case "tiny":
		return engine.TinyRow("", ""), "", nil
	}
	return nil, "", fmt.Errorf("--row %q: the built-in rows are default and tiny", builtin)
}

// runStages runs the asked stages one after the other; true when interrupted.
func runStages(ctx context.Context, c *engine.Campaign, stage string, stderr io.Writer) bool {
	wait := func() bool {
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
			return false
		case <-ctx.Done():
			fmt.Fprintln(stderr, "kvparity run: interrupted; stopping the stage (finished runs are kept)")
			c.StopStage()
			<-done
			return true
		}
	}
	// The perf stage measures the artifacts the determinism stage proved STABLE: a campaign
	// that has not run it yet runs it first, so `--stage perf` works on a fresh row.
	needDeterminism := stage == "determinism" || stage == "all"
	if stage == "perf" {
		for _, a := range c.Summary().Arms {
			if a.Verdict == "" {
				needDeterminism = true
			}
		}
	}
	if needDeterminism {
		if err := c.StartDeterminism(); err != nil {
			fmt.Fprintln(stderr, "kvparity run:", err)
			return false
		}
		if wait() {
			return true
		}
	}
	if stage == "perf" || stage == "all" {
		if err := c.StartPerf(); err != nil {
			fmt.Fprintln(stderr, "kvparity run: perf:", err)
			return false
		}
		return wait()
	}
	return false
}

// printProgress writes one stderr line per meaningful event; progress at most every 2 s a run.
func printProgress(events <-chan engine.Event, w io.Writer, verbose bool) {
	lastProgress := map[engine.RunID]time.Time{}
	live := false // events before HistoryReplayed were recorded by earlier sessions
	for ev := range events {
		if h, ok := ev.(engine.HistoryReplayed); ok {
			live = true
			if h.Records > 0 {
				fmt.Fprintf(w, "resuming: %d journal records; finished repetitions are not rerun\n", h.Records)
			}
			continue
		}
		if !live {
			continue
		}
		switch e := ev.(type) {
		case engine.RunStarted:
			fmt.Fprintf(w, "  %-28s started  pid %d · cpu %s\n", e.Run, e.PID, engine.FormatCPUList(e.CPUs))
		case engine.RunProgress:
			if time.Since(lastProgress[e.Run]) < 2*time.Second {
				continue
			}
			lastProgress[e.Run] = time.Now()
			if e.Total > 0 {
				fmt.Fprintf(w, "  %-28s %3d%%     %d/%d requests · vt %.1f s · %s\n", e.Run, 100*e.Completed/e.Total, e.Completed, e.Total, e.VirtualTimeMs/1000, e.Elapsed.Round(100*time.Millisecond))
			} else {
				fmt.Fprintf(w, "  %-28s running  %s\n", e.Run, e.Elapsed.Round(time.Second))
			}
		case engine.RunFinished:
			if e.Err != nil {
				fmt.Fprintf(w, "  %-28s ✗ %v\n", e.Run, e.Err)
			} else {
				fmt.Fprintf(w, "  %-28s done     %s\n", e.Run, e.Elapsed.Round(10*time.Millisecond))
			}
		case engine.DigestReady:
			fp := ""
			if e.FixedPoint != "" {
				fp = " (harness output not canonical at " + e.FixedPoint + ")"
			}
			fmt.Fprintf(w, "  %-28s digest   %s%s\n", e.Run, e.Digest, fp)
		case engine.StageVerdict:
			who := string(e.Stage)
			if e.Arm != "" {
				who += " " + string(e.Arm)
			}
			fmt.Fprintf(w, "%s: %s — %s\n", who, e.Verdict, e.Reason)
		case engine.RowBlocked:
			fmt.Fprintf(w, "BLOCKED (%s): %s\n", e.Stage, e.Reason)
		case engine.ArtifactChanged:
			what := string(e.Arm)
			if what == "" {
				what = "row file"
			}
			fmt.Fprintf(w, "%s changed: %s sha256 %.12s → %.12s (re-pinned: %v)\n", what, e.Path, e.OldSHA256, e.NewSHA256, e.Repinned)
		case engine.PairDone, engine.SampleDone, engine.SampleInvalidated, engine.PerfSummary:
			if line := engine.PerfProgressLine(e); line != "" {
				fmt.Fprintln(w, line)
			}
		case engine.LogLine:
			if verbose {
				fmt.Fprintf(w, "  %-28s | %s\n", e.Run, e.Line)
			}
		}
	}
}

// printSummary writes the human summary to stdout.
func printSummary(w io.Writer, s engine.Summary, stages []engine.Stage) {
	fmt.Fprintf(w, "row %s · trace %s (sha256 %.12s) · campaign %s\n", s.Row, s.Trace, s.TraceSHA256, s.Dir)
	if p := s.Patch; p != nil {
		fmt.Fprintf(w, "determinism patch (both revisions) sha256 %s\n", p.SHA256)
	}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		a := s.Arms[arm]
		verdict := a.Verdict
		if verdict == "" {
			verdict = "incomplete"
		}
		label := a.Revision
		if a.Variant != "" {
			label += " (" + a.Variant + ")"
		}
		fmt.Fprintf(w, "%-10s %-9s %s · artifact %.12s gen %d\n", arm, verdict, label, a.SHA256, a.Gen)
		for _, r := range a.Runs {
			switch {
			case r.Error != "":
				fmt.Fprintf(w, "    %-26s ✗ %s\n", r.Run, r.Error)
			default:
				fmt.Fprintf(w, "    %-26s %s  %.0f ms\n", r.Run, r.Digest, r.ElapsedMs)
			}
		}
		if a.Verdict != "STABLE" && a.Reason != "" {
			fmt.Fprintf(w, "    %s\n", a.Reason)
		}
	}
	show := append([]engine.Stage{engine.StageParity}, stages...)
	if _, ok := s.Stages[engine.StageFootprint]; ok {
		show = append(show, engine.StageFootprint)
	}
	for _, st := range show {
		o, ok := s.Stages[st]
		if !ok {
			o.Verdict = "not run"
		}
		fmt.Fprintf(w, "%-10s %s", st, o.Verdict)
		if o.Reason != "" {
			fmt.Fprintf(w, " — %s", o.Reason)
		}
		fmt.Fprintln(w)
	}
	if s.Perf != nil && slices.Contains(stages, engine.StagePerf) {
		engine.WritePerfText(w, s.Perf)
	}
	if s.Coverage.Verdict != "" {
		fmt.Fprintf(w, "%-10s %s", "coverage", s.Coverage.Verdict)
		if s.Coverage.Reason != "" {
			fmt.Fprintf(w, " — %s", strings.TrimSuffix(s.Coverage.Reason, "; "))
		}
		fmt.Fprintln(w)
	}
	for _, b := range s.Blocked {
		fmt.Fprintf(w, "blocked    %s\n", b)
	}
}
