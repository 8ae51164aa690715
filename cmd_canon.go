package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"kvparity/report"
	"kvparity/verdict"
)

func init() {
	register("canon", "canonicalize a canonical-reports JSONL file and print each line's digest", runCanon)
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// runCanon: `kvparity canon FILE [--write OUT] [--exclude PTR]... [--unordered PTR=KEY]...`.
// Exit 0 when every line canonicalized and shows replay_bench true, 2 when one does not show
// it (the row would be blocked), 3 on usage or input errors.
func runCanon(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("canon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	write := fs.String("write", "", "write the canonical bytes of every line to `OUT`")
	work := fs.Bool("work", false, "also print each line's work fingerprint (what a timed run of the same work must write)")
	var excludes, unordered repeated
	fs.Var(&excludes, "exclude", "exclusion `POINTER` (RFC 6901); repeatable; when given, replaces the default list")
	fs.Var(&unordered, "unordered", "unordered array `POINTER=KEY`; repeatable; when given, replaces /per_request=uuid")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kvparity canon FILE [--write OUT] [--work] [--exclude PTR]... [--unordered PTR=KEY]...")
		fmt.Fprintln(stderr, "\nPrints the canonical SHA-256 digest of each line of a canonical-reports JSONL file,")
		fmt.Fprintln(stderr, "whether the harness's line was already canonical (else the first pointer that is not),")
		fmt.Fprintln(stderr, "and whether metadata.replay_bench is true. Default profile: exclusions")
		fmt.Fprintln(stderr, "  "+strings.Join(report.DefaultProfile().Exclusions, " "))
		fmt.Fprintln(stderr, "and /per_request sorted by uuid.")
		fs.PrintDefaults()
	}
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "kvparity canon: want exactly one FILE, got %d\n", len(files))
		fs.Usage()
		return verdict.ExitUsage
	}
	p := report.DefaultProfile()
	if len(excludes) > 0 {
		p.Exclusions = excludes
	}
	if len(unordered) > 0 {
		p.Unordered = map[string]string{}
		for _, u := range unordered {
			ptr, key, ok := strings.Cut(u, "=")
			if !ok {
				fmt.Fprintf(stderr, "kvparity canon: --unordered %q: want POINTER=KEY\n", u)
				return verdict.ExitUsage
			}
			p.Unordered[ptr] = key
		}
	}
	if err := p.Validate(); err != nil {
		fmt.Fprintf(stderr, "kvparity canon: %v\n", err)
		return verdict.ExitUsage
	}
	recs, err := report.CheckFile(files[0], p)
	if err != nil {
		fmt.Fprintf(stderr, "kvparity canon: %v\n", err)
		return verdict.ExitUsage
	}
	status := verdict.ExitPass
	var all []byte
	for _, r := range recs {
		fixed := "yes"
		if r.FixedPoint != "" {
			fixed = "NO, first difference at " + r.FixedPoint
		}
		bench := "true"
		if err := report.CheckReplayBench(r.Canonical); err != nil {
			bench = "NOT TRUE (" + err.Error() + ")"
			status = verdict.ExitInconclusive
		}
		fmt.Fprintf(stdout, "%s:%d sha256 %s  bytes %d  fixed point: %s  replay_bench: %s\n",
			files[0], r.Line, r.Digest, len(r.Canonical), fixed, bench)
		if *work {
			ev, err := report.ExtractEvidence(r.Canonical, report.EvidenceOptions{})
			switch {
			case err != nil:
				fmt.Fprintf(stdout, "%s:%d work: %v\n", files[0], r.Line, err)
			case ev.Work == nil:
				fmt.Fprintf(stdout, "%s:%d work: %s\n", files[0], r.Line, ev.WorkError)
			default:
				fmt.Fprintf(stdout, "%s:%d work %s\n", files[0], r.Line, ev.Work)
			}
		}
		if *write != "" {
			all = append(all, r.Canonical...)
		}
	}
	if len(recs) > 1 {
		distinct := map[string]bool{}
		for _, r := range recs {
			distinct[r.Digest] = true
		}
		fmt.Fprintf(stdout, "%d lines, %d distinct digest(s)\n", len(recs), len(distinct))
	}
	if *write != "" {
		if err := os.WriteFile(*write, all, 0o644); err != nil {
			fmt.Fprintf(stderr, "kvparity canon: --write: %v\n", err)
			return verdict.ExitUsage
		}
	}
	if status != verdict.ExitPass {
		fmt.Fprintln(stderr, "kvparity canon: metadata.replay_bench is not true: the seeded routing contract was not active (row blocked)")
	}
	return status
}
