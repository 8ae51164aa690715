package campaignreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kvparity/engine"
	"kvparity/internal/layout"
	"kvparity/report"
)

// The matrix report's evidence (stage 4 asks every row of the matrix for it): each row's trace
// window and, per arm, every stage-3 rule its lifecycle evidence was judged by — overlap-
// sensitive routing, immediate placement, bounded pressure, handoffs, terminal cleanup — read
// from the row's own report.json, so the matrix says what the rows' reports say.

// MatrixRowEvidence is one row's window and its arms' rules.
type MatrixRowEvidence struct {
	Window string        `json:"window"` // source[offset:offset+count] · window SHA-256
	Arms   []ArmEvidence `json:"arms"`
}

// ArmEvidence is one arm's rules, from its first counted repetition with evidence.
type ArmEvidence struct {
	Arm      engine.Arm    `json:"arm"`
	Run      engine.RunID  `json:"run,omitempty"`
	Pressure string        `json:"pressure,omitempty"` // "14 retractions, band 10–20"
	Rules    []report.Rule `json:"rules"`
}

// rowEvidence reads a row's report.json for its evidence (nil while the row has no report).
func rowEvidence(rowDir string) *MatrixRowEvidence {
	data, err := os.ReadFile(filepath.Join(rowDir, layout.FileReportJSON))
	if err != nil {
		return nil
	}
	var r struct {
		Trace traceInfo   `json:"trace"`
		Arms  []armReport `json:"arms"`
	}
	if json.Unmarshal(data, &r) != nil {
		return nil
	}
	ev := &MatrixRowEvidence{Window: r.Trace.Spec}
	if r.Trace.WindowSHA256 != "" {
		ev.Window += " · window SHA-256 " + r.Trace.WindowSHA256
	}
	for _, a := range r.Arms {
		ae := ArmEvidence{Arm: a.Arm, Run: a.EvidenceRun}
		if e := a.Evidence; e != nil {
			ae.Rules = e.Rules
			ae.Pressure = fmt.Sprintf("%d %s, band %d–%d", e.PressureTotal(), e.PressureKind(), e.PressureBand[0], e.PressureBand[1])
		}
		ev.Arms = append(ev.Arms, ae)
	}
	return ev
}

// evidenceMarkdown is the matrix report's evidence section: one table per row, a line per rule.
func (rep MatrixReport) evidenceMarkdown(b *bytes.Buffer) {
	any := false
	for _, r := range rep.Rows {
		any = any || r.Evidence != nil
	}
	if !any {
		return
	}
	b.WriteString("\n## Lifecycle evidence\n\n")
	b.WriteString("Every stage-3 rule on each arm's first counted repetition, as the row's report.json has it.\n")
	for _, r := range rep.Rows {
		ev := r.Evidence
		if ev == nil {
			continue
		}
		fmt.Fprintf(b, "\n### %s\n\nWindow: %s\n\n", mdText(r.Row), mdCode(orDash(ev.Window)))
		b.WriteString("| rule |")
		for _, a := range ev.Arms {
			fmt.Fprintf(b, " %s |", a.Arm)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(ev.Arms)) + "\n")
		var names []string
		for _, a := range ev.Arms {
			for _, rule := range a.Rules {
				if !slices.Contains(names, rule.Name) {
					names = append(names, rule.Name)
				}
			}
		}
		for _, name := range names {
			fmt.Fprintf(b, "| %s |", mdText(name))
			for _, a := range ev.Arms {
				cellText := "—"
				for _, rule := range a.Rules {
					if rule.Name == name {
						word := "PASS"
						if !rule.Passed {
							word = "FAIL"
						}
						cellText = word + ": " + rule.Why
					}
				}
				fmt.Fprintf(b, " %s |", mdCell(cellText))
			}
			b.WriteString("\n")
		}
	}
}
