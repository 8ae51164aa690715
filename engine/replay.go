package engine

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
		h.add(rec).replay(c, h)
	}
	c.emit(HistoryReplayed{Records: len(recs)})
}

// replay publishes on c the events a folded record stands for (its definition's replay,
// records.go), h being the history up to it.
func (f folded) replay(c *Campaign, h *History) {
	if applies(f.kind, f.data) && f.kind.replay != nil {
		f.kind.replay(c, h, f.rec, f.data)
	}
}
