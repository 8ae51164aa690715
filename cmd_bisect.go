package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"kvparity/bisect"
	"kvparity/engine"
	"kvparity/engine/run"
	"kvparity/ui/bisectview"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

func init() {
	register("bisect", "find the first commit of a git: candidate that broke parity, determinism or speed", bisectCmd)
}

const bisectUsage = `usage: kvparity bisect ROW.toml --good REF --bad REF [--judge semantic|determinism|perf|instructions]
                       [--dir DIR] [--exceptions CAMPAIGN] [--cpus LIST] [--json | --view]

Bisects the first-parent history of the row's candidate checkout (source = "git:PATH@REF")
between --good and --bad. Each probed commit is built as the row builds its arms (cached by
commit, incremental in the checkout's lineage) and run as a campaign of its own,
DIR/probe-<sha12>, against the --good commit built the same way, with the row's determinism
stage (the performance stage too for --judge perf; only one callgrind count per arm for
--judge instructions). A commit is bad when:

  semantic     (default) its canonical digest differs from the good commit's while both are
               STABLE, and the exception records of --exceptions CAMPAIGN (its
               exceptions.jsonl, copied into every probe) do not explain every difference;
  determinism  it is UNSTABLE (perturbed repetitions included);
  perf         the paired gate FAILs against the good commit;
  instructions its timed region executes more instructions than the good commit's by more
               than the row's [perf] instructions_threshold (default 1.03): one deterministic
               count per arm under valgrind, no pairs, so a busy machine gives the same answer.

A commit that does not build, or whose verdict is INCONCLUSIVE, BLOCKED or undecided, is
skipped and said so, never guessed. Every step is journaled in DIR/bisect.jsonl: run the same
command again after an interruption and it resumes without rebuilding or rerunning what was
recorded. DIR defaults to ./campaigns/<row>-bisect-<good12>-<bad12>.

The result names the first bad commit (SHA, subject, author date, diff stat), the last good
one, every step and why it was judged so, and the probe campaign of good vs first bad
(kvparity open DIR/probe-..., kvparity diff --campaign DIR/probe-...). --json prints it as
one document (schema_version 2, kind "bisect"). --view shows the bisect view while it runs:
the commits newest first with each one's state live (building, running, good, bad, skipped),
the range the first bad commit can still be in, and the result; enter opens a judged commit's
probe campaign in the workbench; q quits (the same command resumes). The result's text is
printed when the view closes.

exit status: 0 --bad is not bad (nothing to bisect), 1 the first bad commit is named, 2 it
cannot be named (skipped commits around it, or --bad could not be judged), 3 usage or input
error (a ref, the row, --good does not build), 4 kvparity's own failure, 128+N stopped by
signal N (run it again to resume).
`

func bisectCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, bisectUsage) }
	good := fs.String("good", "", "a good ref of the candidate's checkout")
	bad := fs.String("bad", "", "a bad ref after it, on its first-parent history")
	judgeFlag := fs.String("judge", string(bisect.JudgeSemantic), "semantic, determinism, perf or instructions")
	dir := fs.String("dir", "", "the bisect folder (resumed when it holds this bisect's journal)")
	exceptions := fs.String("exceptions", "", "a campaign whose exception records apply to every probe")
	cpuList := fs.String("cpus", "", "CPUs replays may be pinned to, e.g. 0-3 (default: all this process may use)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	view := fs.Bool("view", false, "show the bisect view: the commits live, enter opens a judged probe's campaign")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "kvparity bisect: "+format+"\n", a...)
		return verdict.ExitUsage
	}
	if len(pos) != 1 || *good == "" || *bad == "" {
		fs.Usage()
		return verdict.ExitUsage
	}
	if *view && *asJSON {
		return usageErr("--view and --json exclude each other")
	}
	if *view && (!term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd())) {
		return usageErr("--view needs a terminal; without it the bisect prints its steps (or --json)")
	}
	judge, err := bisect.ParseJudge(*judgeFlag)
	if err != nil {
		return usageErr("%v", err)
	}
	row, rowPath, err := loadRunRow(pos, "")
	if err != nil {
		return usageErr("%v", err)
	}
	o := bisect.Options{Row: row, RowPath: rowPath, Good: *good, Bad: *bad, Judge: judge, Dir: *dir, Exceptions: *exceptions,
		Campaign: engine.Options{Warn: func(s string) { fmt.Fprintln(stderr, "warning:", s) }}}
	if *cpuList != "" {
		if o.Campaign.CPUs, err = run.ParseCPUList(*cpuList); err != nil || len(o.Campaign.CPUs) == 0 {
			return usageErr("--cpus %q: %v", *cpuList, err)
		}
	}
	o.Progress = bisect.Printer(stderr)
	ctx, stop := interruptContext()
	defer stop()
	var r *bisect.Result
	if *view {
		r, err = runBisectView(ctx, o, stderr)
	} else {
		r, err = bisect.Run(ctx, o)
	}
	if errors.Is(err, errViewQuit) {
		fmt.Fprintln(stderr, "kvparity bisect: quit before the end; the recorded steps are kept: run the same command again to resume")
		return verdict.ExitInconclusive
	}
	if err != nil {
		fmt.Fprintln(stderr, "kvparity bisect:", err)
		if code, ok := interruptedExit(ctx); ok {
			fmt.Fprintln(stderr, "kvparity bisect: the recorded steps are kept; run the same command again to resume")
			return code
		}
		return verdict.ExitUsage
	}
	if *asJSON {
		err = r.WriteJSON(stdout)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "kvparity bisect:", err)
		return verdict.ExitError
	}
	return r.ExitCode
}

// runBisectView runs the bisect under the bisect view. Quitting the view stops the bisect (its
// recorded steps are kept). Warnings go to stderr after the view closes: the screen is the
// view's while it runs.
func runBisectView(ctx context.Context, o bisect.Options, stderr io.Writer) (*bisect.Result, error) {
	feed := bisectview.NewFeed()
	var warnings strings.Builder
	var mu sync.Mutex
	o.Progress = feed.Publish
	o.Campaign.Warn = func(s string) { mu.Lock(); defer mu.Unlock(); fmt.Fprintln(&warnings, "warning:", s) }
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	m := bisectview.New(theme.NewStyles(true, os.Getenv("NO_COLOR") != ""), feed, func(dir string) tea.Cmd {
		return openWorkbench(exe, dir, func(s string) tea.Msg { return bisectview.NoteMsg(s) })
	})
	m.Standalone = true
	var r *bisect.Result
	stopped := underView(ctx, m, "bisect", stderr, func(ctx context.Context) {
		r, err = bisect.Run(ctx, o)
		feed.Finish(r, err)
	})
	if stopped && r == nil && ctx.Err() == nil {
		err = errViewQuit
	}
	mu.Lock()
	io.WriteString(stderr, warnings.String())
	mu.Unlock()
	return r, err
}
