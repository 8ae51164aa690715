package determinism

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"kvparity/engine"
	"kvparity/internal/atomicfile"
)

// The preflight: each arm's probe, alone on the machine's CPUs, measuring how many CPUs its
// replay keeps busy (engine.Preflight, judged and folded by the core).

// runPreflight probes each arm whose current artifact has no preflight yet, one at a time and
// alone on the machine's CPUs (each allowed every CPU), so CPU time over wall time measures
// how many CPUs the replay keeps busy.
func runPreflight(ctx context.Context, c engine.StageHost) error {
	h := c.History()
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		gen := max(c.Pinned(arm).Gen, 1)
		if _, ok := h.PreflightAt(arm, gen); ok {
			continue
		}
		if err := probe(ctx, c, arm, gen, h.NextAttempt(engine.KindPreflight, arm, gen)); err != nil || ctx.Err() != nil {
			return err
		}
	}
	return nil
}

// preflightRequests is how many requests of the trace window the preflight probe replays.
const preflightRequests = 500

// traceHead is the first n lines of a trace file.
func traceHead(path string, n int) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	end := 0
	for range n {
		k := bytes.IndexByte(data[end:], '\n')
		if k < 0 {
			return data, nil
		}
		end += k + 1
	}
	return data[:end], nil
}

// probe runs one arm's preflight and records it; only a failure to record is returned.
func probe(ctx context.Context, c engine.StageHost, arm engine.Arm, gen, attempt int) error {
	id := engine.PreflightID(arm, gen, attempt)
	spec := c.RunSpec(id, arm, engine.KindPreflight, 1, attempt, true)
	spec.CPUs = c.CPUs()
	// The probe replays the head of the trace window: how a replay spreads its work over
	// threads shows in its first requests, and the whole window would make the preflight cost
	// as much as a repetition.
	head, err := traceHead(c.TraceWindow(), preflightRequests)
	if err != nil {
		return fmt.Errorf("preflight: %w", err)
	}
	headPath := filepath.Join(spec.Dir, "trace-head.jsonl")
	if err := atomicfile.InsideNoLinks(c.Dir(), spec.Dir); err != nil {
		return fmt.Errorf("preflight: %w", err)
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return fmt.Errorf("preflight: %w", err)
	}
	if err := atomicfile.WriteIn(c.Dir(), headPath, head, 0o644); err != nil {
		return fmt.Errorf("preflight: %w", err)
	}
	for i, a := range spec.Args {
		if a == c.TraceWindow() {
			spec.Args[i] = headPath
		}
	}
	base := engine.Record{Run: id, Arm: arm, Kind: engine.KindPreflight, Index: 1, Attempt: attempt, Gen: gen}
	var sampler *threadSampler
	res, startErr := c.RecordedRun(ctx, spec, base, func(pid int) { sampler = sampleThreads(pid, 10*time.Millisecond) })
	p := engine.Preflight{Arm: arm, Gen: gen, Run: id, CPUs: spec.CPUs}
	if sampler != nil {
		var demandNs int64
		p.Threads, p.BusyThreads, p.MainShare, demandNs = sampler.stop()
		if res.Elapsed > 0 {
			p.Demand = float64(demandNs) / float64(res.Elapsed.Nanoseconds())
		}
	}
	if startErr != nil {
		return startErr
	}
	c.Emit(engine.RunFinished{Run: id, Arm: arm, Kind: engine.KindPreflight, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
	if res.Cancelled {
		return nil // probed again on the next start
	}
	end := engine.EndRecord(base, res)
	if res.Err != nil {
		end.Error, p.Error = res.Err.Error(), res.Err.Error()
	}
	if err := c.Append(end); err != nil {
		return err
	}
	p.CPUMs, p.WallMs = float64(res.CPUTime.Microseconds())/1000, float64(res.Elapsed.Microseconds())/1000
	if p.WallMs > 0 {
		p.Parallelism = p.CPUMs / p.WallMs
	}
	p.VoluntarySwitches, p.InvoluntarySwitches = res.VoluntarySwitches, res.InvoluntarySwitches
	p.Judge()
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("preflight: %w", err)
	}
	if err := c.Append(engine.Record{Type: engine.RecPreflight, Arm: arm, Gen: gen, Data: data}); err != nil {
		return err
	}
	c.Emit(engine.PreflightDone{Preflight: p})
	return nil
}

// threadSampler reads every thread's schedstat of one process until stopped, keeping each
// thread's last reading (threads that exit keep the one before).
type threadSampler struct {
	pid  int
	mu   sync.Mutex
	last map[string][2]int64 // tid -> run ns, wait ns
	done chan struct{}
	wg   sync.WaitGroup
}

func sampleThreads(pid int, every time.Duration) *threadSampler {
	s := &threadSampler{pid: pid, last: map[string][2]int64{}, done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.read()
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *threadSampler) read() {
	dir := fmt.Sprintf("/proc/%d/task", s.pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		run, err1 := strconv.ParseInt(f[0], 10, 64)
		wait, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		s.mu.Lock()
		s.last[t.Name()] = [2]int64{run, wait}
		s.mu.Unlock()
	}
}

// stop ends sampling and returns the threads seen, the busy ones (a tenth or more of the CPU
// time), the busiest one's share, and the summed running and waiting time.
func (s *threadSampler) stop() (threads, busy int, mainShare float64, demandNs int64) {
	close(s.done)
	s.wg.Wait()
	var total, most int64
	for _, v := range s.last {
		total += v[0]
		most = max(most, v[0])
	}
	for _, v := range s.last {
		if total > 0 && v[0]*10 >= total {
			busy++
		}
		demandNs += v[0] + v[1]
	}
	if total > 0 {
		mainShare = float64(most) / float64(total)
	}
	return len(s.last), busy, mainShare, demandNs
}
