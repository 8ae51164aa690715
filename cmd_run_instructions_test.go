package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvparity/e2e"
)

// The instruction counts are a secondary measure on every surface: `run --stage instructions`
// counts each arm's timed region under callgrind in separate processes, --json, report.json,
// report.md and summary.md give the same counts and ratio, and no verdict changes with them.
func TestInstructionCountsOnEverySurface(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity and counts a tiny row's replays under valgrind")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("valgrind is missing under CI (.ci/run installs it)")
		}
		t.Skip("valgrind is not installed")
	}
	bin := e2e.Binary(t)
	rows := t.TempDir()
	for _, tc := range []struct {
		variant string
		explain bool
	}{{"", false}, {"slowdown-30", true}} {
		t.Run("candidate="+tc.variant, func(t *testing.T) {
			row := writeTinyRow(t, rows, "instr"+tc.variant, tc.variant)
			dir := filepath.Join(t.TempDir(), "c")
			code, out, errOut := e2e.Run(t, bin, 10*time.Minute, "run", row, "--stage", "instructions", "--campaign", dir, "--json")
			s := decodeSummary(t, out)
			in := s.Instructions
			if in == nil {
				t.Fatalf("exit %d: no instruction counts\n%s", code, errOut)
			}
			if len(in.Baseline.Counts) != 3 || len(in.Candidate.Counts) != 3 || in.Baseline.Median == 0 || !strings.HasPrefix(in.Tool, "valgrind-") {
				t.Fatalf("counts %+v", in)
			}
			if in.Explain != tc.explain {
				t.Fatalf("ratio %.4f explain %v, want %v", in.Ratio, in.Explain, tc.explain)
			}
			if tc.variant == "" && (in.Ratio < 0.99 || in.Ratio > 1.01 || in.Spread > 0.01) {
				t.Errorf("A/A ratio %.4f spread %.4f: the count is not deterministic enough", in.Ratio, in.Spread)
			}
			// The counts decide nothing: the exit status is the semantic verdict's.
			if code != 0 {
				t.Errorf("exit %d, want the semantic PASS's 0\n%s", code, errOut)
			}
			if !strings.Contains(errOut, "instructions: instruction count ratio ") {
				t.Errorf("stderr does not say the result:\n%s", errOut)
			}
			if code, _, errOut := e2e.Run(t, bin, time.Minute, "report", dir); code != 0 {
				t.Fatalf("report: exit %d\n%s", code, errOut)
			}
			var rep struct {
				Instructions *struct {
					Ratio    float64 `json:"ratio"`
					Baseline struct {
						Counts []uint64 `json:"counts"`
					} `json:"baseline"`
				} `json:"instructions"`
			}
			b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
			if err := json.Unmarshal(b, &rep); err != nil || rep.Instructions == nil || rep.Instructions.Ratio != in.Ratio || len(rep.Instructions.Baseline.Counts) != 3 {
				t.Fatalf("report.json instructions %+v (%v), --json ratio %v", rep.Instructions, err, in.Ratio)
			}
			md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
			if !strings.Contains(string(md), "## Instruction counts (secondary, deterministic; never a verdict)") || !strings.Contains(string(md), in.Reason) {
				t.Errorf("report.md lacks the section or its reason %q", in.Reason)
			}
			sum, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
			if !strings.Contains(string(sum), "instructions (secondary, deterministic; decides nothing): ratio ") {
				t.Errorf("summary.md lacks the instructions line:\n%s", sum)
			}
			if tc.explain && !strings.Contains(string(sum), "explain the added work") {
				t.Errorf("summary.md does not flag the growth:\n%s", sum)
			}
		})
	}
}
