package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/engine/run"
	"kvparity/engine/stages"
	"kvparity/internal/layout"
	"kvparity/ui"
	"kvparity/ui/buildview"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

func init() {
	register("workbench", "open the workbench on a row (the default when no command is given)", workbenchCmd)
	register("open", "reopen a campaign directory in the workbench and resume it", openCmd)
}

const workbenchUsage = `usage: kvparity [ROW.toml | --row default|tiny] [--campaign DIR] [--cpus LIST] [--isolate]
       kvparity open DIR [--cpus LIST]

Opens the workbench: a terminal UI over the row's campaign. Without a row file it opens the
built-in default row (the embedded engine on a generated 5,000-request conversation trace);
--row tiny is the 200-request row. --campaign DIR resumes the campaign there when it has a
journal, else creates it (default ./campaigns/<row>-<timestamp>). 'open DIR' reopens a finished
or interrupted campaign. Keys: S determinism · p perf · P profile both arms · x stop · r rerun ·
+ repetition · tab pane · d diff · e exception · w watch · s save report · ? help · q quit.
--isolate (root) moves every other process off the measured CPU during the perf stage.
`

func workbenchCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kvparity", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, workbenchUsage) }
	dir := fs.String("campaign", "", "campaign directory (resumed when it has a journal)")
	builtin := fs.String("row", "", "a built-in row: default or tiny")
	cpuList := fs.String("cpus", "", "CPUs replays may be pinned to, e.g. 0-3 (default: all this process may use)")
	isolate := fs.Bool("isolate", false, "root only: move every other process off the measured CPU during the perf stage (and back after)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "kvparity: one row file at most, got %q\n", pos)
		return verdict.ExitUsage
	}
	row, rowPath, err := loadRunRow(pos, *builtin)
	if err != nil {
		fmt.Fprintf(stderr, "kvparity: %v\n", err)
		return verdict.ExitUsage
	}
	reopened := false
	if *dir != "" {
		_, err := os.Stat(filepath.Join(*dir, layout.FileJournal))
		reopened = err == nil
	}
	if !reopened {
		if code, ok := buildScreen(row, stderr); !ok {
			return code
		}
	}
	return runWorkbench(stderr, *cpuList, reopened, func(opts engine.Options) (*engine.Campaign, error) {
		opts.Dir, opts.RowPath = *dir, rowPath
		opts.Perf.IsolateCPU = *isolate
		opts.Follow = true // a campaign another kvparity writes is followed live, read-only
		return engine.OpenOrCreate(row, opts)
	})
}

// buildScreen builds a new campaign's source arms under the build screen (live progress, q
// cancels) before the workbench opens; the campaign then pins the cached builds. ok is false
// when the workbench must not open (code is the exit status).
func buildScreen(row *engine.Row, stderr io.Writer) (code int, ok bool) {
	sources := map[engine.Arm]string{}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		if spec := row.Arm(arm); spec.FromSource() {
			sources[arm] = spec.Source
		}
	}
	if len(sources) == 0 {
		return 0, true
	}
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		fmt.Fprintln(stderr, "kvparity: the workbench needs a terminal; run the campaign headless with 'kvparity run'")
		return verdict.ExitUsage, false
	}
	m := buildview.New(row.Name, sources, theme.NewStyles(true, os.Getenv("NO_COLOR") != ""), func(ctx context.Context, progress func(engine.BuildProgress)) error {
		_, err := engine.BuildArms(ctx, row, "", progress)
		return err
	})
	final, err := tea.NewProgram(m).Run()
	if err != nil {
		fmt.Fprintf(stderr, "kvparity: %v\n", err)
		return verdict.ExitError, false
	}
	if err := final.(buildview.Model).Err(); err != nil {
		fmt.Fprintf(stderr, "kvparity: building the row's arms: %v\n", err)
		return verdict.ExitUsage, false
	}
	return 0, true
}

func openCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("open", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, workbenchUsage) }
	cpuList := fs.String("cpus", "", "CPUs replays may be pinned to (default: all this process may use)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: kvparity open DIR (a campaign directory with a journal.jsonl)")
		return verdict.ExitUsage
	}
	if _, err := os.Stat(filepath.Join(pos[0], layout.FileJournal)); err != nil {
		fmt.Fprintf(stderr, "kvparity open: %s is not a campaign directory (no journal.jsonl): %v\n", pos[0], err)
		return verdict.ExitUsage
	}
	return runWorkbench(stderr, *cpuList, true, func(opts engine.Options) (*engine.Campaign, error) {
		opts.Follow = true // a campaign another kvparity writes is followed live, read-only
		return engine.Open(pos[0], opts)
	})
}

// intro is the workbench's first two lines: what kvparity does, and where the campaign lives.
func intro(dir string) []string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return []string{
		"kvparity checks a Dynamo change against its baseline: the same KV replay outputs, byte for byte, and no slower",
		"campaign folder " + dir + " (journal, runs, exception records, report; kvparity open DIR resumes it)",
	}
}

// runWorkbench opens the campaign, runs the UI until quit, and always closes the campaign so
// replay processes never outlive the workbench.
func runWorkbench(stderr io.Writer, cpuList string, reopened bool, open func(engine.Options) (*engine.Campaign, error)) int {
	// Warnings raised while the UI owns the terminal must not be printed over it: they are
	// queued and forwarded into the program by one adapter goroutine.
	warnings := make(chan string, 256)
	opts := engine.Options{Warn: func(s string) {
		select {
		case warnings <- s:
		default: // a flood of warnings: the journal keeps them all
		}
	}, Diagnose: diagnoseInstability}
	// Check the terminal before a campaign is created: without one there is nothing to draw on.
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		fmt.Fprintln(stderr, "kvparity: the workbench needs a terminal; run the campaign headless with 'kvparity run'")
		return verdict.ExitUsage
	}
	if cpuList != "" {
		cpus, err := run.ParseCPUList(cpuList)
		if err != nil || len(cpus) == 0 {
			fmt.Fprintf(stderr, "kvparity: --cpus %q: %v\n", cpuList, err)
			return verdict.ExitUsage
		}
		opts.CPUs = cpus
	}
	c, err := open(opts)
	if err != nil {
		fmt.Fprintf(stderr, "kvparity: %v\n", err)
		return verdict.ExitUsage
	}
	defer c.Close()
	m := ui.New(ui.Options{Controller: stages.New(c), SaveReport: campaignreport.Write, Assess: campaignreport.Assess,
		PreflightText: campaignreport.PreflightText, NoColor: os.Getenv("NO_COLOR") != "", Reopened: reopened,
		Intro: intro(c.Dir())})
	// kvparity's own signal handling, not Bubble Tea's: SIGHUP (the terminal closed, the tmux
	// session killed) must stop the stage and be recorded like SIGTERM, and Bubble Tea's
	// handler knows only SIGINT and SIGTERM.
	ctx, stopSignals := interruptContext()
	defer stopSignals()
	p := tea.NewProgram(m, tea.WithFPS(30), tea.WithContext(ctx), tea.WithoutSignalHandler())
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case w := <-warnings:
				p.Send(ui.WarningMsg{Text: w})
			case <-stop:
				return
			}
		}
	}()
	_, err = p.Run()
	close(stop)
	code, interrupted := interruptedExit(ctx)
	if interrupted {
		c.Interrupt(context.Cause(ctx)) // recorded as the stage's end, before Close stops it anyway
	}
	if cerr := c.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if interrupted {
		fmt.Fprintf(stderr, "kvparity: %v: the stage was stopped and its replays killed; campaign: %s\n", context.Cause(ctx), c.Dir())
		return code
	}
	if err != nil {
		fmt.Fprintf(stderr, "kvparity: %v\n", err)
		return verdict.ExitError
	}
	fmt.Fprintf(stderr, "campaign: %s\n", c.Dir())
	return 0
}
