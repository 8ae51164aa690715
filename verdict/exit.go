package verdict

import "syscall"

// Exit statuses of kvparity's commands (the table in docs/guide.md's "Headless mode and exit
// codes"). 0, 1 and 2 are verdicts, so CI can gate on them; every
// other status says that no verdict was reached, and why.
const (
	ExitPass         = 0 // every verdict asked for passes (PASS_WITH_SEMANTIC_EXCEPTIONS included), or a command without a verdict did its work
	ExitFail         = 1 // a FAIL or an UNSTABLE revision
	ExitInconclusive = 2 // INCONCLUSIVE, BLOCKED or not decided yet
	ExitUsage        = 3 // usage or input error: the message names the file, flag or field
	// ExitError: kvparity itself failed (the terminal, writing its output), not for the
	// input's sake. It is not ExitFail, so a broken run never reads as a regression.
	ExitError = 4
)

// ExitInterrupted is the status of a command a signal stopped: the shell's 128 + the signal's
// number, the status a script sees for a process that signal killed.
func ExitInterrupted(sig syscall.Signal) int { return 128 + int(sig) }

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
