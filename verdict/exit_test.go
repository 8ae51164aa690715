package verdict

import (
	"syscall"
	"testing"
)

// The verdict statuses are 0, 1 and 2; the statuses that say no verdict was reached are none
// of them, so a usage error or kvparity's own failure never reads as a pass or a FAIL.
func TestExitStatusesAreDistinct(t *testing.T) {
	verdicts := map[int]bool{}
	for w := range known {
		verdicts[ExitCode(w)] = true
	}
	if len(verdicts) != 3 || !verdicts[ExitPass] || !verdicts[ExitFail] || !verdicts[ExitInconclusive] {
		t.Fatalf("the words map to statuses %v, want exactly ExitPass, ExitFail and ExitInconclusive", verdicts)
	}
	for name, code := range map[string]int{"ExitUsage": ExitUsage, "ExitError": ExitError, "ExitInterrupted(SIGINT)": ExitInterrupted(syscall.SIGINT)} {
		if verdicts[code] {
			t.Errorf("%s = %d is also a verdict's status", name, code)
		}
	}
	if ExitUsage == ExitError {
		t.Errorf("ExitUsage and ExitError are both %d", ExitUsage)
	}
	if got := ExitInterrupted(syscall.SIGINT); got != 130 {
		t.Errorf("ExitInterrupted(SIGINT) = %d, want the shell's 130", got)
	}
}
