package matrix

import (
	"fmt"
	"io"
	"strings"
	"sync"

	schedule "kvparity/engine/matrix"
	"kvparity/verdict"
)

// Printer prints a row's line whenever it changes.
func Printer(w io.Writer) func([]schedule.RowStatus) {
	var mu sync.Mutex
	last := map[string]string{}
	return func(rows []schedule.RowStatus) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range rows {
			line := Line(s)
			if last[s.Row] != line {
				last[s.Row] = line
				fmt.Fprintln(w, line)
			}
		}
	}
}

// Line is one row in one line: node, job, stage progress and verdicts.
func Line(s schedule.RowStatus) string {
	parts := []string{fmt.Sprintf("%-16s", s.Row)}
	if s.Node != "" {
		parts = append(parts, "node "+s.Node)
	}
	if s.JobID != "" {
		parts = append(parts, fmt.Sprintf("job %s %s", s.JobID, s.JobState))
	}
	parts = append(parts, s.Progress())
	if v := verdictPhrase(s); v != "" {
		parts = append(parts, v)
	}
	if j := s.InstructionsJob; j != nil && j.JobID != "" {
		p := fmt.Sprintf("instructions job %s %s", j.JobID, j.JobState)
		if j.Node != "" {
			p += " on " + j.Node
		}
		parts = append(parts, p)
	}
	if s.Blocked != "" {
		parts = append(parts, s.Blocked)
	}
	return strings.Join(parts, " · ")
}

// verdictPhrase is the row's verdicts in one short phrase for the matrix line: the decided
// words once the row's report has them, else what its journal says so far.
func verdictPhrase(s schedule.RowStatus) string {
	if v := s.Verdicts; v != nil {
		p := "semantic " + v.Semantic.Verdict.String() + " · perf " + v.Performance.Verdict.String()
		if v.Footprint.Verdict == verdict.Fail {
			p += " · footprint FAIL"
		}
		return p + " · overall " + v.Overall.Verdict.String()
	}
	var parts []string
	if s.Parity.Decided() {
		parts = append(parts, "parity "+s.Parity.String())
	}
	if s.Perf.Decided() {
		parts = append(parts, "perf "+s.Perf.String())
	}
	if s.Footprint == verdict.Fail {
		parts = append(parts, "footprint FAIL")
	}
	if len(parts) == 0 && s.Blocked != "" {
		return verdict.Blocked.String()
	}
	return strings.Join(parts, " · ")
}
