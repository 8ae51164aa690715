package perf

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"kvparity/engine"
	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
	"kvparity/stats"
)

// Exports of the performance stage, written to <campaign>/perf/ when a series ends:
//
//	result.json   the engine.PerfResult (every sample, ratio, diagnostic with threshold and outcome,
//	              bounds, verdict)
//	samples.json  every attempted process with its timing and environmental evidence
//	samples.txt   Go benchmark format, for benchstat and other golang.org/x/perf tools: each
//	              valid pair member as BenchmarkReplay/arm=<arm> in ns/op, each ratio as
//	              BenchmarkReplayRatio in the unit "ratio". `benchstat -col /arm samples.txt`
//	              compares the arms (unpaired: a magnitude cross-check only);
//	              `benchstat -confidence 0.90 samples.txt` prints the ratio median with the same
//	              X(24)/X(37) interval as the gate for 60 pairs.

func (p *perfRun) export(r *engine.PerfResult) error {
	dir := filepath.Join(p.c.Dir(), layout.DirPerf)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := engine.WriteJSONFile(filepath.Join(dir, "result.json"), r); err != nil {
		return err
	}
	if err := engine.WriteJSONFile(filepath.Join(dir, "samples.json"), samplesFile{Row: r.Row, Key: r.Key, Metric: r.Metric, Samples: r.Samples}); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := writePerfBench(&b, r); err != nil {
		return err
	}
	return atomicfile.Update(filepath.Join(dir, "samples.txt"), b.Bytes(), 0o644)
}

type samplesFile struct {
	Row     string              `json:"row"`
	Key     string              `json:"key"`
	Metric  string              `json:"metric"`
	Samples []engine.PerfSample `json:"samples"`
}

// writePerfBench writes the valid pairs in Go benchmark format. The benchmark name carries the
// metric, marked PROXY when the row declared one, so a proxy is never mistaken for the
// protocol's replay_execution_ms.
func writePerfBench(w io.Writer, r *engine.PerfResult) error {
	name := "Replay"
	if r.TimingProxy {
		name += "/metric=" + r.TimingField + "-PROXY"
	}
	config := [][2]string{
		{"kvparity-row", r.Row},
		{"kvparity-series", r.Key},
		{"kvparity-metric", r.Metric},
		{"kvparity-scope", r.Scope},
		{"kvparity-measured-cpu", strconv.Itoa(r.MeasuredCPU)},
	}
	var lines []stats.BenchLine
	for _, p := range r.Pairs {
		lines = append(lines,
			stats.BenchLine{Name: name + "/arm=baseline", Value: p.BaselineMs * 1e6, Unit: "ns/op"},
			stats.BenchLine{Name: name + "/arm=candidate", Value: p.CandidateMs * 1e6, Unit: "ns/op"})
	}
	for _, p := range r.Pairs {
		lines = append(lines, stats.BenchLine{Name: name + "Ratio", Value: p.Ratio, Unit: "ratio"})
	}
	units := []stats.BenchUnit{{Unit: "ns/op", Assume: "nothing", Better: "lower"}, {Unit: "ratio", Assume: "nothing", Better: "lower"}}
	return stats.WriteBench(w, config, units, lines)
}
