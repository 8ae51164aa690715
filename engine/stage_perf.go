package engine

import (
	"fmt"

	"kvparity/verdict"
)

// PerfAllowed says why the performance stage may not run yet (nil when it may): both arms must
// be STABLE on their current, non-stale artifacts.
func (host campaignHost) PerfAllowed() error {
	if host.c.row.Desk() {
		return ErrDeskBuild
	}
	h := host.c.History()
	for _, arm := range []Arm{Baseline, Candidate} {
		if host.c.Pinned(arm).Stale {
			return fmt.Errorf("the %s artifact changed since it was pinned: rerun the determinism stage first", arm)
		}
		res := host.ArmResult(h, arm)
		switch res.Verdict {
		case verdict.Stable:
		case verdict.Undecided:
			return fmt.Errorf("determinism of %s is not finished: run the determinism stage first", arm)
		default:
			return fmt.Errorf("performance refused: %s is %s (%s)", arm, res.Verdict, res.Reason)
		}
	}
	return nil
}
