package engine

import "time"

// The journal records each stage's start and end. A reader learns from them what a run was
// doing when it stopped and why (finished, stopped by the user, interrupted by a signal), and
// a follower (follow.go) shows another kvparity's stage as running for as long as it runs.
const (
	recStageStart RecordType = "stage_start" // a stage started (Stage)
	RecStageEnd   RecordType = "stage_end"   // it ended (Stage; Reason: why it was cut short, "" when it finished)
)

// A recordedStage is a stage as the journal records it.
type recordedStage struct {
	stage   Stage
	started time.Time
	// ended is zero while the stage runs (or when its kvparity died before recording its end).
	ended time.Time
	// interrupted says why the stage was cut short ("" when it finished, or still runs).
	interrupted string
}

func init() {
	definePlainRecord(recStageStart, (*History).foldStage, nil)
	definePlainRecord(RecStageEnd, (*History).foldStage, nil)
}

// foldStage folds a stage record into h.Stages.
func (h *History) foldStage(r *Record) {
	switch r.Type {
	case recStageStart:
		h.stages = append(h.stages, recordedStage{stage: r.Stage, started: r.At})
	case RecStageEnd:
		if n := len(h.stages); n > 0 && h.stages[n-1].ended.IsZero() && h.stages[n-1].stage == r.Stage {
			h.stages[n-1].ended, h.stages[n-1].interrupted = r.At, r.Reason
		}
	}
}

// openStage is the last stage recorded as started and not ended (ok false when none is).
func (h *History) openStage() (recordedStage, bool) {
	if n := len(h.stages); n > 0 && h.stages[n-1].ended.IsZero() {
		return h.stages[n-1], true
	}
	return recordedStage{}, false
}
