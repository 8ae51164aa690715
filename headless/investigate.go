package headless

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/engine/investigate"
	"kvparity/engine/run"
	"kvparity/verdict"
)

// Investigate runs protocol stage 7's investigation on the campaign in dir: it confirms
// equivalent semantic work first (the report's semantic verdict: byte-identical canonical
// reports, or differences every one explained by exception records), then profiles both arms
// and prints the differential profile. top bounds the functions and paths printed.
func Investigate(ctx context.Context, dir string, top int, stdout, stderr io.Writer) int {
	a, err := campaignreport.Assess(dir)
	if err != nil {
		fmt.Fprintln(stderr, "kvparity investigate:", err)
		return verdict.ExitUsage
	}
	equivalence, ok := a.EquivalentWork()
	if !ok {
		fmt.Fprintf(stderr, "kvparity investigate: %s: semantic %s (%s); profiling compares equivalent semantic work only (protocol stage 7): settle the semantic verdict first\n",
			dir, a.Semantic.Verdict, a.Semantic.Reason)
		return verdict.ExitInconclusive
	}
	c, err := engine.Open(dir, engine.Options{Warn: func(s string) { fmt.Fprintln(stderr, "warning:", s) }, Context: ctx})
	if err != nil {
		fmt.Fprintln(stderr, "kvparity investigate:", err)
		return verdict.ExitUsage
	}
	printed := make(chan struct{})
	started := time.Now()
	var done *engine.Investigation
	var blocked string
	go func() {
		defer close(printed)
		for ev := range c.Events() {
			switch ev := ev.(type) {
			case engine.RunStarted:
				if ev.Kind == engine.KindProfile && !ev.At.Before(started) {
					fmt.Fprintf(stderr, "  %-24s profiling on CPU %s (pid %d)\n", ev.Run, run.FormatCPUList(ev.CPUs), ev.PID)
				}
			case engine.RunFinished:
				if ev.Kind == engine.KindProfile && ev.Err == nil {
					fmt.Fprintf(stderr, "  %-24s done in %s\n", ev.Run, ev.Elapsed.Round(time.Millisecond))
				}
			case engine.InvestigationDone:
				done = ev.Investigation
			case engine.RowBlocked:
				blocked = ev.Reason
			}
		}
	}()
	if err := investigate.Start(c.Host(), equivalence); err != nil {
		c.Close()
		<-printed
		fmt.Fprintln(stderr, "kvparity investigate:", err)
		return verdict.ExitUsage
	}
	wait := make(chan struct{})
	go func() { c.Wait(); close(wait) }()
	select {
	case <-wait:
	case <-ctx.Done():
		c.StopStage()
		<-wait
	}
	c.Close()
	<-printed
	switch {
	case done != nil:
		printInvestigation(stdout, done, dir, top)
		return 0
	case blocked != "":
		fmt.Fprintln(stderr, "kvparity investigate:", blocked)
	default:
		fmt.Fprintln(stderr, "kvparity investigate: stopped before both arms were profiled")
	}
	return verdict.ExitInconclusive
}

// printInvestigation writes the differential profile for people: the largest self-time
// growth first, the call paths that grew, functions sampled only in the candidate, the
// `.text` growth by symbol, and how to reproduce it.
func printInvestigation(w io.Writer, inv *engine.Investigation, dir string, top int) {
	d := inv.Differential
	fmt.Fprintf(w, "profiler: %s\n%s\n", inv.Profiler, inv.Equivalence)
	fmt.Fprintf(w, "samples: baseline %d · candidate %d%s\n\n", d.BaselineSamples, d.CandidateSamples, inv.RoundsPhrase())
	fmt.Fprintf(w, "self time, largest growth first (share of each arm's samples):\n")
	fmt.Fprintf(w, "  %8s %8s %8s  %s\n", "baseline", "cand.", "delta", "function")
	for _, f := range d.Top(top) {
		only := ""
		if f.OnlyCandidate {
			only = "  (candidate only)"
		}
		fmt.Fprintf(w, "  %7.2f%% %7.2f%% %+7.2f%%  %s%s\n", 100*f.Baseline, 100*f.Candidate, 100*f.Delta, f.Function, only)
	}
	if n := len(d.Paths); n > 0 {
		fmt.Fprintf(w, "\ncall paths that grew (leaf ← callers):\n")
		for _, p := range d.Paths[:min(top, n)] {
			fmt.Fprintf(w, "  %+7.2f%%  %s\n", 100*p.Delta, p.Path)
		}
	}
	if g := inv.Text; g != nil {
		fmt.Fprintf(w, "\n.text by symbol: %d → %d bytes (%+d); %d symbol(s) only in the candidate, %d only in the baseline\n",
			g.BaselineBytes, g.CandidateBytes, g.CandidateBytes-g.BaselineBytes, g.OnlyCandidate, g.OnlyBaseline)
		for _, s := range g.Grown[:min(top, len(g.Grown))] {
			fmt.Fprintf(w, "  %+9d B  %s\n", s.Delta, s.Symbol)
		}
	}
	for _, warn := range inv.Warnings {
		fmt.Fprintln(w, "warning:", warn)
	}
	fmt.Fprintf(w, "\nkept: %s", filepath.Join(dir, engine.FileInvestigation))
	for _, r := range inv.Runs {
		fmt.Fprintf(w, ", %s", filepath.Join(dir, r.Data))
	}
	fmt.Fprintf(w, "\nreproduce:\n  %s\n", strings.Join(inv.Reproduce, "\n  "))
}
