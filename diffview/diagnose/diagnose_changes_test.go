package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	fx "kvparity/diffview/difftest"
)

// checkSignatureChanges holds every signature of d to the pointers it names: ascending,
// distinct indexes into d.Changes, as many as it explains (the unclassified remainder names
// none). mustDiff and releaseDiff run it, so every diagnosis the package's tests make is held
// to it.
func checkSignatureChanges(t *testing.T, d *Diff) {
	t.Helper()
	for _, s := range d.Diagnosis {
		if s.Code == SigUnclassified {
			if len(s.Changes) != 0 {
				t.Errorf("%s: the unclassified remainder names %d pointers, want none", s.String(), len(s.Changes))
			}
			continue
		}
		if len(s.Changes) != s.Explains {
			t.Errorf("%s (%s): names %d pointers, explains %d", s.String(), s.Code, len(s.Changes), s.Explains)
		}
		if !slices.IsSorted(s.Changes) || len(slices.Compact(slices.Clone(s.Changes))) != len(s.Changes) {
			t.Errorf("%s: pointers not ascending and distinct: %v", s.String(), s.Changes)
		}
		for _, i := range s.Changes {
			if i < 0 || i >= len(d.Changes) {
				t.Fatalf("%s: change %d outside the %d changes", s.String(), i, len(d.Changes))
			}
		}
	}
}

// mustDiff diffs and diagnoses two fixture reports, holding the diagnosis to its pointers.
func mustDiff(t *testing.T, a, b map[string]any) *Diff {
	t.Helper()
	d := fx.Diff(t, DiffBytes, a, b)
	checkSignatureChanges(t, d)
	return d
}

// Two causes in one diff: random uuids and a wall-clock reading on other fields. Each
// signature names its own pointers, and PatternsOf gives each cause only its fields, which
// no reading of the signature's words could tell apart (neither names a field the other
// lacks).
func TestSignaturesNameTheirPointers(t *testing.T) {
	a := fx.Report(12, 0)
	b := fx.Clone(a)
	for i, r := range fx.Get(b, "/per_request").([]any) {
		r.(map[string]any)["uuid"] = randomUUID()
		if i < 5 {
			fx.Set(a, fmt.Sprintf("/per_request/%d/dispatched_at_ms", i), fx.Num(1764405000123.25+float64(i)))
			fx.Set(b, fmt.Sprintf("/per_request/%d/dispatched_at_ms", i), fx.Num(1764405007456.5+float64(i)))
		}
	}
	d := mustDiff(t, a, b)
	drift, clock := signature(d, SigIDDrift), signature(d, SigWallClock)
	if drift == nil || clock == nil {
		t.Fatalf("want id drift and wall clock, got %v", d.Diagnosis)
	}
	for _, c := range []struct {
		s     *Signature
		field string
		n     int
	}{{drift, "uuid", 12}, {clock, "dispatched_at_ms", 5}} {
		if len(c.s.Changes) != c.n {
			t.Errorf("%s names %d pointers, want %d", c.s.Code, len(c.s.Changes), c.n)
		}
		for _, i := range c.s.Changes {
			if p := d.Changes[i].Pointer; !strings.HasSuffix(p, "/"+c.field) {
				t.Errorf("%s names %s, not a %s", c.s.Code, p, c.field)
			}
		}
		if got, want := d.PatternsOf(c.s.Changes), []string{"/per_request/*/" + c.field}; !slices.Equal(got, want) {
			t.Errorf("PatternsOf(%s) = %v, want %v", c.s.Code, got, want)
		}
	}
	if got := d.PatternsOf(nil); got != nil {
		t.Errorf("no pointers, yet patterns %v", got)
	}
	if u := d.Unexplained(); len(u) != 0 {
		t.Errorf("both causes name every pointer, yet %d are unexplained", len(u))
	}
}

// What no lens explains is what no signature names: the unclassified remainder's pointers.
func TestUnexplainedIsWhatNoSignatureNames(t *testing.T) {
	a := fx.Report(10, 0)
	b := fx.Clone(a)
	fx.NextULP(b, "/summary/mean_e2e_latency_ms")
	for i := 0; i < 6; i++ {
		fx.Set(b, fmt.Sprintf("/per_request/%d/output_length", i), fx.Num(float64(900+i)))
	}
	d := mustDiff(t, a, b)
	if signature(d, SigUnclassified) == nil || signature(d, SigFloatNoise) == nil {
		t.Fatalf("want float noise and an unclassified remainder, got %v", d.Diagnosis)
	}
	u := d.Unexplained()
	if len(u) != 6 {
		t.Fatalf("%d unexplained, want the 6 output lengths", len(u))
	}
	if got, want := d.PatternsOf(u), []string{"/per_request/*/output_length"}; !slices.Equal(got, want) {
		t.Errorf("PatternsOf(unexplained) = %v, want %v", got, want)
	}
}
