package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/term"

	"kvparity/engine/qualify"
	"kvparity/engine/run"
	qualifydriver "kvparity/qualify"
	"kvparity/ui/qualifyview"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

func init() {
	register("qualify", "qualify a row's capacity on the pinned baseline (stage 3) and write the frozen row", qualifyCmd)
}

const qualifyUsage = `usage: kvparity qualify [ROW.toml | --row default|tiny] [--campaign DIR] [--flag F] [--seed N]
                        [--band MIN-MAX] [--step N] [--max-probes N] [--confirm N] [--probe-timeout D]
                        [--out FILE] [--json | --view]

Protocol stage 3, qualify and freeze. Starting from the row's capacity (--num-gpu-blocks, or
--seed), probes the capacity on the pinned baseline, each probe a separate process recorded in
the campaign journal (its pressure events, readmissions, completion and virtual-time progress),
toward the row's pressure band (declared [determinism] pressure_band, else 1–3 aggregated and
10–20 disaggregated, or --band). A probe with repeated preempt/readmit cycling, a growing count,
stalled virtual time, or requests never readmitted or completed is a flood: the search backs
off to more capacity. A probe that does not end within --probe-timeout (default 20× the slowest
finished probe, at least 1m) has stalled: pathological replay-loop growth, a wall the search
does not cross. It grows or shrinks by half until the band is bracketed, then
bisects on multiples of --step (default: the largest power of two at most a 32nd of the seed).
The chosen capacity is confirmed with --confirm fresh repetitions (default 3: with the probe,
four processes must give one digest), then the candidate runs once with exactly the same
configuration — never tuned separately; its count is reported, in the band or not.

Writes DIR/qualify/result.json (every probe) and, when qualified, DIR/qualify/row.toml: the row
file with the chosen capacity, the band declared and the probe table as a comment above [replay]
(and --out FILE, if given). A band no capacity reaches is said in those words with the nearest
probes; the band is never widened. Run again with the same --campaign to resume: recorded
probes are reused, not rerun. --view shows the probes live (the qualify view) and prints the
probe table when it closes; quitting it stops the search (the recorded probes are kept).

exit status: 0 qualified, 1 the chosen capacity is unstable or fails a rule capacity cannot fix,
2 the band was not reached, a probe failed or it was interrupted, 3 usage or input error.
`

func qualifyCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("qualify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, qualifyUsage) }
	dir := fs.String("campaign", "", "campaign directory (resumed when it has a journal)")
	builtin := fs.String("row", "", "a built-in row: default or tiny")
	capFlag := fs.String("flag", qualify.DefaultFlag, "the capacity flag in [replay] args")
	seed := fs.Int("seed", 0, "the first capacity (default: the row's value of --flag)")
	band := fs.String("band", "", "the pressure band MIN-MAX (default: the row's)")
	step := fs.Int("step", 0, "the probe grain in blocks (default: from the seed)")
	maxProbes := fs.Int("max-probes", 0, "search probes at most (default 20)")
	confirm := fs.Int("confirm", qualify.DefaultConfirmations, "fresh repetitions of the chosen capacity")
	probeTimeout := fs.Duration("probe-timeout", 0, "bound each probe (default: 20× the slowest finished probe, at least 1m; a probe past it has stalled)")
	out := fs.String("out", "", "also write the frozen row to FILE")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	cpuList := fs.String("cpus", "", "CPUs the probes may be pinned to (the first is used)")
	view := fs.Bool("view", false, "show the qualify view: the probes live, on a capacity ladder, then the outcome")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "kvparity qualify: "+format+"\n", a...)
		return verdict.ExitUsage
	}
	if len(pos) > 1 {
		return usageErr("one row file at most, got %q", pos)
	}
	o := qualifydriver.Options{Dir: *dir, JSON: *asJSON, Out: *out,
		Stage: qualify.Options{Flag: *capFlag, Seed: *seed, Step: *step, MaxProbes: *maxProbes, Confirmations: *confirm, ProbeTimeout: *probeTimeout}}
	if *band != "" {
		lo, hi, ok := strings.Cut(*band, "-")
		min, err1 := strconv.Atoi(lo)
		max, err2 := strconv.Atoi(hi)
		if !ok || err1 != nil || err2 != nil || min < 1 || max < min {
			return usageErr("--band %q: give MIN-MAX with 1 <= MIN <= MAX, e.g. 10-20", *band)
		}
		o.Stage.Band = qualify.Band{Min: min, Max: max}
	}
	for name, v := range map[string]int{"--seed": *seed, "--step": *step, "--max-probes": *maxProbes, "--confirm": *confirm} {
		if v < 0 {
			return usageErr("%s %d: must be >= 0", name, v)
		}
	}
	if o.Row, o.RowPath, err = loadRunRow(pos, *builtin); err != nil {
		return usageErr("%v", err)
	}
	if *cpuList != "" {
		if o.CPUs, err = run.ParseCPUList(*cpuList); err != nil || len(o.CPUs) == 0 {
			return usageErr("--cpus %q: %v", *cpuList, err)
		}
	}
	if *view && *asJSON {
		return usageErr("--view and --json exclude each other")
	}
	if *view && (!term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd())) {
		return usageErr("--view needs a terminal; without it qualify prints a line per probe (or --json)")
	}
	ctx, stop := interruptContext()
	defer stop()
	var code int
	if *view {
		code = runQualifyView(ctx, o, stdout, stderr)
	} else {
		code = qualifydriver.Run(ctx, o, stdout, stderr)
	}
	if sig, ok := interruptedExit(ctx); ok && code == verdict.ExitUsage {
		return sig
	}
	return code
}

// runQualifyView runs the qualification under the qualify view; its lines for people (stderr's
// and the probe table) are printed when the view closes: the screen is the view's meanwhile.
func runQualifyView(ctx context.Context, o qualifydriver.Options, stdout, stderr io.Writer) int {
	feed := qualifyview.NewFeed()
	o.Progress = feed.Publish
	m := qualifyview.New(theme.NewStyles(true, os.Getenv("NO_COLOR") != ""), feed)
	m.Standalone = true
	var out, errOut strings.Builder
	code := verdict.ExitInconclusive
	underView(ctx, m, "qualify", stderr, func(ctx context.Context) {
		code = qualifydriver.Run(ctx, o, &out, &errOut)
		feed.Finish(code)
	})
	io.WriteString(stderr, errOut.String())
	io.WriteString(stdout, out.String())
	return code
}
