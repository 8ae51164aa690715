package campaignreport_test

import (
	"encoding/json"
	"kvparity/engine/instrument"
	"kvparity/engine/journal"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/stats"

	"kvparity/verdict"
)

// parseReport decodes report.json as written.
func parseReport(t *testing.T, js []byte) *campaignreport.Report {
	t.Helper()
	var r campaignreport.Report
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatalf("report.json does not parse: %v", err)
	}
	if r.SchemaVersion != verdict.SchemaVersion || r.Kind != verdict.KindReport {
		t.Fatalf("report.json schema_version %d kind %q, want %d %q", r.SchemaVersion, r.Kind, verdict.SchemaVersion, verdict.KindReport)
	}
	return &r
}

// matchJournal checks every number of the report against the journal records it came from:
// the artifacts, every repetition attempt, the verdicts, every perf sample and pair, the bounds
// and the footprint.
func matchJournal(t *testing.T, dir string, r *campaignreport.Report) {
	t.Helper()
	recs, _, err := journal.Read[engine.Record](filepath.Join(dir, "journal.jsonl"), journal.RefuseDamage)
	if err != nil {
		t.Fatal(err)
	}
	if r.Journal.Records != len(recs) || r.Journal.LastSeq != recs[len(recs)-1].Seq {
		t.Errorf("journal: report says %d records up to seq %d, the journal has %d up to %d", r.Journal.Records, r.Journal.LastSeq, len(recs), recs[len(recs)-1].Seq)
	}
	latest := func(match func(engine.Record) bool) *engine.Record {
		var got *engine.Record
		for i := range recs {
			if match(recs[i]) {
				got = &recs[i]
			}
		}
		return got
	}
	for _, a := range r.Artifacts {
		pin := latest(func(x engine.Record) bool { return x.Type == engine.RecPinned && x.Arm == a.Arm && x.Gen == a.Gen })
		if pin == nil {
			t.Fatalf("artifact %s gen %d: no pinned record", a.Arm, a.Gen)
		}
		if pin.Artifact.SHA256 != a.SHA256 || pin.Artifact.Size != a.Size || pin.Artifact.TextSize != a.TextSize || !slices.Equal(pin.Artifact.Features, a.Features) {
			t.Errorf("artifact %s: report %s/%d/%d/%v, journal %s/%d/%d/%v", a.Arm, a.SHA256, a.Size, a.TextSize, a.Features,
				pin.Artifact.SHA256, pin.Artifact.Size, pin.Artifact.TextSize, pin.Artifact.Features)
		}
	}
	for _, a := range r.Arms {
		starts := 0
		for _, x := range recs {
			if x.Type == engine.RecRunStart && x.Kind == engine.KindRepetition && x.Arm == a.Arm {
				starts++
			}
		}
		if starts != len(a.Runs) {
			t.Errorf("%s: report lists %d repetition attempts, the journal started %d", a.Arm, len(a.Runs), starts)
		}
		for _, ri := range a.Runs {
			start := latest(func(x engine.Record) bool { return x.Type == engine.RecRunStart && x.Run == ri.Run })
			end := latest(func(x engine.Record) bool { return x.Type == engine.RecRunEnd && x.Run == ri.Run })
			if start == nil || end == nil {
				t.Fatalf("%s: no run_start/run_end in the journal", ri.Run)
			}
			if ri.Digest != end.Digest || ri.ElapsedMs != end.ElapsedMs || !slices.Equal(ri.CPUs, end.CPUs) ||
				ri.ExitCode != end.ExitCode || ri.Error != end.Error || ri.PID != end.PID || !ri.StartedAt.Equal(start.At) || !ri.EndedAt.Equal(end.At) {
				t.Errorf("%s: report %+v does not match run_end %+v", ri.Run, ri, *end)
			}
		}
		v := latest(func(x engine.Record) bool {
			return x.Type == engine.RecVerdict && x.Stage == engine.StageDeterminism && x.Arm == a.Arm
		})
		if v == nil || v.Verdict != a.Verdict || v.Reason != a.Reason {
			t.Errorf("%s verdict: report %s (%s), journal %+v", a.Arm, a.Verdict, a.Reason, v)
		}
	}
	if v := latest(func(x engine.Record) bool { return x.Type == engine.RecVerdict && x.Stage == engine.StageParity }); v == nil || v.Verdict != r.Parity.Verdict {
		t.Errorf("parity: report %s, journal %+v", r.Parity.Verdict, v)
	}
	matchPerf(t, dir, recs, r)
}

