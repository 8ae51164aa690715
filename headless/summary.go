package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/verdict"
)

// A Document is `kvparity run --json`: the shared schema's verdict fields (schema_version,
// kind "run", overall, semantic, performance, footprint, coverage, parity, determinism,
// blocked, exit_code), then the campaign's recorded summary (row, trace, arms with their runs
// and lifecycle evidence, the perf result, the determinism patch).
type Document struct {
	verdict.Document
	engine.Summary
}

// Write prints the document for people, or as indented JSON.
func (d Document) Write(w io.Writer, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(d)
	}
	d.print(w)
	return nil
}

// print writes the human summary: each arm's repetitions, then every verdict with its reason
// in the report's words.
func (d Document) print(w io.Writer) {
	s := d.Summary
	fmt.Fprintf(w, "row %s · trace %s (sha256 %.12s) · campaign %s\n", s.Row, s.Trace, s.TraceSHA256, s.Dir)
	if s.DeskBuild != "" {
		fmt.Fprintf(w, "%s: both arms built with the desk profile; the semantic verdicts carry over to the release build, speed and size do not\n", s.DeskBuild)
	}
	if p := s.Patch; p != nil {
		fmt.Fprintf(w, "determinism patch (both revisions) sha256 %s\n", p.SHA256)
	}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		a := s.Arms[arm]
		label := a.Revision
		if a.Variant != "" {
			label += " (" + a.Variant + ")"
		}
		fmt.Fprintf(w, "%-10s %-9s %s · artifact %.12s gen %d\n", arm, a.Verdict, label, a.SHA256, a.Gen)
		if p := a.Preflight; p != nil {
			fmt.Fprintf(w, "    preflight %s\n", campaignreport.PreflightText(*p))
		}
		for _, r := range a.Runs {
			switch {
			case r.Error != "":
				fmt.Fprintf(w, "    %-26s ✗ %s\n", r.Run, r.Error)
			default:
				fmt.Fprintf(w, "    %-26s %s  %.0f ms\n", r.Run, r.Digest, r.ElapsedMs)
			}
		}
		for _, p := range a.Perturbed {
			mark := "="
			switch {
			case p.Error != "":
				mark = "✗ " + p.Error
			case p.Differs:
				mark = "≠ plain digest"
			}
			fmt.Fprintf(w, "    %-26s %s  %s  (%s)\n", p.Run, p.Digest, mark, engine.JoinVariations(p.Variations))
		}
		if a.PerturbedNotRun != "" {
			fmt.Fprintf(w, "    perturbed repetitions %s\n", a.PerturbedNotRun)
		}
		if a.Verdict != verdict.Stable && a.Reason != "" {
			fmt.Fprintf(w, "    %s\n", a.Reason)
		}
	}
	v := d.Verdicts
	for _, line := range []struct {
		name string
		o    verdict.Outcome
	}{{"parity", v.Parity}, {"coverage", v.Coverage}, {"semantic", v.Semantic}, {"perf", v.Performance},
		{"footprint", v.Footprint}, {"overall", v.Overall}} {
		fmt.Fprintf(w, "%-10s %s", line.name, line.o.Verdict)
		if r := strings.TrimSuffix(line.o.Reason, "; "); r != "" {
			fmt.Fprintf(w, " — %s", r)
		}
		fmt.Fprintln(w)
	}
	for _, b := range v.Blocked {
		fmt.Fprintf(w, "blocked    %s\n", b)
	}
	if s.Perf != nil {
		fmt.Fprintln(w, "performance stage:")
		writePerfText(w, s.Perf)
	}
	fmt.Fprintf(w, "exit status %d\n", v.ExitCode)
}
