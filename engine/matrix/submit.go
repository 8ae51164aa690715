package matrix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
)

// runSlurm submits a job for every row without a verdict (following rows whose job from an
// earlier matrix is still queued or running), and beside it the row's instruction-count job
// when it has one (instructions.go), polls the jobs until every one has ended, and resubmits
// jobs that ended environmentally while automatic resubmissions remain.
func (m *matrix) runSlurm(ctx context.Context, wake <-chan struct{}) error {
	for _, r := range m.rows {
		m.settleInstructions(r) // before the row's job: its script says whether the row counts them
		switch n := len(r.jobs); {
		case n > 0 && !r.jobs[n-1].State.Terminal():
			r.running = true
			m.logf("%s: following job %s from an earlier matrix", r.row.Name, r.jobs[n-1].JobID)
		case r.needsRun():
			if err := m.submit(ctx, r); err != nil {
				return err
			}
		default:
			m.logf("%s: already has a verdict (%s); not resubmitted", r.row.Name, r.jobs[n-1].describe())
		}
		if err := m.startInstructions(ctx, r); err != nil {
			return err
		}
	}
	m.refresh()
	tick := time.NewTicker(m.o.JobPoll)
	defer tick.Stop()
	for {
		if err := m.pollJobs(ctx); err != nil {
			return err
		}
		if !m.anyRunning() {
			return nil
		}
		select {
		case <-ctx.Done():
			m.logf("stopped following; the jobs keep running on the cluster: run the same command again to follow them")
			return ctx.Err()
		case <-wake:
			m.refresh()
			continue // jobs are polled on the ticker, not on every journal write
		case <-tick.C:
		}
	}
}

func (m *matrix) anyRunning() bool {
	for _, r := range m.rows {
		if r.running || r.instr != nil && r.instr.running {
			return true
		}
	}
	return false
}

// submit writes the row's job script and submits it.
func (m *matrix) submit(ctx context.Context, r *matrixRow) error {
	args := m.o.RunArgs
	if r.instr != nil {
		// Counted in a job of their own, on another node: never after the perf stage here.
		args = append(slices.Clone(args), "--no-instructions")
	}
	js := jobScript{Row: r.row.Name, RowFile: r.file, RowDir: r.dir, Binary: filepath.Join(m.dir, layout.MatrixBinary),
		Partition: m.o.Partition, RunArgs: args, BuildCache: m.o.buildCache}
	j, err := m.sbatch(ctx, js, m.pinnedNode(r.dir))
	if err != nil {
		return fmt.Errorf("matrix: submitting row %s: %w", r.row.Name, err)
	}
	if err := r.appendJob(j); err != nil {
		return fmt.Errorf("matrix: %s: %w", r.row.Name, err)
	}
	r.running = true
	m.logf("%s: submitted job %s (%s)", r.row.Name, j.JobID, filepath.Join(r.dir, layout.FileJobScript))
	return nil
}

// sbatch writes js into its folder (js.RowDir/job.sh) and submits it, to node when node is not
// "". It returns the job's first record.
func (m *matrix) sbatch(ctx context.Context, js jobScript, node string) (JobRecord, error) {
	script := filepath.Join(js.RowDir, layout.FileJobScript)
	if err := atomicfile.Update(script, js.render(), 0o755); err != nil {
		return JobRecord{}, err
	}
	var extra []string
	if m.o.Partition != "" {
		extra = append(extra, "--partition="+m.o.Partition)
	}
	if node != "" {
		extra = append(extra, "--nodelist="+node)
	}
	extra = append(extra, m.o.SbatchArgs...)
	args := m.o.Slurm.submitArgs(script, extra)
	id, err := m.o.Slurm.submit(ctx, script, extra)
	if err != nil {
		return JobRecord{}, err
	}
	return JobRecord{Mode: "slurm", JobID: id, Submitted: time.Now().UTC(), Command: args, State: JobPending}, nil
}

// pinnedNode is the node a resubmitted job must return to: where the campaign in dir was
// created (protocol: keep a row's repetitions and performance series on one node; an
// instruction campaign's counted runs likewise). "" when the campaign has not started, or
// AnyNode is set.
func (m *matrix) pinnedNode(dir string) string {
	if m.o.AnyNode {
		return ""
	}
	if _, err := os.Stat(filepath.Join(dir, layout.FileJournal)); err != nil {
		return ""
	}
	ps, err := ReadPlacements(dir)
	if err != nil || len(ps) == 0 {
		return ""
	}
	for _, p := range ps {
		if p.Mode == "slurm" {
			return p.Node
		}
	}
	return ""
}

// pollJobs asks Slurm about every running job (rows' and instruction counts') and records the
// ones that ended.
func (m *matrix) pollJobs(ctx context.Context) error {
	for _, r := range m.rows {
		if ctx.Err() != nil {
			return nil
		}
		if r.running {
			if j, ended := m.pollJob(ctx, r.row.Name, r.dir, r.jobs); ended {
				r.running = false
				m.endJob(r, j)
				if j.Environmental && r.resubs < m.o.Resubmit && ctx.Err() == nil {
					r.resubs++
					m.logf("%s: resubmitting (automatic resubmission %d of %d)", r.row.Name, r.resubs, m.o.Resubmit)
					if err := m.submit(ctx, r); err != nil {
						return err
					}
				}
				m.refresh()
			}
		}
		if err := m.pollInstructions(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// pollJob asks Slurm about the last of jobs, the jobs recorded in dir (label names them in the
// log). A change of a job still active is recorded in place (jobs.json); a job that ended is
// returned with its end filled in, for the caller to record.
func (m *matrix) pollJob(ctx context.Context, label, dir string, jobs []JobRecord) (JobRecord, bool) {
	j := jobs[len(jobs)-1]
	info, err := m.o.Slurm.job(ctx, j.JobID)
	if err != nil {
		if ctx.Err() == nil {
			m.logf("%s: asking Slurm about job %s: %v (will ask again)", label, j.JobID, err)
		}
		return j, false
	}
	if !info.State.Terminal() {
		if info.State != j.State || info.Node != j.Node || info.Reason != j.Reason {
			moved := info.State != j.State
			j.State, j.Reason = info.State, info.Reason
			if info.Node != "" {
				j.Node = info.Node
			}
			jobs[len(jobs)-1] = j
			if err := writeJobs(dir, jobs); err != nil {
				m.logf("%s: %v", label, err)
			}
			if moved {
				m.logf("%s: job %s %s%s", label, j.JobID, j.State, onNode(j.Node))
			}
			m.refresh()
		}
		return j, false
	}
	m.refresh() // read the journal to its end before the row's line is final
	j.State, j.Reason, j.Signal, j.Ended = info.State, info.Reason, info.Signal, time.Now().UTC()
	if info.Node != "" {
		j.Node = info.Node
	}
	j.ExitCode = nil
	if info.State == JobCompleted || info.State == JobFailed {
		code := info.ExitCode
		j.ExitCode = &code
	}
	j.Environmental = info.State.environmental() || info.State == JobUnknown
	if info.State == JobUnknown && j.Reason == "" {
		j.Reason = "Slurm no longer knows the job (no accounting and past MinJobAge)"
	}
	return j, true
}

func onNode(n string) string {
	if n == "" {
		return ""
	}
	return " on " + n
}
