package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"

	"kvparity/campaignreport"
	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	"kvparity/verdict"
)

func init() {
	register("diff", "compare two canonical reports: groups, first divergence, diagnosis", runDiff)
}

const diffUsage = `usage: kvparity diff A.jsonl B.jsonl [--summary A.json B.json] [--json] [--all | --patterns] [--campaign DIR [--unstable]]
       kvparity diff --summary A.json B.json [--json] [--all | --patterns]
       kvparity diff --campaign DIR [--json] [--all | --patterns]

Compares two canonical reports: every differing pointer by group, the first divergence in
virtual time and the diagnosis. With --campaign DIR of a campaign (it has a journal.jsonl) the
semantic verdict printed is the campaign's, exactly as its report says it (stability, byte
parity, lifecycle evidence and its exception records); without A and B the campaign's own kept
baseline and candidate reports are compared. A DIR holding only an exceptions.jsonl judges this
diff on its own (--unstable: an arm is UNSTABLE). --patterns prints the field patterns instead
(array indices and ids wildcarded, e.g. /per_request/*/ttft_ms) with their counts, largest
first; the counts sum to the number of differing pointers, and each is a usable exception pattern.

A and B may also be Dynamo release replay outputs (python -m dynamo.replay): its --report-jsonl
per-request records, or its --report-json summary, told apart by their first value. --summary
A.json B.json adds each run's summary to its records (or compares the summaries alone); a run is
laid out as a canonical report holds it (/per_request, /summary), so the canonical profile's
exclusions apply to the summary's wall-clock fields.

exit status: 0 identical (with --campaign: the semantic verdict passes), 1 differing (FAIL),
2 not decided yet (a campaign still running), 3 usage or input error.
`

// runDiff is `kvparity diff`.
func runDiff(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("diff", flag.ContinueOnError)
	flags.SetOutput(stderr)
	asJSON := flags.Bool("json", false, "print the diff as JSON")
	campaign := flags.String("campaign", "", "campaign directory: the semantic verdict is the campaign's")
	unstable := flags.Bool("unstable", false, "with an exceptions-only --campaign DIR: an arm is UNSTABLE (the verdict is then FAIL)")
	all := flags.Bool("all", false, "print every change of every group (default: 20 per group)")
	patterns := flags.Bool("patterns", false, "print the field patterns with their counts, largest first")
	flags.Usage = func() { fmt.Fprint(stderr, diffUsage) }
	args, summaries, err := summaryArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "kvparity diff:", err)
		flags.Usage()
		return verdict.ExitUsage
	}
	pos, err := parseInterleaved(flags, args)
	if err != nil {
		return flagExit(err)
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "kvparity diff:", err)
		return verdict.ExitUsage
	}
	// writeFail: the diff was made but stdout refused it, kvparity's failure, not the input's.
	writeFail := func(err error) int {
		fmt.Fprintln(stderr, "kvparity diff:", err)
		return verdict.ExitError
	}
	isCampaign := *campaign != "" && campaignreport.IsCampaign(*campaign)
	// The campaign's report, built once (here, or by the semantic section when A and B are
	// given): its verdict is the one printed.
	var built *campaignreport.Report
	if len(pos) == 0 && isCampaign {
		r, err := campaignreport.Build(*campaign)
		if err != nil {
			return fail(err)
		}
		built = r
		d := r.Semantic.Diff
		if d == nil || d.A == "" || d.B == "" {
			// Nothing to compare (identical reports, or parity never reached): the campaign's
			// semantic verdict is still the answer.
			return printCampaignOnly(stdout, *asJSON, r.Parity, r.Verdicts().Semantic, len(r.Semantic.Exceptions))
		}
		pos = []string{filepath.Join(*campaign, filepath.FromSlash(d.A)), filepath.Join(*campaign, filepath.FromSlash(d.B))}
	}
	if summaries != nil && len(pos) == 0 {
		pos = []string{"", ""} // the summaries alone
	}
	if len(pos) != 2 {
		flags.Usage()
		return verdict.ExitUsage
	}
	var d *diagnose.Diff
	if summaries != nil {
		defer boundMemory(pos[0], pos[1], summaries[0], summaries[1])()
		d, err = diagnose.DiffRelease(diffview.ReleaseRun{Records: pos[0], Summary: summaries[0]}, diffview.ReleaseRun{Records: pos[1], Summary: summaries[1]})
	} else {
		defer boundMemory(pos[0], pos[1])()
		d, err = diagnose.DiffFiles(pos[0], pos[1])
	}
	if err != nil {
		return fail(err)
	}
	status := verdict.ExitPass
	if !d.Equal() {
		status = verdict.ExitFail
	}
	var sem *diagnose.JSONSemantic
	if *campaign != "" {
		if sem, err = campaignreport.DiffSemantic(*campaign, built, d.AllPointers(), *unstable); err != nil {
			return fail(err)
		}
		status = verdict.ExitCode(sem.Verdict)
	}
	if *patterns {
		return printPatterns(stdout, d.Diff, *asJSON, status, writeFail)
	}
	if *asJSON {
		r := d.Report()
		r.Semantic = sem
		if err := diagnose.WriteJSON(stdout, r); err != nil {
			return writeFail(err)
		}
		return status
	}
	per := 20
	if *all {
		per = 0
	}
	if err := diagnose.WriteText(stdout, d, per); err != nil {
		return writeFail(err)
	}
	if sem != nil {
		campaignreport.WriteDiffSemantic(stdout, sem, per)
	}
	return status
}

