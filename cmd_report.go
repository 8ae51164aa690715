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

const reportUsage = `usage: kvparity report [--github] DIR
       (also: --image-base-url URL)

Writes DIR/report.md, DIR/report.json, DIR/summary.md (the report sized for a pull request) and
the plots DIR/plots/*.svg and *.png (and DIR/diffs/*.json when canonical reports differ) from what
the campaign recorded: journal, frozen row, host, artifacts, trace checksums, lifecycle evidence,
product metrics, exception records. Nothing is rerun, and an unchanged campaign gives the same
bytes. --github also appends the summary to the file $GITHUB_STEP_SUMMARY names (GitHub Actions'
job summary; the plots are named there, not shown); without the variable it says so and appends
nothing. summary.md draws its charts as Mermaid and text, and links no image file; with
--image-base-url URL (where you host the campaign folder, so that URL/plots/ratios.png is the
plot) it also shows the PNGs from there, as absolute links.

exit status: 0 written, 3 usage or input error, or a $GITHUB_STEP_SUMMARY that cannot be
appended to (the message names the file; the campaign's report is written all the same).
`

func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsage) }
	github := fs.Bool("github", false, "also append summary.md to $GITHUB_STEP_SUMMARY (GitHub Actions)")
	imageBase := fs.String("image-base-url", "", "show summary.md's plots from `URL`/plots/ (where you host the campaign folder)")
	dir, code, ok := parseDirArgs(fs, args)
	if !ok {
		return code
	}
	r, err := campaignreport.WriteReportWith(dir, campaignreport.Options{ImageBaseURL: *imageBase})
	if err != nil {
		fmt.Fprintln(stderr, "kvparity report:", err)
		return verdict.ExitUsage
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	fmt.Fprintf(stdout, "%s\n%s\n%s\n", filepath.Join(dir, layout.FileReportMD), filepath.Join(dir, layout.FileReportJSON), filepath.Join(dir, layout.FileSummaryMD))
	fmt.Fprintf(stdout, "semantic %s · performance %s · footprint %s · overall %s (exit status of kvparity run --stage all: %d; --stage determinism, the semantic verdict alone: %d)\n",
		r.Semantic.Verdict, r.Performance.Verdict, r.Footprint.Verdict, r.Overall.Verdict, r.ExitCode, r.SemanticExitCode)
	if *github {
		path, appended, err := campaignreport.AppendStepSummary(r)
		switch {
		case err != nil:
			fmt.Fprintln(stderr, "kvparity report --github:", err)
			return verdict.ExitUsage
		case appended:
			fmt.Fprintf(stdout, "summary appended to %s ($%s)\n", path, campaignreport.EnvStepSummary)
		default:
			fmt.Fprintf(stderr, "kvparity report --github: $%s is not set (not under GitHub Actions): nothing appended\n", campaignreport.EnvStepSummary)
		}
	}
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
		return "", verdict.ExitUsage, false
	}
	return pos[0], 0, true
}
