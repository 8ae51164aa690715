package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"kvparity/report"
	"kvparity/verdict"
)

func init() {
	register("gen-trace", "write a generated multi-turn conversation trace (Mooncake JSONL)", runGenTrace)
}

// runGenTrace: kvparity gen-trace --requests N --seed S [-o FILE]
func runGenTrace(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen-trace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	requests := fs.Int("requests", 5000, fmt.Sprintf("number of requests (rows) to write, at most %d", report.MaxGeneratedRequests))
	seed := fs.Int64("seed", 7, "generator seed; the same seed always gives the same bytes")
	out := fs.String("o", "", "output file (default: stdout)")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gen-trace: unexpected argument %q\n", fs.Arg(0))
		return verdict.ExitUsage
	}
	if *requests < 0 || *requests > report.MaxGeneratedRequests {
		fmt.Fprintf(stderr, "gen-trace: --requests %d is out of bounds: must be 0..%d, the largest generated trace kvparity accepts\n", *requests, report.MaxGeneratedRequests)
		return verdict.ExitUsage
	}
	w := stdout
	var f *os.File
	if *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
			fmt.Fprintf(stderr, "gen-trace: %v\n", err)
			return verdict.ExitUsage
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	err := report.GenerateConversationTrace(bw, *requests, *seed)
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "gen-trace: %v\n", err)
		return verdict.ExitError
	}
	return 0
}
