package headless

import (
	"fmt"
	"io"
	"time"

	"kvparity/driver"
	"kvparity/engine"
	"kvparity/engine/run"
)

// printProgress writes one stderr line per meaningful event; progress at most every 2 s a run.
func printProgress(events <-chan engine.Event, w io.Writer, verbose bool) {
	lastProgress := map[engine.RunID]time.Time{}
	rebuild := driver.BuildPrinter(w) // watch mode rebuilding a checkout arm
	live := false                     // events before HistoryReplayed were recorded by earlier sessions
	for ev := range events {
		if h, ok := ev.(engine.HistoryReplayed); ok {
			live = true
			if h.Records > 0 {
				fmt.Fprintf(w, "resuming: %d journal records; finished repetitions are not rerun\n", h.Records)
			}
			continue
		}
		if !live {
			continue
		}
		switch e := ev.(type) {
		case engine.BuildProgress:
			rebuild(e)
		case engine.RunStarted:
			fmt.Fprintf(w, "  %-28s started  pid %d · cpu %s\n", e.Run, e.PID, run.FormatCPUList(e.CPUs))
		case engine.RunProgress:
			if time.Since(lastProgress[e.Run]) < 2*time.Second {
				continue
			}
			lastProgress[e.Run] = time.Now()
			if e.Total > 0 {
				fmt.Fprintf(w, "  %-28s %3d%%     %d/%d requests · vt %.1f s · %s\n", e.Run, 100*e.Completed/e.Total, e.Completed, e.Total, e.VirtualTimeMs/1000, e.Elapsed.Round(100*time.Millisecond))
			} else {
				fmt.Fprintf(w, "  %-28s running  %s\n", e.Run, e.Elapsed.Round(time.Second))
			}
		case engine.RunFinished:
			if e.Err != nil {
				fmt.Fprintf(w, "  %-28s ✗ %v\n", e.Run, e.Err)
			} else {
				fmt.Fprintf(w, "  %-28s done     %s\n", e.Run, e.Elapsed.Round(10*time.Millisecond))
			}
		case engine.DigestReady:
			fp := ""
			if e.FixedPoint != "" {
				fp = " (harness output not canonical at " + e.FixedPoint + ")"
			}
			fmt.Fprintf(w, "  %-28s digest   %s%s\n", e.Run, e.Digest, fp)
		case engine.StageVerdict:
			who := string(e.Stage)
			if e.Arm != "" {
				who += " " + string(e.Arm)
			}
			fmt.Fprintf(w, "%s: %s — %s\n", who, e.Verdict, e.Reason)
		case engine.RowBlocked:
			fmt.Fprintf(w, "BLOCKED (%s): %s\n", e.Stage, e.Reason)
		case engine.ArtifactChanged:
			what := string(e.Arm)
			if what == "" {
				what = "row file"
			}
			fmt.Fprintf(w, "%s changed: %s sha256 %.12s → %.12s (re-pinned: %v)\n", what, e.Path, e.OldSHA256, e.NewSHA256, e.Repinned)
		case engine.PairDone, engine.SampleDone, engine.SampleInvalidated, engine.PerfSummary:
			if line := perfProgressLine(e); line != "" {
				fmt.Fprintln(w, line)
			}
		case engine.InstructionsDone:
			if e.Unavailable != "" {
				fmt.Fprintf(w, "instructions: not measured — %s\n", e.Unavailable)
			} else if e.Failed != "" {
				fmt.Fprintf(w, "instructions: not counted — %s (the instrument decides nothing)\n", e.Failed)
			} else if e.Result != nil {
				fmt.Fprintf(w, "instructions: %s\n", e.Result.Reason)
			}
		case engine.LogLine:
			if verbose {
				fmt.Fprintf(w, "  %-28s | %s\n", e.Run, e.Line)
			}
		}
	}
}
