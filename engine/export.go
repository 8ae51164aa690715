package engine

import (
	"errors"
	"fmt"
)

var errNoPerf = errors.New("no performance result for the current artifacts")

// perfResult returns the recorded result of the current artifacts' series, or an error when the
// stage has not decided it yet.
func (c *Campaign) perfResult() (*PerfResult, error) {
	key := perfKey(c.Pinned(Baseline).Gen, c.Pinned(Candidate).Gen)
	s := c.history().perfSeries(key)
	if s.result == nil {
		return nil, fmt.Errorf("%w (series %s: %d of %d pairs)", errNoPerf, key, len(s.pairs), c.row.Perf.Pairs)
	}
	return s.result, nil
}
