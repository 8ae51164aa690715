package matrix

import (
	"context"
	"fmt"
	"io"
	"time"

	"kvparity/campaignreport"
	"kvparity/driver"
	schedule "kvparity/engine/matrix"
	"kvparity/headless"
	"kvparity/verdict"
)

// Options is one `kvparity matrix`.
type Options struct {
	Dir      string   // the matrix folder
	RowFiles []string // one campaign each, in DIR/<row>

	Slurm      bool // one Slurm job per row; false runs the rows here one after another
	Partition  string
	SbatchArgs []string
	AnyNode    bool
	Resubmit   int

	Stage string // the stage every row runs: headless.StageDeterminism, StagePerf or StageAll
	CPUs  string // the CPU list every row's replays may be pinned to, as given ("" = the job's)
	// RunArgs are the extra `kvparity run` arguments of every row (--run-arg), as given: a
	// Slurm job's script passes them on.
	RunArgs []string
	// Run is a local row's run, parsed once from Stage, CPUs and RunArgs (the command parses
	// them as `kvparity run` does); Run sets each row's row and campaign folder.
	Run headless.Options
	// RunRefused is `kvparity run`'s refusal of those arguments (nil when it took them): every
	// local row prints it and ends with its exit status, as that run would.
	RunRefused *Refusal

	Poll, JobPoll time.Duration
	OnUpdate      func([]schedule.RowStatus) // nil: Printer(Log)
	Log           io.Writer
}

// A Refusal is what `kvparity run` printed when it refused its arguments, and its exit status.
type Refusal struct {
	Said string
	Code int
}

// Run runs (or resumes, or follows) every row of the matrix to its report and writes the
// matrix report; it returns the matrix's end and the last matrix report written.
func Run(ctx context.Context, o Options) (*schedule.Result, campaignreport.MatrixReport, error) {
	runArgs := append([]string{"--stage", o.Stage}, o.RunArgs...)
	if o.CPUs != "" {
		runArgs = append(runArgs, "--cpus", o.CPUs)
	}
	so := schedule.Options{
		Dir: o.Dir, RowFiles: o.RowFiles, Partition: o.Partition, SbatchArgs: o.SbatchArgs, AnyNode: o.AnyNode,
		Resubmit: o.Resubmit, RunArgs: runArgs, SemanticOnly: o.Stage == headless.StageDeterminism,
		Assess: campaignreport.Assess, Poll: o.Poll, JobPoll: o.JobPoll, OnUpdate: o.OnUpdate, Log: o.Log,
	}
	if so.OnUpdate == nil {
		so.OnUpdate = Printer(o.Log)
	}
	// The matrix report, written whenever the matrix asks; the last one written is the one
	// --json prints.
	var report campaignreport.MatrixReport
	so.Report = func(dir string, rows []schedule.RowStatus, overall verdict.Outcome) error {
		report = campaignreport.BuildMatrixReport(dir, rows, overall)
		return campaignreport.WriteMatrixReport(dir, report)
	}
	if o.Slurm {
		so.Slurm = &schedule.Slurm{}
		// Instruction counts that end after the row's job: the row's report again, with them.
		so.RowReport = func(rowDir string) error {
			_, err := campaignreport.WriteReport(rowDir)
			return err
		}
	} else {
		so.RunLocal = o.runLocal
	}
	res, err := schedule.Run(ctx, so)
	return res, report, err
}

// runLocal runs one row here as `kvparity run ROW --campaign DIR/ROW` would, with the row's
// report written as it ends (the matrix report links it and reads the row's verdicts from it,
// as after a Slurm job's `kvparity report`).
func (o Options) runLocal(ctx context.Context, rowFile, rowDir string, out io.Writer) int {
	if r := o.RunRefused; r != nil {
		io.WriteString(out, r.Said)
		return r.Code
	}
	ro := o.Run
	var err error
	if ro.Row, ro.RowPath, err = driver.LoadRow(rowFile); err != nil {
		fmt.Fprintf(out, "kvparity run: %v\n", err)
		return verdict.ExitUsage
	}
	ro.Dir, ro.WriteReport = rowDir, true
	return headless.Run(ctx, ro, out, out)
}
