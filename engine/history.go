package engine

import "encoding/json"

// HistoryReplayed marks the end of the recorded history a campaign publishes when it opens
// (Records journal records; 0 for a new campaign). Events before it happened in earlier
// sessions; a headless progress printer skips them, a UI may treat them alike.
type HistoryReplayed struct{ Records int }

func (HistoryReplayed) event() {}

// replayHistory publishes the journal's history as events, oldest first, with their recorded
// values, so a workbench opened on an existing campaign rebuilds its state from events alone.
// It folds the journal as it goes: each record's events see the history up to that record.
func (c *Campaign) replayHistory() {
	recs := c.journal.Records() // one copy: Records copies the whole journal
	h := NewHistory(c.row)
	for _, rec := range recs {
		h.Add(rec)
		c.replayRecord(h, rec)
	}
	c.Emit(HistoryReplayed{Records: len(recs)})
}

// replayRecord publishes the events one record stands for, h being the history up to it.
func (c *Campaign) replayRecord(h *History, rec Record) {
	switch rec.Type {
	case RecRunStart:
		c.Emit(RunStarted{Run: rec.Run, Arm: rec.Arm, Kind: rec.Kind, Repetition: rec.Index, Variation: rec.Variation, CPUs: rec.CPUs, PID: rec.PID, At: rec.At})
	case recPreflight:
		var p Preflight
		if json.Unmarshal(rec.Data, &p) == nil {
			c.Emit(PreflightDone{Preflight: p})
		}
	case RecRunEnd:
		c.emitEnd(rec, nil)
	case RecVerdict:
		c.Emit(StageVerdict{Stage: rec.Stage, Arm: rec.Arm, Verdict: rec.Verdict, Reason: rec.Reason, Finding: rec.Note})
	case RecBlocked:
		c.Emit(RowBlocked{Stage: rec.Stage, Reason: rec.Reason})
	case RecStale:
		c.Emit(ArtifactChanged{Arm: rec.Arm, Path: c.Pinned(rec.Arm).Source, OldSHA256: rec.OldSHA, NewSHA256: rec.NewSHA})
	case RecPerfPair:
		var pair PerfPair
		if json.Unmarshal(rec.Data, &pair) != nil {
			return
		}
		s := h.perfSeries(pair.Key)
		c.Emit(SampleDone{Run: pair.BaselineRun, Arm: Baseline, Index: pair.Pair, Attempt: pair.Attempt, Ms: pair.BaselineMs})
		c.Emit(SampleDone{Run: pair.CandidateRun, Arm: Candidate, Index: pair.Pair, Attempt: pair.Attempt, Ms: pair.CandidateMs})
		c.Emit(pairEvent(pair, len(s.pairs), c.row.Perf.Pairs))
		c.Emit(runningSummary(s, c.row, c.row.Perf.WarmupsPerArm))
	case recPerfInvalid:
		var inv PerfInvalidation
		if json.Unmarshal(rec.Data, &inv) == nil {
			c.Emit(invalidatedEvent(inv))
		}
	case RecPerfResult:
		var d perfResultData
		if json.Unmarshal(rec.Data, &d) == nil && d.Result != nil {
			c.Emit(finalSummary(d.Result, c.row))
			// The result carries its verdict: announce it even if the verdict record was lost.
			c.Emit(StageVerdict{Stage: StagePerf, Verdict: d.Result.Verdict, Reason: d.Result.Reason})
		}
	}
}
