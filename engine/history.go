package engine

// RecordReplayers lets stages defined in other files re-create their state in a UI on Open:
// each function is called for every journal record of its type, after the core's own events
// for that record (the core publishes RunStarted/RunFinished for every run kind, and the
// determinism events). Register in an init func.
var RecordReplayers = map[RecordType]func(c *Campaign, rec Record){}

// HistoryReplayed marks the end of the recorded history a campaign publishes when it opens
// (Records journal records; 0 for a new campaign). Events before it happened in earlier
// sessions; a headless progress printer skips them, a UI may treat them alike.
type HistoryReplayed struct{ Records int }

func (HistoryReplayed) event() {}

// replayHistory publishes the journal's history as events, oldest first, with their recorded
// values, so a workbench opened on an existing campaign rebuilds its state from events alone.
func (c *Campaign) replayHistory() {
	recs := c.journal.Records() // one copy: Records copies the whole journal
	for _, rec := range recs {
		switch rec.Type {
		case RecRunStart:
			c.Emit(RunStarted{Run: rec.Run, Arm: rec.Arm, Kind: rec.Kind, Repetition: rec.Index, CPUs: rec.CPUs, PID: rec.PID, At: rec.At})
		case RecRunEnd:
			c.emitEnd(rec, nil)
		case RecVerdict:
			c.Emit(StageVerdict{Stage: rec.Stage, Arm: rec.Arm, Verdict: rec.Verdict, Reason: rec.Reason})
		case RecBlocked:
			c.Emit(RowBlocked{Stage: rec.Stage, Reason: rec.Reason})
		case RecStale:
			c.Emit(ArtifactChanged{Arm: rec.Arm, Path: c.Pinned(rec.Arm).Source, OldSHA256: rec.OldSHA, NewSHA256: rec.NewSHA})
		}
		if f := RecordReplayers[rec.Type]; f != nil {
			f(c, rec)
		}
	}
	c.Emit(HistoryReplayed{Records: len(recs)})
}
