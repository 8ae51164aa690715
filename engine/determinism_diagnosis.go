package engine

import (
	"path/filepath"
	"strings"

	"kvparity/verdict"
)

// The diagnosis of an UNSTABLE arm's two differing repetitions, recorded so that its reason
// (in report.md, report.json, the exit reason and the status line alike) names the cause the
// diff found, never one guessed from how the repetitions ran.

// recDiagnosis records Options.Diagnose's words for two differing repetitions of an arm
// (Arm, Gen, Runs: the two, Note: the words).
const recDiagnosis RecordType = "instability_diagnosis"

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
	definePlainRecord(recDiagnosis, func(h *History, r *Record) {
		if len(r.Runs) == 2 {
			h.diagnoses[diagnosisKey{r.Arm, max(r.Gen, 1), r.Runs[0], r.Runs[1]}] = r.Note
		}
	}, nil)
}

// diagnose records the diagnosis of an UNSTABLE arm's two differing repetitions once, when
// the campaign has a diagnoser and both full reports are there; it reports whether it
// recorded one (the arm's reason changes: decide it again).
func (c *Campaign) diagnose(h *History, res ArmResult) bool {
	if c.opts.Diagnose == nil || res.Verdict != verdict.Unstable || len(res.Perturbed) > 0 || len(res.Runs) < 2 {
		return false
	}
	a, b := res.Runs[0], differingRun(res)
	key := diagnosisKey{res.Arm, res.Gen, a, b}
	if _, ok := h.diagnoses[key]; ok {
		return false
	}
	var pa, pb string
	for _, e := range res.Ends {
		switch e.Run {
		case a:
			pa = e.ReportPath
		case b:
			pb = e.ReportPath
		}
	}
	if pa == "" || pb == "" {
		return false
	}
	words, err := c.opts.Diagnose(filepath.Join(c.dir, pa), filepath.Join(c.dir, pb))
	words = strings.TrimSpace(words)
	if err != nil || words == "" {
		return false
	}
	_, err = c.journal.Append(Record{Type: recDiagnosis, Arm: res.Arm, Gen: res.Gen, Runs: []RunID{a, b}, Note: words})
	return err == nil
}
