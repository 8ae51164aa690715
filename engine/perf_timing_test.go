package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTiming(t *testing.T) {
	const path = "runs/perf/pair-001-baseline/timings.jsonl"
	good := `{"iteration":0,"replay_bench":true,"replay_execution_ms":1234.5,"wall_time_ms":1300.0,"extra":"tolerated"}` + "\n"
	if v, err := parseTiming([]byte(good), path, "replay_execution_ms"); err != nil || v != 1234.5 {
		t.Fatalf("good record: %v %v", v, err)
	}
	cases := []struct {
		name, data, field string
		blocked           bool
		want              string
	}{
		{"empty", "", "replay_execution_ms", false, "the file is empty"},
		{"torn", `{"replay_bench":true`, "replay_execution_ms", false, "line 1 is truncated"},
		{"two lines", good + good, "replay_execution_ms", false, "2 lines, expected exactly 1"},
		{"not json", "hello\n", "replay_execution_ms", false, "line 1: invalid character"},
		{"not an object", "[1,2]\n", "replay_execution_ms", false, "line 1: json: cannot unmarshal array"},
		{"bench missing", `{"replay_execution_ms":1}` + "\n", "replay_execution_ms", true, "/replay_bench is missing"},
		{"bench false", `{"replay_bench":false,"replay_execution_ms":1}` + "\n", "replay_execution_ms", true, "/replay_bench is false"},
		{"field missing", `{"replay_bench":true,"replay_call_ms":5,"wall_time_ms":6}` + "\n", "replay_execution_ms", true,
			"does not write replay_execution_ms; it writes replay_bench (not a number), replay_call_ms, wall_time_ms"},
		{"field a string", `{"replay_bench":true,"replay_execution_ms":"5"}` + "\n", "replay_execution_ms", true, `/replay_execution_ms is "5", not a number: the harness gives no usable replay_execution_ms`},
		{"field null", `{"replay_bench":true,"replay_execution_ms":null}` + "\n", "replay_execution_ms", true, "/replay_execution_ms is null, not a number"},
		{"field zero", `{"replay_bench":true,"replay_execution_ms":0}` + "\n", "replay_execution_ms", true, "/replay_execution_ms is 0, not a finite time > 0"},
		{"field negative", `{"replay_bench":true,"replay_execution_ms":-3}` + "\n", "replay_execution_ms", true, "/replay_execution_ms is -3, not a finite time > 0"},
	}
	for _, c := range cases {
		_, err := parseTiming([]byte(c.data), path, c.field)
		var tf *timingFault
		if !errors.As(err, &tf) {
			t.Errorf("%s: err %v is not a timing fault", c.name, err)
			continue
		}
		if tf.blocked != c.blocked || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: blocked=%v %q; want blocked=%v and %q naming the file", c.name, tf.blocked, err, c.blocked, c.want)
		}
	}
	if _, err := readTiming(t.TempDir()+"/none.jsonl", "replay_execution_ms"); err == nil || !strings.Contains(err.Error(), "wrote no timings file") {
		t.Errorf("missing file: %v", err)
	}
}

// An invalidation's causes, one per member, even when a member's reason holds "; " itself (the
// competing-load reason's limit does: the capture of a busy machine showed "/proc/stat)" as the
// dominant cause before).
func TestInvalidationCausesSplitByMember(t *testing.T) {
	reason := "perf/pair-002-baseline-a2: competing load on CPU 1: 70 ms of 480 ms busy was not the sample (limit 48 ms = max(10% of the 478 ms window, 30 ms); /proc/stat); " +
		"perf/pair-002-candidate-a2: competing load on CPU 1: 80 ms of 500 ms busy was not the sample (limit 50 ms = max(10% of the 501 ms window, 30 ms); /proc/stat)"
	if got := InvalidationCauses(reason); len(got) != 1 || got[0] != "competing load on CPU 1" {
		t.Fatalf("causes %q", got)
	}
	if got := InvalidationCauses("perf/pair-003-candidate-a1: thermal throttling during the sample: package +1; perf/pair-003-baseline-a1: competing load on CPU 1: 5 ms"); len(got) != 2 {
		t.Fatalf("causes %q", got)
	}
}

// An invalidation carries its causes from where each member's invalidity is known; one
// recorded before it did (reason only) has them read back from the reason on replay.
func TestInvalidationEventCarriesItsCauses(t *testing.T) {
	if c := invalidityCause("competing load on CPU 1: 70 ms of 480 ms busy (limit 48 ms = max(…); /proc/stat)"); c != "competing load on CPU 1" {
		t.Fatalf("cause %q", c)
	}
	ev := invalidatedEvent(PerfInvalidation{Pair: 2, Reason: "anything", Causes: []string{"thermal throttling during the sample"}})
	if len(ev.Causes) != 1 || ev.Causes[0] != "thermal throttling during the sample" {
		t.Fatalf("recorded causes %q", ev.Causes)
	}
	old := invalidatedEvent(PerfInvalidation{Pair: 2, Reason: "perf/pair-002-baseline: competing load on CPU 1: 5 ms; perf/pair-002-candidate: competing load on CPU 1: 6 ms"})
	if len(old.Causes) != 1 || old.Causes[0] != "competing load on CPU 1" {
		t.Fatalf("causes read back from an old record %q", old.Causes)
	}
}
