package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"kvparity/engine/build"
	"kvparity/verdict"
)

func init() {
	register("trace", "add a local copy of a public trace to the trace cache (rows name such traces by address)", traceCmd)
}

const traceUsage = `usage: kvparity trace add FILE...

A row may name a public trace by its https:// address (for example a raw GitHub blob at a fixed
commit) with its [trace] sha256: kvparity downloads it once into the build cache
(KVPARITY_BUILD_CACHE/trace-files/SHA256.jsonl) and checks the checksum before keeping it. On a
machine without that network, 'trace add' puts a local copy there instead; every row whose
sha256 matches then reads it. The file is never changed, and nothing else is written.

exit status: 0 done, 3 usage error or a file that cannot be read, 4 the cache could not be written.
`

func traceCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, traceUsage) }
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) < 2 || pos[0] != "add" {
		fs.Usage()
		return verdict.ExitUsage
	}
	cache, err := build.DefaultCache()
	if err != nil {
		fmt.Fprintln(stderr, "kvparity trace:", err)
		return verdict.ExitUsage
	}
	for _, file := range pos[1:] {
		if _, err := os.Stat(file); err != nil {
			fmt.Fprintln(stderr, "kvparity trace add:", err)
			return verdict.ExitUsage
		}
		sum, kept, err := build.AddTrace(cache, file)
		if err != nil {
			fmt.Fprintln(stderr, "kvparity trace add:", err)
			return verdict.ExitError
		}
		fmt.Fprintf(stdout, "%s  %s → %s\n", sum, file, kept)
	}
	return 0
}
