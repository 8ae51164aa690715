package main

import (
	"flag"
	"fmt"
	"io"

	"kvparity/headless"
)

func init() {
	register("investigate", "profile both arms of a campaign (perf stage 7) and print the differential profile", investigateCmd)
}

const investigateUsage = `usage: kvparity investigate DIR [--top N]

Protocol stage 7's investigation of a performance regression (after a perf FAIL, or on demand).
It first confirms equivalent semantic work (the campaign's semantic verdict is PASS, or
PASS_WITH_SEMANTIC_EXCEPTIONS: every difference explained by an exception record), then replays
the row once per arm under Linux perf (cpu-clock sampling with call graphs), one arm at a time on
the performance stage's measured CPU with identical settings, and prints:

  - self time by function in each arm and the delta, the largest growth first (functions
    sampled only in the candidate are marked: new code on the hot path);
  - the call paths whose share grew;
  - the .text growth by symbol, from the two binaries' symbol tables (nm).

Everything is kept in DIR/investigation/profile.json and DIR/runs/investigate/<arm>/perf.data
(kvparity clean keeps them); 'kvparity report DIR' fills the report's profiler findings from it.

exit status: 0 profiled, 2 not equivalent semantic work, stopped or a profiled replay failed,
3 usage or input error.
`

func investigateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("investigate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, investigateUsage) }
	top := fs.Int("top", 12, "functions, paths and symbols to print")
	dir, code, ok := parseDirArgs(fs, args)
	if !ok {
		return code
	}
	ctx, stop := interruptContext()
	defer stop()
	return headless.Investigate(ctx, dir, max(*top, 1), stdout, stderr)
}
