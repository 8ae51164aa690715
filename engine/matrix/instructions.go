package matrix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"kvparity/engine"
	"kvparity/internal/layout"
)

// A row's instruction counts on Slurm (issue 39): never beside a perf stage collecting samples
// (the protocol forbids concurrent profilers), and on a cluster not after it on the row's node
// either, where 30–50× a replay per counted run would add to the row's wall time. When the
// matrix's rows run `--stage all` on Slurm and a row file declares `[perf] instructions_runs`,
// the row's job runs `kvparity run ... --no-instructions`, and a second exclusive job,
// submitted with it (so it starts at once on another free node), counts them: `kvparity run
// ROW --campaign DIR/<row>/instructions --stage instructions`, then `kvparity report` on that
// campaign. It is a campaign of its own, so it never contends for the row campaign's lock; its
// folder is also the job's folder (job.sh, jobs.json, placement.json, slurm-<id>.out, and a
// matrix_job record in its journal), recorded exactly like the row's. The row's report uses
// its counts when that campaign counted the row's current artifacts (campaignreport);
// Options.RowReport rewrites the row's report when the counts end after the row's job.

// An instrJob is a row's instruction-count jobs (nil in matrixRow when the row has none).
type instrJob struct {
	dir     string      // DIR/<row>/instructions: the campaign and the job's folder
	jobs    []JobRecord // its jobs.json, oldest first
	resubs  int         // automatic resubmissions made
	running bool        // a job is active
	shown   string      // the status last published (refresh's change detection)
}

// needsRun reports whether the counts have no job that ended with kvparity run's verdict.
func (in *instrJob) needsRun() bool {
	n := len(in.jobs)
	return n == 0 || !in.jobs[n-1].Verdict()
}

// countsApart reports whether the matrix counts row's instructions in a job of their own: on
// Slurm, for rows that run --stage all (the stage that counts them), when the row declares
// instructions_runs. Local matrices count them after the perf stage, in the row's own run.
func countsApart(o Options, row *engine.Row) bool {
	return o.Slurm != nil && !o.SemanticOnly && runStage(o.RunArgs) == "all" && row.Perf.InstructionsRuns > 0
}

// stageFlag reports whether a is kvparity run's --stage flag, and its value when given with =.
func stageFlag(a string) (value string, isStage, hasValue bool) {
	name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return value, strings.HasPrefix(a, "-") && name == "stage", hasValue
}

// runStage is the --stage value of kvparity run arguments (the last one given, as the flag
// package takes it), "" without one.
func runStage(args []string) string {
	stage := ""
	for i := 0; i < len(args); i++ {
		v, ok, inline := stageFlag(args[i])
		switch {
		case !ok:
		case inline:
			stage = v
		case i+1 < len(args):
			stage = args[i+1]
			i++
		}
	}
	return stage
}

// instructionsArgs are the instruction job's kvparity run arguments: the rows' (CPUs and any
// --run-arg) with --stage instructions.
func instructionsArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		_, ok, inline := stageFlag(args[i])
		switch {
		case ok && !inline:
			i++ // --stage VALUE
		case ok: // --stage=VALUE
		case args[i] == "--no-instructions" || args[i] == "-no-instructions":
		default:
			out = append(out, args[i])
		}
	}
	return append([]string{"--stage", "instructions"}, out...)
}

// settleInstructions drops the instruction job of a row whose own campaign counted its current
// artifacts already (a matrix begun before counts had jobs of their own): nothing is left to
// count apart, and a resubmitted row job finds them counted.
func (m *matrix) settleInstructions(r *matrixRow) {
	if r.instr == nil || len(r.instr.jobs) > 0 || r.fold.hist.Instructions() == nil {
		return
	}
	m.logf("%s: its campaign has counted its instructions already; no job of their own", r.row.Name)
	r.instr = nil
}

// startInstructions follows the row's instruction job from an earlier matrix, or submits one
// when the counts have none that ended with a verdict (beside the row's job, as runSlurm does).
func (m *matrix) startInstructions(ctx context.Context, r *matrixRow) error {
	in := r.instr
	if in == nil {
		return nil
	}
	switch n := len(in.jobs); {
	case n > 0 && !in.jobs[n-1].State.Terminal():
		in.running = true
		m.logf("%s: following instruction-count job %s from an earlier matrix", r.row.Name, in.jobs[n-1].JobID)
	case in.needsRun():
		return m.submitInstructions(ctx, r)
	default:
		m.logf("%s: instruction counts already ended with a verdict (%s); not resubmitted", r.row.Name, in.jobs[n-1].describe())
	}
	return nil
}

