package qualify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"kvparity/driver"
	"kvparity/engine"
	stage "kvparity/engine/qualify"
	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// Options is one `kvparity qualify`.
type Options struct {
	Row     *engine.Row
	RowPath string // the row file: its text is what the frozen row keeps ("" for a built-in row)
	Dir     string
	CPUs    []int
	Stage   stage.Options // the search's own settings
	JSON    bool
	Out     string // also write the frozen row here (the user's explicit choice)
	// Progress hears the qualification as it goes (the qualify view); nil prints a line per
	// probe on stderr.
	Progress func(Progress)
}

// Progress is one step of a qualification: its settings (Start), a probe process
// starting (Running), a probe ended (Probe), or its result, recorded (Result).
type Progress struct {
	Row     string
	Start   *stage.Result
	Running *engine.RunStarted
	Probe   *stage.Probe
	Result  *stage.Result
}

// Run runs stage 3's qualification in a campaign of the row (the shared step, driver.Run),
// writes qualify/result.json and (when qualified) qualify/row.toml, prints the probe table and
// returns the exit status: 0 qualified, 1 the chosen capacity is unstable or fails a rule, 2
// not reached, interrupted or a failed probe, 3 usage or input error.
func Run(ctx context.Context, o Options, stdout, stderr io.Writer) int {
	var (
		row    string
		res    stage.Result
		runErr error
		start  time.Time
		ended  = -1 // the exit status when the stage ended without a result
	)
	progress := o.Progress
	ready := make(chan struct{}) // row and progress are set: the events may be handed over
	k := driver.Campaign{Row: o.Row, Report: driver.None,
		Options: engine.Options{Dir: o.Dir, RowPath: o.RowPath, CPUs: o.CPUs, Warn: func(s string) { fmt.Fprintln(stderr, "warning:", s) },
			BuildProgress: driver.BuildPrinter(stderr), Context: ctx},
		// The campaign's events: a probe starting is the view's "probing …".
		Pump: func(events <-chan engine.Event) {
			<-ready
			for ev := range events {
				if rs, ok := ev.(engine.RunStarted); ok && rs.Kind == engine.KindProbe {
					progress(Progress{Row: row, Running: &rs})
				}
			}
		},
	}
	k.Stages = func(c *engine.Campaign) error {
		info := c.Info()
		row = info.Row
		if progress == nil {
			fmt.Fprintf(stderr, "kvparity qualify: row %s · trace %s · campaign %s · baseline %s\n", info.Row, info.TraceSpec, info.Dir, c.Pinned(engine.Baseline).Path)
			n := 0
			progress = func(p Progress) {
				if pr := p.Probe; pr != nil {
					n++
					fmt.Fprintf(stderr, "  probe %2d  %-9s %-9s %s %-6d → %s\n", n, pr.Arm, pr.Purpose, pr.Flag, pr.Capacity, probeWords(*pr))
				}
			}
		}
		close(ready)
		so := o.Stage
		so.OnStart = func(r stage.Result) { progress(Progress{Row: info.Row, Start: &r}) }
		so.OnProbe = func(p stage.Probe) { progress(Progress{Row: info.Row, Probe: &p}) }
		start = time.Now()
		if err := c.StartStage(engine.StageQualify, func(sctx context.Context) bool {
			res, runErr = stage.Run(sctx, c.Host(), so)
			return sctx.Err() != nil
		}); err != nil {
			fmt.Fprintf(stderr, "kvparity qualify: %v\n", err)
			ended = verdict.ExitUsage
			return nil
		}
		if err := c.WaitContext(ctx); err != nil {
			fmt.Fprintf(stderr, "kvparity qualify: interrupted (%v); the recorded probes are kept and reused when it runs again\n", err)
			ended = verdict.ExitInconclusive
			return nil
		}
		if runErr != nil {
			fmt.Fprintf(stderr, "kvparity qualify: %v\n", runErr)
			ended = verdict.ExitUsage
			return nil
		}
		if res.Outcome == "" {
			fmt.Fprintf(stderr, "kvparity qualify: the stage was blocked: %s\n", c.History().QualifyBlock())
			ended = verdict.ExitInconclusive
		}
		return nil
	}
	dir, _, err := driver.Run(ctx, k)
	if err != nil {
		fmt.Fprintf(stderr, "kvparity qualify: %v\n", err)
		return verdict.ExitUsage
	}
	if ended >= 0 {
		return ended
	}
	if err := writeQualification(dir, o, res); err != nil {
		fmt.Fprintf(stderr, "kvparity qualify: %v\n", err)
		return verdict.ExitError
	}
	progress(Progress{Row: row, Result: &res})
	fmt.Fprintf(stderr, "kvparity qualify: %s in %s\n", res.Outcome, time.Since(start).Round(100*time.Millisecond))
	if o.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return verdict.ExitError
		}
	} else {
		writeProbeTable(stdout, res, dir, o.Out)
	}
	switch res.Outcome {
	case stage.Qualified:
		return verdict.ExitPass
	case stage.Unstable, stage.RuleFailed:
		return verdict.ExitFail
	}
	return verdict.ExitInconclusive
}

