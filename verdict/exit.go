package verdict

// Exit statuses of the headless commands (DESIGN "Verdicts").
const (
	ExitPass         = 0 // every verdict asked for passes (PASS_WITH_SEMANTIC_EXCEPTIONS included)
	ExitFail         = 1 // a FAIL or an UNSTABLE revision
	ExitInconclusive = 2 // INCONCLUSIVE, BLOCKED or not decided yet
	ExitUsage        = 3 // usage or input error: no verdict was reached
)

// ExitCode is the exit status for an overall word. It is the only verdict-to-exit table.
func ExitCode(overall Word) int {
	switch {
	case overall.Passes():
		return ExitPass
	case overall.Fails():
		return ExitFail
	}
	return ExitInconclusive
}
