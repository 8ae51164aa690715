package mocker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvparity/report"
)

// timedWork runs a timed invocation (timings only, no report of any kind) and returns its
// timing line's work fingerprint.
func timedWork(t *testing.T, dir, trace string, args ...string) report.WorkFingerprint {
	t.Helper()
	timings := filepath.Join(dir, "timed.jsonl")
	if code, _, stderr := runMain(append([]string{trace, "--timings-jsonl", timings}, args...)...); code != 0 {
		t.Fatalf("timed run: exit %d: %s", code, stderr)
	}
	line, _ := os.ReadFile(timings)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	fp, err := report.ParseWorkFingerprint(m["work_fingerprint"], timings)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// canonicalWork runs a canonical invocation and computes the fingerprint kvparity computes from
// its canonical record.
func canonicalWork(t *testing.T, dir, trace string, args ...string) report.WorkFingerprint {
	t.Helper()
	canon := filepath.Join(dir, "canonical.jsonl")
	if code, _, stderr := runMain(append([]string{trace, "--canonical-reports-jsonl", canon}, args...)...); code != 0 {
		t.Fatalf("canonical run: exit %d: %s", code, stderr)
	}
	line, _ := os.ReadFile(canon)
	ev, err := report.ExtractEvidence(line, report.EvidenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Work == nil {
		t.Fatalf("no work fingerprint from the canonical record: %s", ev.WorkError)
	}
	return *ev.Work
}

// The embedded engine's timed runs do the canonical run's work, and the fingerprint sees it:
// aggregated and disaggregated, with pressure events, admissions and placements counted.
func TestTimedRunsWorkFingerprintEqualsTheCanonicalRuns(t *testing.T) {
	dir := t.TempDir()
	trace := genTrace(t, dir, 400, 11)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"agg", []string{"--num-workers", "3", "--num-gpu-blocks", "600"}},
		{"disagg", []string{"--serving-mode", "disagg", "--num-prefill-workers", "2", "--num-decode-workers", "2", "--num-gpu-blocks", "500"}},
	} {
		want := canonicalWork(t, dir, trace, c.args...)
		got := timedWork(t, dir, trace, c.args...)
		if d, differ := got.FirstDifference(want); differ {
			t.Errorf("%s: timed run differs from the canonical run: %s\ntimed     %s\ncanonical %s", c.name, d, got, want)
		}
		if want.Placements == 0 || want.Admissions <= want.Completed || want.PressureEvents == 0 {
			t.Errorf("%s: the fingerprint counts nothing: %s", c.name, want)
		}
		t.Logf("%s: %s", c.name, want)
	}
	// A variant whose duration carries wall-clock noise is other work each time: the timed
	// fingerprint names the field.
	want := canonicalWork(t, dir, trace, "--num-workers", "3", "--variant", "leak-wallclock")
	got := timedWork(t, dir, trace, "--num-workers", "3", "--variant", "leak-wallclock")
	if d, differ := got.FirstDifference(want); !differ || d.Field != "duration_ms" || !strings.Contains(d.String(), "not") {
		t.Errorf("leak-wallclock: want a duration_ms difference, got %v %v", d, differ)
	}
}

// The unseeded-timed variant is Dynamo's published harness: seeded only when it captures a
// canonical report. Its timed runs do other work than its canonical run, and the placement
// digest (or a total) says so.
func TestUnseededTimedRunsDoOtherWork(t *testing.T) {
	dir := t.TempDir()
	trace := genTrace(t, dir, 400, 11)
	args := []string{"--num-workers", "4", "--num-gpu-blocks", "4000", "--variant", "unseeded-timed"}
	want := canonicalWork(t, dir, trace, args...)
	if again := canonicalWork(t, dir, trace, args...); again != want {
		t.Fatalf("the canonical runs of unseeded-timed must stay seeded: %s vs %s", again, want)
	}
	got := timedWork(t, dir, trace, args...)
	if d, differ := got.FirstDifference(want); !differ {
		t.Fatalf("an unseeded timed run did the canonical run's work: %s", got)
	} else {
		t.Logf("first difference: %s", d)
	}
}

// BenchmarkWorkFingerprint prices the work fingerprint against the replay it describes, per
// golden row on the 5,000-request window: the fingerprint is computed after the timed region, and
// fingerprint/replay is its share of the replay loop's time (the bound: < 1% of the
// process outside the timed boundary, nothing inside it).
func BenchmarkWorkFingerprint(b *testing.B) {
	trace := traceWindow(b, b.TempDir(), 5000)
	for _, g := range goldenRows {
		b.Run(g.name, func(b *testing.B) {
			cfg, v, wl := prepared(b, g.rowArgs(trace))
			s := newSim(cfg, v, wl)
			loopStart := time.Now()
			s.run()
			loop := time.Since(loopStart)
			rep := s.finalize()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := rep.workFingerprint(); err != nil {
					b.Fatal(err)
				}
			}
			per := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(per)/float64(loop), "fingerprint/replay")
		})
	}
}