// writeQualification keeps the result and, when qualified, the frozen row in the campaign
// (and at --out).
func writeQualification(dir string, o Options, res stage.Result) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(layout.FileQualifyResult)), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Update(filepath.Join(dir, layout.FileQualifyResult), append(data, '\n'), 0o644); err != nil {
		return err
	}
	if res.Outcome != stage.Qualified {
		return nil
	}
	file := filepath.Join(dir, layout.FileRow) // a built-in row: the campaign's encoded copy
	if o.RowPath != "" {
		file = o.RowPath
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	base := o.Row.Baseline.Source
	if base == "" {
		base = o.Row.Baseline.Binary
	}
	about := fmt.Sprintf("on the pinned baseline (%s), %s", base, time.Now().UTC().Format("2006-01-02"))
	frozen, err := stage.Freeze(text, file, res, about)
	if err != nil {
		return err
	}
	if err := atomicfile.Update(filepath.Join(dir, layout.FileQualifiedRow), frozen, 0o644); err != nil {
		return err
	}
	if o.Out != "" {
		return atomicfile.Update(o.Out, frozen, 0o644)
	}
	return nil
}

// probeWords is one probe's outcome in a line.
func probeWords(p stage.Probe) string {
	el := time.Duration(p.ElapsedMs * float64(time.Millisecond)).Round(10 * time.Millisecond)
	reused := ""
	if p.Reused {
		reused = " (recorded)"
	}
	switch p.Class {
	case stage.Broken:
		return fmt.Sprintf("failed: %s%s", p.Why, reused)
	case stage.Flood:
		return fmt.Sprintf("%d %s: flood (%s) · %s%s", p.Count, p.Kind, p.Why, el, reused)
	}
	return fmt.Sprintf("%d %s (%s) · digest %s · %s%s", p.Count, p.Kind, p.Class, shortDigest(p.Digest), el, reused)
}

// writeProbeTable prints the probes by capacity and the outcome.
func writeProbeTable(w io.Writer, res stage.Result, dir, out string) {
	fmt.Fprintf(w, "%s: %s\n\n", res.Outcome, res.Why)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "purpose\tarm\t%s\tpressure\tclass\treadmitted\tcompleted\tvirtual end (ms)\tdigest\n", strings.TrimLeft(res.Flag, "-"))
	rows := append(append(append([]stage.Probe{}, res.Search...), res.Edges...), res.Confirm...)
	if res.Candidate != nil {
		rows = append(rows, *res.Candidate)
	}
	for _, p := range rows {
		readm, done, end := "-", "-", "-"
		if l := p.Lifecycle; l != nil {
			readm = fmt.Sprintf("%d/%d", l.Readmitted, p.Count)
			done = fmt.Sprintf("%d/%d", l.Completed, l.Requests)
			end = fmt.Sprintf("%.1f", l.VirtualEndMs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", p.Purpose, p.Arm, p.Capacity, p.Count, p.Class, readm, done, end, shortDigest(p.Digest))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nrecorded: %s\n", filepath.Join(dir, layout.FileQualifyResult))
	if res.Outcome == stage.Qualified {
		fmt.Fprintf(w, "frozen row: %s\n", filepath.Join(dir, layout.FileQualifiedRow))
		if out != "" {
			fmt.Fprintf(w, "frozen row: %s\n", out)
		}
	}
}

func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}
