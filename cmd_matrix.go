package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"kvparity/campaignreport"
	"kvparity/engine/matrix"
	"kvparity/engine/run"
	"kvparity/headless"
	"kvparity/internal/layout"
	matrixdriver "kvparity/matrix"
	"kvparity/ui/matrixview"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

func init() {
	register("matrix", "run several rows: one after another here, or one Slurm job per row (--slurm)", runMatrix)
}

// matrixArgList is a repeatable string flag.
type matrixArgList []string

func (s *matrixArgList) String() string     { return strings.Join(*s, " ") }
func (s *matrixArgList) Set(v string) error { *s = append(*s, v); return nil }

const matrixUsage = `usage: kvparity matrix ROW.toml... --campaign DIR [--slurm [--partition P] [--sbatch-arg ARG]...]

Runs every row as its own campaign in DIR/<row>. Without --slurm the rows run one after another
on this machine (exactly as 'kvparity run ROW --campaign DIR/<row>'); with --slurm each row is
one job on one whole node (--exclusive --nodes=1), and DIR must be on a filesystem every node
sees. Running the same command again follows jobs still queued or running, resubmits rows whose
job ended environmentally (preemption, node failure, time limit, cancel) and keeps rows that
already have a verdict. Writes DIR/matrix.md and DIR/matrix.json. Exit status: 0 every row
passed, 1 a row failed, 2 a row inconclusive, blocked or unfinished, 3 usage or input error.

With --slurm --stage all, a row that declares [perf] instructions_runs counts its instructions
in a second exclusive job submitted with the row's (which runs --no-instructions): a campaign of
their own in DIR/<row>/instructions, on another node when one is free, so the counts add
nothing to the row's wall time. The row's report states them once they counted its artifacts.

flags:
`

func runMatrix(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, matrixUsage); fs.PrintDefaults() }
	var (
		dir        = fs.String("campaign", "", "matrix folder: one campaign per row in DIR/<row> (required)")
		useSlurm   = fs.Bool("slurm", false, "submit one Slurm job per row instead of running rows here")
		partition  = fs.String("partition", "", "Slurm partition for the jobs (--slurm)")
		anyNode    = fs.Bool("any-node", false, "let a resubmitted row run on another node than the one its campaign started on")
		resubmit   = fs.Int("resubmit", 0, "resubmit a row whose job ended environmentally up to N times automatically")
		poll       = fs.Duration("poll", time.Second, "how often row journals are re-read (fsnotify wakes sooner where it works)")
		jobPoll    = fs.Duration("job-poll", 5*time.Second, "how often Slurm is asked about the jobs")
		jsonOut    = fs.Bool("json", false, "print matrix.json on stdout at the end (progress goes to stderr)")
		quiet      = fs.Bool("quiet", false, "print no progress lines")
		view       = fs.Bool("view", false, "show the matrix view (one line per row; enter opens a finished row's workbench)")
		stage      = fs.String("stage", "determinism", "the stages every row runs: determinism, perf or all (as kvparity run --stage)")
		cpus       = fs.String("cpus", "", "CPUs each row's replays may be pinned to, e.g. 0-3 (as kvparity run --cpus; default: the job's CPU set)")
		placeOnly  = fs.String("record-placement", "", "internal (job scripts): record this job's placement in the row folder and exit")
		sbatchArgs matrixArgList
		runArgs    matrixArgList
	)
	fs.Var(&sbatchArgs, "sbatch-arg", "extra sbatch argument, e.g. --sbatch-arg=--time=04:00:00 (repeatable)")
	fs.Var(&runArgs, "run-arg", "extra 'kvparity run' argument for every row (repeatable)")
	rows, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if *placeOnly != "" {
		return matrixdriver.RecordPlacement(*placeOnly, stdout, stderr)
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "kvparity matrix: "+format+"\n", a...)
		return verdict.ExitUsage
	}
	switch {
	case *dir == "":
		return bad("--campaign DIR is required")
	case len(rows) == 0:
		return bad("no row files given")
	case !*useSlurm && (*partition != "" || len(sbatchArgs) > 0 || *anyNode || *resubmit > 0):
		return bad("--partition, --sbatch-arg, --any-node and --resubmit need --slurm")
	case *view && *jsonOut:
		return bad("--view and --json exclude each other")
	case *stage != "determinism" && *stage != "perf" && *stage != "all":
		return bad("--stage %q: use determinism, perf or all", *stage)
	case *resubmit < 0:
		return bad("--resubmit must be >= 0")
	case *poll <= 0 || *jobPoll <= 0:
		return bad("--poll and --job-poll must be > 0")
	}

	if *cpus != "" {
		if _, err := run.ParseCPUList(*cpus); err != nil {
			return bad("--cpus: %v", err)
		}
	}
	progress := stdout
	if *jsonOut {
		progress = stderr
	}
	if *quiet {
		progress = io.Discard
	}
	o := matrixdriver.Options{
		Dir: *dir, RowFiles: rows, Slurm: *useSlurm, Partition: *partition, SbatchArgs: sbatchArgs, AnyNode: *anyNode,
		Resubmit: *resubmit, Stage: *stage, CPUs: *cpus, RunArgs: runArgs, Poll: *poll, JobPoll: *jobPoll, Log: progress,
	}
	if !*useSlurm {
		o.Run, o.RunRefused = parseMatrixRunArgs(rows[0], *stage, *cpus, runArgs)
	}
	ctx, stop := interruptContext()
	defer stop()
	var res *matrix.Result
	var report campaignreport.MatrixReport
	if *view {
		res, report, err = runMatrixView(ctx, o, *dir, stderr)
	} else {
		res, report, err = matrixdriver.Run(ctx, o)
	}
	if res == nil {
		fmt.Fprintf(stderr, "kvparity matrix: %v\n", err)
		return verdict.ExitUsage
	}
	code := res.ExitCode
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, errViewQuit) {
		fmt.Fprintf(stderr, "kvparity matrix: %v\n", err)
		code = verdict.ExitUsage // sbatch refused a submission (bad partition or argument)
	}
	return matrixdriver.WriteResult(stdout, stderr, res, report, *jsonOut, code)
}

