package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"kvparity/engine"
	"kvparity/engine/enginetest"
	"kvparity/verdict"
)

// doc.go's "Adding a stage", followed: a stage that lives outside the core, reaches the
// campaign only through its StageHost, runs one canonical run of each arm, journals each run
// and its verdict, and is read back by the journal's one fold.

const (
	stageCount engine.Stage   = "count"
	kindCount  engine.RunKind = "count"
)

// startCount is the stage's Start: a function of the host, which the caller (here the test)
// calls with the campaign's Host.
func startCount(h engine.StageHost) error {
	return h.Start(stageCount, func(ctx context.Context) bool {
		if err := h.PrepareArms(); err != nil {
			h.Block(stageCount, err.Error())
			return false
		}
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			gen := h.Pinned(arm).Gen
			attempt := h.History().NextAttempt(kindCount, arm, gen)
			id := engine.RunID("count/" + string(arm))
			spec := h.RunSpec(id, arm, kindCount, 1, attempt, true)
			spec.CPUs = h.CPUs()[:1]
			base := engine.Record{Run: id, Arm: arm, Kind: kindCount, Index: 1, Attempt: attempt, Gen: gen, Stage: stageCount}
			res, err := h.RecordedRun(ctx, spec, base, nil)
			if err != nil {
				h.Block(stageCount, err.Error())
				return false
			}
			if res.Cancelled {
				return true
			}
			end := engine.EndRecord(base, res)
			if res.Err != nil {
				end.Error = res.Err.Error()
			}
			if err := h.Append(end); err != nil {
				h.Block(stageCount, err.Error())
				return false
			}
			h.EmitEnd(end, nil)
		}
		h.Verdict(stageCount, "", verdict.Pass, "both arms ran once", "")
		return false
	})
}

func TestAStageOutsideTheCoreRunsThroughItsHost(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, log := enginetest.Open(t, enginetest.Row("", ""), dir)
	if err := startCount(c.Host()); err != nil {
		t.Fatal(err)
	}
	if err := startCount(c.Host()); err == nil {
		t.Error("a second stage started while the first ran")
	}
	c.Wait()
	c.Close()
	<-log.Done

	// Published after recorded: each run started and finished, and the stage's verdict.
	evs := log.All()
	if started := enginetest.EventsOf[engine.RunStarted](evs); len(started) != 2 || started[0].Kind != kindCount {
		t.Errorf("RunStarted %+v, want one per arm of kind %q", started, kindCount)
	}
	if fin := enginetest.EventsOf[engine.RunFinished](evs); len(fin) != 2 || fin[0].Err != nil || fin[1].Err != nil {
		t.Errorf("RunFinished %+v, want two clean ends", fin)
	}
	if v := enginetest.EventsOf[engine.StageVerdict](evs); len(v) != 1 || v[0].Stage != stageCount || v[0].Verdict != verdict.Pass {
		t.Errorf("StageVerdict %+v", v)
	}
	if st := enginetest.EventsOf[engine.StageStopped](evs); len(st) != 1 || st[0].Stage != stageCount || st[0].Cancelled {
		t.Errorf("StageStopped %+v", st)
	}

	// Read back by the fold of the reopened campaign: both runs, started and ended, and the verdict.
	c, log = enginetest.Open(t, enginetest.Row("", ""), dir)
	h := c.History()
	var ended []engine.RunID
	for _, r := range h.Runs() {
		if r.Start != nil && r.Start.Kind == kindCount && r.End != nil && r.End.Error == "" {
			ended = append(ended, r.End.Run)
		}
	}
	if len(ended) != 2 || ended[0] != "count/baseline" || ended[1] != "count/candidate" {
		t.Errorf("the fold's runs of the stage: %v", ended)
	}
	if v, ok := h.Last(engine.RecVerdict); !ok || v.Stage != stageCount || v.Verdict != verdict.Pass {
		t.Errorf("the fold's last verdict %+v, %v", v, ok)
	}
	// Resumed from the journal: a second run is the next attempt.
	if n := h.NextAttempt(kindCount, engine.Baseline, 0); n != 2 {
		t.Errorf("next attempt %d, want 2", n)
	}
	c.Close()
	<-log.Done
}
