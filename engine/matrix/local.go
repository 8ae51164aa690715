package matrix

import (
	"context"
	"kvparity/internal/layout"
	"os"
	"path/filepath"
	"time"
)

// runLocal runs the rows that have no verdict yet one after another on this machine (a desk
// machine is one node: rows never overlap, so no row's samples see another's replays).
func (m *matrix) runLocal(ctx context.Context, wake <-chan struct{}) error {
	type ended struct {
		r    *matrixRow
		code int
	}
	done := make(chan ended, 1)
	var queue []*matrixRow
	for _, r := range m.rows {
		if r.needsRun() {
			queue = append(queue, r)
		} else {
			m.logf("%s: already has a verdict (%s); not rerun", r.row.Name, r.jobs[len(r.jobs)-1].describe())
		}
	}
	var active *matrixRow
	for {
		if active == nil && len(queue) > 0 && ctx.Err() == nil {
			r := queue[0]
			queue = queue[1:]
			if err := m.startLocal(ctx, r, func(code int) { done <- ended{r, code} }); err != nil {
				return err
			}
			active = r
			m.refresh()
		}
		if active == nil {
			return ctx.Err() // nil when every row ran
		}
		select {
		case <-wake:
			m.refresh()
		case e := <-done:
			m.refresh()
			j := e.r.jobs[len(e.r.jobs)-1]
			code := e.code
			j.ExitCode, j.Ended, j.State = &code, time.Now().UTC(), JobCompleted
			if code != 0 {
				j.State = JobFailed
			}
			if ctx.Err() != nil {
				// Interrupted by the user: like a cancelled job, the row resumes later.
				j.State, j.Environmental, j.ExitCode = JobCancelled, true, nil
			}
			e.r.running = false
			m.endJob(e.r, j)
			active = nil
			m.refresh()
		}
	}
}

// startLocal records the row's placement and attempt, then runs the row on a goroutine.
func (m *matrix) startLocal(ctx context.Context, r *matrixRow, finished func(int)) error {
	p := ReadPlacement(os.Getenv, "/sys/devices/system/node")
	if err := AppendPlacement(r.dir, p); err != nil {
		return err
	}
	out, err := os.OpenFile(filepath.Join(r.dir, layout.FileLocalRunOutput), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := append([]string{"kvparity", "run", r.file, "--campaign", r.dir}, m.o.RunArgs...)
	j := JobRecord{Mode: "local", Submitted: time.Now().UTC(), Command: cmd, State: JobRunning, Node: p.Node, Placement: &p}
	if err := r.appendJob(j); err != nil {
		out.Close()
		return err
	}
	r.running = true
	m.logf("%s: running locally (CPUs %s), output in %s", r.row.Name, p.AllowedCPUs, out.Name())
	go func() {
		code := m.o.RunLocal(ctx, r.file, r.dir, out)
		out.Close()
		finished(code)
	}()
	return nil
}
