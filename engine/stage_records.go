package engine

import "time"

// The journal records each stage's start and end. A reader learns from them what a run was
// doing when it stopped and why (finished, stopped by the user, interrupted by a signal), and
// a follower (follow.go) shows another kvparity's stage as running for as long as it runs.
const (
	RecStageStart RecordType = "stage_start" // a stage started (Stage)
	RecStageEnd   RecordType = "stage_end"   // it ended (Stage; Reason: why it was cut short, "" when it finished)
)

// A StageRun is a stage as the journal records it.
type StageRun struct {
	Stage   Stage
	Started time.Time
	// Ended is zero while the stage runs (or when its kvparity died before recording its end).
	Ended time.Time
	// Interrupted says why the stage was cut short ("" when it finished, or still runs).
	Interrupted string
}

func init() {
	definePlainRecord(RecStageStart, (*History).foldStage, nil)
	definePlainRecord(RecStageEnd, (*History).foldStage, nil)
}

// foldStage folds a stage record into h.Stages.
func (h *History) foldStage(r *Record) {
	switch r.Type {
	case RecStageStart:
		h.Stages = append(h.Stages, StageRun{Stage: r.Stage, Started: r.At})
	case RecStageEnd:
		if n := len(h.Stages); n > 0 && h.Stages[n-1].Ended.IsZero() && h.Stages[n-1].Stage == r.Stage {
			h.Stages[n-1].Ended, h.Stages[n-1].Interrupted = r.At, r.Reason
		}
	}
}

// OpenStage is the last stage recorded as started and not ended (ok false when none is).
func (h *History) OpenStage() (StageRun, bool) {
	if n := len(h.Stages); n > 0 && h.Stages[n-1].Ended.IsZero() {
		return h.Stages[n-1], true
	}
	return StageRun{}, false
}
