package perf

import (
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/engine/enginetest"
)

func TestMain(m *testing.M) { enginetest.Main(m) }

// A gated sample's process runs one iteration and writes a timings file of its own, and no
// report output of any kind (stage_test.go checks the rest of a series' bookkeeping).
func TestSampleArgsTimeOnly(t *testing.T) {
	c, _ := enginetest.Open(t, enginetest.Row("", ""), filepath.Join(t.TempDir(), "campaign"))
	p := &perfRun{c: c.Host(), cpu: 0}
	args := p.sampleSpec("perf/pair-001-baseline", engine.Baseline, engine.KindSample, 1, 1).Args
	joined := strings.Join(args, " ")
	if !strings.Contains(joined, "--iterations 1 --timings-jsonl ") {
		t.Fatalf("sample args %v", args)
	}
	for _, banned := range []string{"--canonical-reports-jsonl", "--report-json", "--progress-file"} {
		if strings.Contains(joined, banned) {
			t.Fatalf("sample args carry %s: %v", banned, args)
		}
	}
}
