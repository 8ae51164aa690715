package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"kvparity/diffview"
	"kvparity/diffview/difftest"
)

// repetitionPair diffs two runs of one synthetic report, B edited by edit, diagnosed both as two
// repetitions of one build and as two builds.
func repetitionPair(t *testing.T, edit func(b map[string]any)) (reps, builds *Diff) {
	t.Helper()
	a := difftest.Report(40, 0)
	b := difftest.Clone(a)
	edit(b)
	d := difftest.Diff(t, diffview.DiffBytes, a, b)
	return OfRepetitions(d), Of(d)
}

// Issue 41 item 4: seed 000's fixed build first diverges by a ~15 ns move of first_admit_ms
// before any decision differs. Between two repetitions of one build that is entropy (real time
// or executor order leaking into virtual time), with the move's size, never "the engine's
// timing model changed".
func TestRepetitionsSubMicrosecondMoveIsEntropy(t *testing.T) {
	reps, builds := repetitionPair(t, func(b map[string]any) {
		difftest.Shift(b, "/per_request/5/first_admit_ms", 1.5e-5)
	})
	s := reps.Diagnosis[0]
	if s.Code != SigEntropy || !strings.Contains(s.Label, "timings moved by less than a microsecond") || !strings.Contains(s.Label, "two runs of one build") {
		t.Fatalf("repetitions: first cause %s %q, want entropy of a sub-microsecond move", s.Code, s.Label)
	}
	ev := strings.Join(s.Evidence, "\n")
	for _, want := range []string{"first_admit_ms", "(a move of 15 ns)", "real time or executor order leaking into virtual time", "nothing changed between them but entropy"} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence lacks %q:\n%s", want, ev)
		}
	}
	for _, sig := range reps.Diagnosis {
		if strings.Contains(sig.Label+strings.Join(sig.Evidence, " "), "timing model changed") {
			t.Errorf("a pair of repetitions reads as a timing model that changed: %v", sig)
		}
	}
	if signature(builds, SigEntropy) != nil {
		t.Errorf("two builds' diff names entropy: %v", builds.Diagnosis)
	}
}

// The reverted build first diverges in decode_reused_input_tokens (2560 → 0): a reuse count that
// differs between repetitions is the order events were applied in.
func TestRepetitionsReuseCountIsEventOrder(t *testing.T) {
	reps, _ := repetitionPair(t, func(b map[string]any) {
		difftest.Set(b, "/per_request/7/decode_reused_input_tokens", difftest.Int(2560))
	})
	s := reps.Diagnosis[0]
	if s.Code != SigEntropy || !strings.Contains(s.Label, "a reuse count differs") {
		t.Fatalf("first cause %s %q, want entropy of a reuse count", s.Code, s.Label)
	}
	ev := strings.Join(s.Evidence, "\n")
	if !strings.Contains(ev, "1 reuse count(s) differ (the first: decode_reused_input_tokens of request "+difftest.UUID(7)+", 0 → 2560)") || !strings.Contains(ev, "event order") {
		t.Errorf("evidence:\n%s", ev)
	}
	if s.Explains != 1 || s.Of != 1 {
		t.Errorf("explains %d/%d, want 1/1", s.Explains, s.Of)
	}
}

// Seed 000's own symptom (decode admissions moved by whole 0.123076 ms transfer quanta) between
// two repetitions of one build: the quantum is named as always, and what it is — a step taken
// late in one run, decided by entropy — is said beside it; between two builds it is not.
func TestRepetitionsQuantumIsAStepTakenLateByEntropy(t *testing.T) {
	reps, builds := repetitionPair(t, func(b map[string]any) {
		for i, k := range map[int]int{7: 1, 19: 2, 23: 1, 30: 3, 31: 1} {
			for _, f := range []string{"decode_admit_ms", "destination_activated_ms", "terminal_time_ms", "last_token_ms", "e2e_latency_ms"} {
				difftest.Shift(b, fmt.Sprintf("/per_request/%d/%s", i, f), float64(k)*0.123076)
			}
		}
	})
	for _, c := range []struct {
		d    *Diff
		want bool
	}{{reps, true}, {builds, false}} {
		s := signature(c.d, SigQuantum)
		if s == nil || c.d.Diagnosis[0].Code != SigQuantum {
			t.Fatalf("repetitions %v: quantum not first: %v", c.want, c.d.Diagnosis)
		}
		if got := strings.HasSuffix(s.Label, repetitionQuantumLabel); got != c.want {
			t.Errorf("repetitions %v: label %q", c.want, s.Label)
		}
		if got := slices.Contains(s.Evidence, repetitionQuantum); got != c.want {
			t.Errorf("repetitions %v: the entropy sentence is there: %v\n%s", c.want, got, strings.Join(s.Evidence, "\n"))
		}
	}
}