// parseMatrixRunArgs parses the local rows' `kvparity run` arguments once, as kvparity run
// parses its own (the row's file and campaign folder are each row's): the options, or what
// kvparity run says when it refuses them (every row prints it and exits as that run would).
func parseMatrixRunArgs(rowFile, stage, cpus string, runArgs []string) (headless.Options, *matrixdriver.Refusal) {
	args := append([]string{rowFile, "--stage", stage}, runArgs...)
	if cpus != "" {
		args = append(args, "--cpus", cpus)
	}
	var refused strings.Builder
	o, code, ok := parseRunArgs(args, &refused)
	if !ok {
		return o, &matrixdriver.Refusal{Said: refused.String(), Code: code}
	}
	return o, nil
}

// runMatrixView runs the matrix under the matrix view. Quitting the view stops following (Slurm
// jobs keep running; a local row is interrupted and resumes next time) and waits for the matrix
// to record that.
func runMatrixView(ctx context.Context, o matrixdriver.Options, dir string, stderr io.Writer) (*matrix.Result, campaignreport.MatrixReport, error) {
	feed := matrixview.NewFeed()
	o.OnUpdate, o.Log = feed.Publish, io.Discard
	var report campaignreport.MatrixReport
	exe, err := os.Executable()
	if err != nil {
		return nil, report, err
	}
	m := matrixview.New(dir, theme.NewStyles(true, os.Getenv("NO_COLOR") != ""), feed, openRowCmd(exe))
	m.Standalone, m.ReportName = true, layout.FileMatrixMD
	var res *matrix.Result
	underView(ctx, m, "matrix", stderr, func(ctx context.Context) {
		res, report, err = matrixdriver.Run(ctx, o)
		feed.Finish(res, err)
	})
	return res, report, err
}

// openRowCmd opens a row's full workbench (kvparity open DIR/ROW) in place of the matrix view,
// once the row no longer runs: a running row's journal belongs to its job.
func openRowCmd(exe string) matrixview.OpenFunc {
	return func(r matrix.RowStatus) tea.Cmd {
		note := func(s string) tea.Cmd { return func() tea.Msg { return matrixview.NoteMsg(s) } }
		switch {
		case r.JobState != "" && !r.JobState.Terminal():
			return note(fmt.Sprintf("row %s is %s (%s): open it when it has ended", r.Row, strings.ToLower(string(r.JobState)), r.Progress()))
		case r.Stage == matrix.RowStageDeterminism || r.Stage == matrix.RowStagePerf || r.Stage == matrix.RowStagePinning ||
			r.Stage == matrix.RowStageStarting:
			return note(fmt.Sprintf("row %s is running (%s): open it when it has ended", r.Row, r.Progress()))
		case r.Records == 0:
			return note(fmt.Sprintf("row %s has no campaign yet", r.Row))
		}
		return openWorkbench(exe, r.Dir, func(s string) tea.Msg { return matrixview.NoteMsg(s) })
	}
}
