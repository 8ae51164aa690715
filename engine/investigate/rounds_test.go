package investigate

import (
	"testing"
	"time"
)

// A short replay is profiled in enough rounds for each arm to reach minReplay of replay,
// never more than maxRounds.
func TestRoundsForReachesTheSamplesItCan(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		d    time.Duration
		want int
	}{{0, maxRounds}, {3000 * ms, 1}, {2000 * ms, 1}, {1999 * ms, 2}, {1100 * ms, 2}, {150 * ms, 14}, {50 * ms, maxRounds}} {
		if got := roundsFor(c.d); got != c.want {
			t.Errorf("roundsFor(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}