// submitInstructions writes the instruction job's script into its folder and submits it.
func (m *matrix) submitInstructions(ctx context.Context, r *matrixRow) error {
	in := r.instr
	if err := os.MkdirAll(in.dir, 0o755); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	js := jobScript{Row: r.row.Name + "-instructions", RowFile: r.file, RowDir: in.dir, Binary: filepath.Join(m.dir, layout.MatrixBinary),
		Partition: m.o.Partition, RunArgs: instructionsArgs(m.o.RunArgs), BuildCache: m.o.buildCache,
		Note: fmt.Sprintf("The instruction counts of row %s, in a job of their own beside the row's (kvparity-%s, which runs\n"+
			"# --no-instructions): a campaign of their own, so they never contend for the row's campaign lock.", r.row.Name, r.row.Name)}
	j, err := m.sbatch(ctx, js, m.pinnedNode(in.dir))
	if err != nil {
		return fmt.Errorf("matrix: submitting the instruction counts of row %s: %w", r.row.Name, err)
	}
	in.jobs = append(in.jobs, j)
	if err := writeJobs(in.dir, in.jobs); err != nil {
		return fmt.Errorf("matrix: %s: %w", r.row.Name, err)
	}
	in.running = true
	m.logf("%s: submitted job %s for its instruction counts (%s)", r.row.Name, j.JobID, filepath.Join(in.dir, layout.FileJobScript))
	return nil
}

// pollInstructions asks Slurm about the row's running instruction job and records its end;
// one that ended environmentally is resubmitted like a row's job while automatic
// resubmissions remain (a resubmitted count resumes from its campaign's journal).
func (m *matrix) pollInstructions(ctx context.Context, r *matrixRow) error {
	in := r.instr
	if in == nil || !in.running {
		return nil
	}
	j, ended := m.pollJob(ctx, r.row.Name+" (instructions)", in.dir, in.jobs)
	if !ended {
		return nil
	}
	in.running = false
	m.endInstructions(r, j)
	if j.Environmental && in.resubs < m.o.Resubmit && ctx.Err() == nil {
		in.resubs++
		m.logf("%s: resubmitting its instruction counts (automatic resubmission %d of %d)", r.row.Name, in.resubs, m.o.Resubmit)
		if err := m.submitInstructions(ctx, r); err != nil {
			return err
		}
	}
	m.refresh()
	return nil
}

// endInstructions records how the instruction job ended (its jobs.json and its campaign's
// journal). Counts that ended after the row's job are not in the report that job wrote: the
// row's report is written again (Options.RowReport), then the matrix report.
func (m *matrix) endInstructions(r *matrixRow, j JobRecord) {
	in := r.instr
	j = withPlacement(in.dir, j)
	in.jobs[len(in.jobs)-1] = j
	if err := writeJobs(in.dir, in.jobs); err != nil {
		m.logf("%s (instructions): %v", r.row.Name, err)
	}
	if err := appendJobRecord(in.dir, j); err != nil {
		m.logf("%s (instructions): recording the job end in the journal: %v", r.row.Name, err)
	}
	m.logf("%s: instruction counts: %s", r.row.Name, j.describe())
	if j.Verdict() && !r.running && m.o.RowReport != nil {
		if _, err := os.Stat(filepath.Join(r.dir, layout.FileJournal)); err == nil {
			if err := m.o.RowReport(r.dir); err != nil {
				m.logf("%s: writing its report with the instruction counts: %v", r.row.Name, err)
			} else {
				m.logf("%s: report rewritten with the instruction counts of %s", r.row.Name, in.dir)
			}
		}
	}
	m.refresh()
	if err := m.writeReport(m.result()); err != nil {
		m.logf("%v", err)
	}
}

// instrStatus is the instruction job's part of the row's status (nil when the row has none).
func (r *matrixRow) instrStatus() *InstructionsJob {
	in := r.instr
	if in == nil {
		return nil
	}
	s := &InstructionsJob{Dir: in.dir, Attempts: len(in.jobs)}
	for _, j := range in.jobs {
		if j.Environmental {
			s.Environmental = append(s.Environmental, j.describe())
		}
	}
	if n := len(in.jobs); n > 0 {
		j := in.jobs[n-1]
		s.JobID, s.JobState, s.Node = j.JobID, j.State, j.Node
		if j.ExitCode != nil {
			c := *j.ExitCode
			s.ExitCode = &c
		}
	}
	if ps, err := ReadPlacements(in.dir); err == nil && len(ps) > 0 {
		s.Node = ps[len(ps)-1].Node
	}
	return s
}

// applyInstr notes a change of the instruction job's status; it reports one.
func (r *matrixRow) applyInstr() bool {
	s := r.instrStatus()
	if s == nil {
		return false
	}
	shown := fmt.Sprint(*s, s.ExitCode != nil)
	if shown == r.instr.shown {
		return false
	}
	r.instr.shown = shown
	return true
}

// withPlacement is j with the placement its job recorded in dir (a Slurm job's, when it has
// none yet), so the journal holds every job's id, node, CPUs and NUMA.
func withPlacement(dir string, j JobRecord) JobRecord {
	if ps, err := ReadPlacements(dir); err == nil && j.Placement == nil && j.Mode == "slurm" {
		for i := len(ps) - 1; i >= 0; i-- {
			if ps[i].JobID == j.JobID && ps[i].Mode == "slurm" {
				p := ps[i]
				j.Placement = &p
				break
			}
		}
	}
	return j
}