func matchPerf(t *testing.T, dir string, recs []engine.Record, r *campaignreport.Report) {
	t.Helper()
	var result *engine.PerfResult
	var footprint *instrument.FootprintResult
	pairs := map[int]engine.PerfPair{}
	samples := 0
	var recorded verdict.Word
	for _, x := range recs {
		switch {
		case x.Type == engine.RecPerfResult:
			var d struct {
				Result *engine.PerfResult `json:"result"`
			}
			json.Unmarshal(x.Data, &d)
			result = d.Result
		case x.Type == engine.RecPerfFootprint:
			footprint = &instrument.FootprintResult{}
			json.Unmarshal(x.Data, footprint)
		case x.Type == engine.RecPerfPair:
			var p engine.PerfPair
			json.Unmarshal(x.Data, &p)
			pairs[p.Pair] = p
		case x.Type == engine.RecRunEnd && (x.Kind == engine.KindSample || x.Kind == engine.KindWarmup):
			samples++
		case x.Type == engine.RecVerdict && x.Stage == engine.StagePerf:
			recorded = x.Verdict
		}
	}
	got := r.Performance.Result
	if (result == nil) != (got == nil) {
		t.Fatalf("perf result: journal has one: %v, report has one: %v", result != nil, got != nil)
	}
	if result == nil {
		// Not run, or stopped before a result (blocked by a noisy node): the report must not
		// claim a verdict.
		if r.Performance.Verdict.Decided() {
			t.Errorf("no perf result in the journal but the report says %s (%s)", r.Performance.Verdict, r.Performance.Status)
		}
		return
	}
	// The verdict is the result record's; the verdict record only announced it (and a kill
	// may have lost it).
	if r.Performance.Verdict != result.Verdict || got.Verdict != result.Verdict || (recorded.Decided() && recorded != result.Verdict) {
		t.Errorf("perf verdict: report %s/%s, journal result %s, announced %s", r.Performance.Verdict, got.Verdict, result.Verdict, recorded)
	}
	if len(got.Samples) != samples {
		t.Errorf("perf: report lists %d attempted samples, the journal ended %d", len(got.Samples), samples)
	}
	if len(got.Pairs) != len(pairs) {
		t.Errorf("perf: report lists %d pairs, the journal recorded %d", len(got.Pairs), len(pairs))
	}
	for _, p := range got.Pairs {
		j := pairs[p.Pair]
		if p.Ratio != j.Ratio || p.BaselineMs != j.BaselineMs || p.CandidateMs != j.CandidateMs || p.Order != j.Order {
			t.Errorf("pair %d: report %+v, journal %+v", p.Pair, p, j)
		}
		if p.Ratio != p.CandidateMs/p.BaselineMs {
			t.Errorf("pair %d: ratio %v is not candidate/baseline %v", p.Pair, p.Ratio, p.CandidateMs/p.BaselineMs)
		}
	}
	if got.Lower != result.Lower || got.Upper != result.Upper || got.Median != result.Median ||
		got.LowerOrder != result.LowerOrder || got.UpperOrder != result.UpperOrder {
		t.Errorf("bounds: report [%v X(%d), %v X(%d)] median %v, journal [%v X(%d), %v X(%d)] median %v",
			got.Lower, got.LowerOrder, got.Upper, got.UpperOrder, got.Median, result.Lower, result.LowerOrder, result.Upper, result.UpperOrder, result.Median)
	}
	if footprint == nil || r.Footprint.Result == nil || *footprint != *r.Footprint.Result || r.Footprint.Verdict != footprint.Verdict {
		t.Errorf("footprint: report %+v, journal %+v", r.Footprint.Result, footprint)
	}
	var sched struct {
		Schedule stats.Schedule `json:"schedule"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "schedule.json"))
	if err != nil || json.Unmarshal(data, &sched) != nil {
		t.Fatalf("schedule.json: %v", err)
	}
	if got.Schedule == nil || !slices.Equal(got.Schedule.Pairs, sched.Schedule.Pairs) || got.Schedule.Seed != sched.Schedule.Seed {
		t.Errorf("schedule: report %+v, schedule.json %+v", got.Schedule, sched.Schedule)
	}
}
