package campaignreport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"kvparity/engine"
	"kvparity/internal/layout"
	"kvparity/report"
)

// armMetrics is one arm's product metrics (TTFT, ITL, end-to-end latency, throughput, reuse)
// as its counted repetitions' canonical summaries gave them: virtual-time figures of the
// replay, the same in every repetition of a STABLE arm. They are read from each repetition's
// runs/<id>/metrics.json, or from its full report while that is kept (a campaign recorded
// before metrics.json existed); Metrics is nil when neither is there ("not recorded").
type armMetrics struct {
	Arm engine.Arm `json:"arm"`
	// Run is the counted repetition Metrics is from (the first with metrics).
	Run engine.RunID `json:"run,omitempty"`
	// Recorded of Counted counted repetitions had metrics; Agree: all of those are the same.
	Recorded int             `json:"recorded"`
	Counted  int             `json:"counted"`
	Agree    bool            `json:"agree"`
	Metrics  *report.Metrics `json:"metrics"`
}

// armMetrics gathers both arms' metrics from their counted repetitions.
func (c *campaign) armMetrics(arms []armReport) ([]armMetrics, error) {
	out := []armMetrics{}
	for _, a := range arms {
		am := armMetrics{Arm: a.Arm, Agree: true}
		var first []byte
		for _, ri := range a.Runs {
			if ri.Status != statusCounted || ri.EndedAt == nil || ri.Digest == "" {
				continue
			}
			am.Counted++
			m, err := c.runMetrics(ri)
			if err != nil {
				return nil, err
			}
			if m == nil {
				continue
			}
			am.Recorded++
			js, _ := json.Marshal(m)
			if am.Metrics == nil {
				am.Metrics, am.Run, first = m, ri.Run, js
			} else if string(js) != string(first) {
				am.Agree = false
			}
		}
		out = append(out, am)
	}
	return out, nil
}

// runMetrics reads one repetition's metrics: its metrics.json, else its kept full report;
// nil, nil when neither exists. A malformed file is an error naming it.
func (c *campaign) runMetrics(ri RunInfo) (*report.Metrics, error) {
	rel := path.Join(layout.DirRuns, string(ri.Run), layout.FileRunMetrics)
	var m report.Metrics
	err := engine.ReadJSONFile(filepath.Join(c.dir, filepath.FromSlash(rel)), &m)
	if err == nil {
		if m.Summary == nil {
			m.Summary = map[string]float64{}
		}
		return &m, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if ri.reportPath == "" || !c.exists(ri.reportPath) {
		return nil, nil
	}
	full := filepath.Join(c.dir, filepath.FromSlash(ri.reportPath))
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, err
	}
	mm, err := report.ExtractMetrics(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", full, err)
	}
	return mm, nil
}

// loadPreflight is the last load preflight of the perf stage in words, "" when none ran.
func (c *campaign) loadPreflight() string {
	if l, ok := c.hist.LoadCheck(); ok {
		return "load preflight: " + l.Expectation()
	}
	return ""
}
