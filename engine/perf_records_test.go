package engine

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"kvparity/engine/instrument"
)

func TestPinRecordsTheShippedSize(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := pinArtifact(t.TempDir(), Candidate, 1, ArmSpec{}, self)
	if err != nil {
		t.Fatal(err)
	}
	text, debug, _ := elfSizes(self)
	if p.ShippedSize != p.Size-debug || p.ShippedSize <= 0 || p.TextSize != text { // (go test links without DWARF: debug may be 0)
		t.Errorf("size %d shipped %d (debug %d) text %d", p.Size, p.ShippedSize, debug, p.TextSize)
	}
}

// The session telemetry rules where /sys has frequencies: the frequency floor and the
// frequency/ratio confounding check.
func TestTelemetryDiagnostics(t *testing.T) {
	s := &perfSeries{pairs: map[int]*PerfPair{}}
	tel := func(khz int64) *instrument.Telemetry { return &instrument.Telemetry{FreqKHz: khz} }
	for i := 1; i <= 20; i++ {
		b, c := RunID(fmt.Sprintf("b%d", i)), RunID(fmt.Sprintf("c%d", i))
		fb, fc := int64(3000000), int64(3000000+1000*(i%5))
		if i == 7 {
			fb = 2500000 // one slow sample: below 0.95 × median
		}
		s.samples = append(s.samples,
			PerfSample{Run: b, Env: instrument.SampleEnv{Before: tel(fb), After: tel(fb)}},
			PerfSample{Run: c, Env: instrument.SampleEnv{Before: tel(fc), After: tel(fc)}})
		// The ratio follows the candidate's frequency advantage exactly: confounded.
		s.pairs[i] = &PerfPair{Pair: i, BaselineRun: b, CandidateRun: c, Ratio: 1 + float64(i%5)/100}
	}
	ds := telemetryDiagnostics(s, 20)
	if len(ds) != 2 {
		t.Fatalf("diagnostics %+v", ds)
	}
	if ds[0].Name != "frequency floor" || !ds[0].Breached() || !strings.Contains(ds[0].Detail, "min 2500000 kHz") {
		t.Errorf("floor %+v", ds[0])
	}
	if !strings.HasPrefix(ds[1].Name, "frequency confounding") || !ds[1].Breached() {
		t.Errorf("confounding %+v", ds[1])
	}
	if got := telemetryDiagnostics(&perfSeries{pairs: map[int]*PerfPair{}}, 20); got != nil {
		t.Errorf("no telemetry gave %+v", got)
	}
}
