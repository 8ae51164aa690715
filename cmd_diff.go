package main

import (
	"flag"
	"fmt"
	"io"

	"kvparity/diffview"
)

func init() {
	register("diff", "compare two canonical reports: groups, first divergence, diagnosis", runDiff)
}

// runDiff is `kvparity diff A B [--json] [--campaign DIR [--unstable]] [--all]`.
// Exit status: 0 identical (or PASS_WITH_SEMANTIC_EXCEPTIONS with --campaign), 1 differing
// (FAIL), 3 usage or input error.
func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the diff as JSON")
	campaign := fs.String("campaign", "", "campaign directory: judge the diff against its exceptions.jsonl")
	unstable := fs.Bool("unstable", false, "with --campaign: an arm is UNSTABLE (the verdict is then FAIL)")
	all := fs.Bool("all", false, "print every change of every group (default: 20 per group)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kvparity diff A.jsonl B.jsonl [--json] [--campaign DIR [--unstable]] [--all]")
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 2 {
		fs.Usage()
		return 3
	}
	d, err := diffview.DiffFiles(pos[0], pos[1])
	if err != nil {
		fmt.Fprintln(stderr, "kvparity diff:", err)
		return 3
	}
	status := 0
	if !d.Equal() {
		status = 1
	}
	var sem *diffview.JSONSemantic
	if *campaign != "" {
		recs, err := diffview.LoadExceptions(*campaign)
		if err != nil {
			fmt.Fprintln(stderr, "kvparity diff:", err)
			return 3
		}
		v, unc := diffview.SemanticVerdict(d, recs, *unstable)
		sem = &diffview.JSONSemantic{Verdict: v, Records: len(recs), Uncovered: unc}
		if sem.Uncovered == nil {
			sem.Uncovered = []string{}
		}
		status = 0
		if v == diffview.VerdictFail {
			status = 1
		}
	}
	if *asJSON {
		r := d.Report()
		r.Semantic = sem
		if err := diffview.WriteJSON(stdout, r); err != nil {
			fmt.Fprintln(stderr, "kvparity diff:", err)
			return 3
		}
		return status
	}
	per := 20
	if *all {
		per = 0
	}
	if err := diffview.WriteText(stdout, d, per); err != nil {
		fmt.Fprintln(stderr, "kvparity diff:", err)
		return 3
	}
	if sem != nil {
		fmt.Fprintf(stdout, "\nsemantic verdict: %s (%d exception record(s))\n", sem.Verdict, sem.Records)
		for _, p := range sem.Uncovered {
			fmt.Fprintf(stdout, "  uncovered %s\n", p)
		}
	}
	return status
}