// summaryArgs takes "--summary A.json B.json" (or -summary, or --summary=A.json B.json) out
// of args: the flag names two files, one per run, which the flag package cannot take.
func summaryArgs(args []string) (rest []string, summaries []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), summaries, nil
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "summary" {
			rest = append(rest, a)
			continue
		}
		if summaries != nil {
			return nil, nil, errors.New("--summary given twice")
		}
		var files []string
		if hasVal {
			files = append(files, val)
		}
		for len(files) < 2 && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			files = append(files, args[i])
		}
		if len(files) != 2 || files[0] == "" || files[1] == "" {
			return nil, nil, errors.New("--summary takes two files: A's --report-json and B's")
		}
		summaries = files
	}
	return rest, summaries, nil
}

// printPatterns is --patterns: the field patterns and their counts, as text or JSON.
func printPatterns(w io.Writer, d *diffview.Diff, asJSON bool, status int, fail func(error) int) int {
	var err error
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(d.PatternsReport())
	} else {
		err = diffview.WritePatterns(w, d)
	}
	if err != nil {
		return fail(err)
	}
	return status
}

// printCampaignOnly answers `diff --campaign DIR` when the campaign kept no pair to compare.
func printCampaignOnly(w io.Writer, asJSON bool, parity, semantic verdict.Outcome, records int) int {
	sem := diagnose.JSONSemantic{Verdict: semantic.Verdict, Reason: semantic.Reason, Of: "campaign", Records: records, Uncovered: []string{}}
	if asJSON {
		r := diagnose.JSONReport{Equal: parity.Verdict == verdict.Pass, Pointers: []string{}, Semantic: &sem}
		if err := diagnose.WriteJSON(w, r); err != nil {
			return verdict.ExitError
		}
		return verdict.ExitCode(sem.Verdict)
	}
	fmt.Fprintf(w, "no baseline/candidate pair to compare: byte parity %s (%s)\n", parity.Verdict, parity.Reason)
	fmt.Fprintf(w, "\nsemantic verdict: %s (%d exception record(s))\n  the campaign's, as its report says: %s\n", sem.Verdict, records, sem.Reason)
	return verdict.ExitCode(sem.Verdict)
}

// diffMemoryPerInputByte is the soft heap limit of `kvparity diff` per byte of its two inputs.
// A diff's live heap is about 4.5 bytes per input byte on a real pair (the inputs themselves,
// their tapes, the changes); with the default GC pacing the heap peaks near twice that before
// each collection. The limit makes the collector run sooner instead (and return memory to the
// system), so the peak stays under 10x the inputs at a few percent more time on a real pair.
// Whatever differs, the text diff's live heap is bounded by the inputs, their tapes (20
// bytes per token: 10 per input byte at most, on a long array of one-digit numbers) and the
// changes held in detail (one per 64 input bytes, diffview's holdBytes). --json lists every
// differing pointer, so it also holds them all, as its output does.
const diffMemoryPerInputByte = 7

// boundMemory sets the process's soft memory limit from the size of the two reports, and
// raises it while the diff runs whenever the live heap nears it: a diff of millions of
// differences holds far more than its inputs, and a limit below the live heap would have the
// collector run back to back (minutes instead of seconds). The returned func stops the watch.
func boundMemory(paths ...string) (stop func()) {
	var n int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	limit := max(64<<20, diffMemoryPerInputByte*n)
	debug.SetMemoryLimit(limit)
	done := make(chan struct{})
	go func() {
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(live)
			if l := int64(live[0].Value.Uint64()); 10*l > 9*limit {
				limit = l + l/2 // half the live heap of headroom (GOGC=50), past the inputs' bound
				debug.SetMemoryLimit(limit)
			}
		}
	}()
	return func() { close(done) }
}
