package engine

import (
	"testing"
)

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

// An invalidation carries its causes (engine/perf reads each member's from its invalidity); one
// recorded before it did (reason only) has them read back from the reason on replay.
func TestInvalidationEventCarriesItsCauses(t *testing.T) {
	ev := InvalidatedEvent(PerfInvalidation{Pair: 2, Reason: "anything", Causes: []string{"thermal throttling during the sample"}})
	if len(ev.Causes) != 1 || ev.Causes[0] != "thermal throttling during the sample" {
		t.Fatalf("recorded causes %q", ev.Causes)
	}
	old := InvalidatedEvent(PerfInvalidation{Pair: 2, Reason: "perf/pair-002-baseline: competing load on CPU 1: 5 ms; perf/pair-002-candidate: competing load on CPU 1: 6 ms"})
	if len(old.Causes) != 1 || old.Causes[0] != "competing load on CPU 1" {
		t.Fatalf("causes read back from an old record %q", old.Causes)
	}
}

// The final summary carries the telemetry status of the result it is made from (engine/perf's
// stage test checks that a decided series' result has one).
func TestFinalSummaryCarriesTelemetry(t *testing.T) {
	for _, status := range []string{"available", "unavailable"} {
		if sum := FinalSummary(&PerfResult{Telemetry: status}, TinyRow("", "")); sum.telemetry != status {
			t.Errorf("final summary telemetry %q, want %q", sum.telemetry, status)
		}
	}
}
