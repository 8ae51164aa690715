package engine

import ()

// The diagnosis of an UNSTABLE arm's two differing repetitions, recorded so that its reason
// (in report.md, report.json, the exit reason and the status line alike) names the cause the
// diff found, never one guessed from how the repetitions ran.

// RecDiagnosis records Options.Diagnose's words for two differing repetitions of an arm
// (Arm, Gen, Runs: the two, Note: the words).
const RecDiagnosis RecordType = "instability_diagnosis"

type diagnosisKey struct {
	arm  Arm
	gen  int
	a, b RunID
}

// A stageBlock is one recorded block with its stage.
type stageBlock struct {
	stage  Stage
	reason string
}

func init() {
	definePlainRecord(RecDiagnosis, func(h *History, r *Record) {
		if len(r.Runs) == 2 {
			h.diagnoses[diagnosisKey{r.Arm, max(r.Gen, 1), r.Runs[0], r.Runs[1]}] = r.Note
		}
	}, nil)
}
