package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"kvparity/campaignreport"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

func init() {
	register("report", "write a campaign's report.md and report.json from its journal", reportCmd)
}

const reportUsage = `usage: kvparity report DIR

Writes DIR/report.md and DIR/report.json (and DIR/diffs/*.json when canonical reports differ)
from what the campaign recorded: journal, frozen row, host, artifacts, trace checksums, lifecycle
evidence, exception records. Nothing is rerun, and an unchanged campaign gives the same bytes.

exit status: 0 written, 3 usage or input error (the message names the file).
`

func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsage) }
	dir, code, ok := parseDirArgs(fs, args)
	if !ok {
		return code
	}
	r, err := campaignreport.WriteReport(dir)
	if err != nil {
		fmt.Fprintln(stderr, "kvparity report:", err)
		return verdict.ExitUsage
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	fmt.Fprintf(stdout, "%s\n%s\n", filepath.Join(dir, layout.FileReportMD), filepath.Join(dir, layout.FileReportJSON))
	fmt.Fprintf(stdout, "semantic %s · performance %s · footprint %s · overall %s (exit status of kvparity run --stage all: %d; --stage determinism, the semantic verdict alone: %d)\n",
		r.Semantic.Verdict, r.Performance.Verdict, r.Footprint.Verdict, r.Overall.Verdict, r.ExitCode, r.SemanticExitCode)
	return 0
}

// parseDirArgs parses the flags of a command that takes exactly one campaign DIR. When ok is
// false the command returns code: 0 for -h, 3 for a usage error (the usage was printed).
func parseDirArgs(fs *flag.FlagSet, args []string) (dir string, code int, ok bool) {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return "", flagExit(err), false
	}
	if len(pos) != 1 {
		fs.Usage()
		return "", 3, false
	}
	return pos[0], 0, true
}
