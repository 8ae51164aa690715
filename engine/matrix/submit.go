package matrix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
)

// runSlurm submits a job for every row without a verdict (following rows whose job from an
// earlier matrix is still queued or running), polls the jobs until every one has ended, and
// resubmits rows that ended environmentally while automatic resubmissions remain.
func (m *matrix) runSlurm(ctx context.Context, wake <-chan struct{}) error {
	for _, r := range m.rows {
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
		if r.running {
			return true
		}
	}
	return false
}

// submit writes the row's job script and submits it.
func (m *matrix) submit(ctx context.Context, r *matrixRow) error {
	js := jobScript{Row: r.row.Name, RowFile: r.file, RowDir: r.dir, Binary: filepath.Join(m.dir, layout.MatrixBinary),
		Partition: m.o.Partition, RunArgs: m.o.RunArgs, BuildCache: m.o.buildCache}
	script := filepath.Join(r.dir, layout.FileJobScript)
	if err := atomicfile.Update(script, js.render(), 0o755); err != nil {
		return fmt.Errorf("matrix: %s: %w", r.row.Name, err)
	}
	var extra []string
	if m.o.Partition != "" {
		extra = append(extra, "--partition="+m.o.Partition)
	}
	if node := m.pinnedNode(r); node != "" {
		extra = append(extra, "--nodelist="+node)
	}
	extra = append(extra, m.o.SbatchArgs...)
	args := m.o.Slurm.submitArgs(script, extra)
	id, err := m.o.Slurm.submit(ctx, script, extra)
	if err != nil {
		return fmt.Errorf("matrix: submitting row %s: %w", r.row.Name, err)
	}
	if err := r.appendJob(JobRecord{Mode: "slurm", JobID: id, Submitted: time.Now().UTC(), Command: args, State: JobPending}); err != nil {
		return fmt.Errorf("matrix: %s: %w", r.row.Name, err)
	}
	r.running = true
	m.logf("%s: submitted job %s (%s)", r.row.Name, id, script)
	return nil
}

// pinnedNode is the node a resubmitted row must return to: where its campaign was created
// (protocol: keep a row's repetitions and performance series on one node). "" when the row
// has not started, or AnyNode is set.
func (m *matrix) pinnedNode(r *matrixRow) string {
	if m.o.AnyNode {
		return ""
	}
	if _, err := os.Stat(filepath.Join(r.dir, layout.FileJournal)); err != nil {
		return ""
	}
	ps, err := ReadPlacements(r.dir)
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

// pollJobs asks Slurm about every running row's job and records the ones that ended.
func (m *matrix) pollJobs(ctx context.Context) error {
	for _, r := range m.rows {
		if !r.running {
			continue
		}
		j := r.jobs[len(r.jobs)-1]
		info, err := m.o.Slurm.job(ctx, j.JobID)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			m.logf("%s: asking Slurm about job %s: %v (will ask again)", r.row.Name, j.JobID, err)
			continue
		}
		if !info.State.Terminal() {
			if info.State != j.State || info.Node != j.Node || info.Reason != j.Reason {
				moved := info.State != j.State
				j.State, j.Reason = info.State, info.Reason
				if info.Node != "" {
					j.Node = info.Node
				}
				r.jobs[len(r.jobs)-1] = j
				if err := writeJobs(r.dir, r.jobs); err != nil {
					m.logf("%s: %v", r.row.Name, err)
				}
				if moved {
					m.logf("%s: job %s %s%s", r.row.Name, j.JobID, j.State, onNode(j.Node))
				}
				m.refresh()
			}
			continue
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
	return nil
}

func onNode(n string) string {
	if n == "" {
		return ""
	}
	return " on " + n
}
