package corpus

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	fx "kvparity/diffview/difftest"
)

// testBase is difftest's disaggregated report with ties made where real runs have them:
// three requests arriving at one time.
func testBase(t *testing.T) base {
	t.Helper()
	m := fx.Report(60, 6)
	reqs := m["per_request"].([]any)
	at := reqs[20].(map[string]any)["arrival_time_ms"]
	for _, i := range []int{21, 22} {
		r := reqs[i].(map[string]any)
		for _, k := range []string{"arrival_time_ms", "first_admit_ms", "prefill_admit_ms"} {
			r[k] = at
		}
		r["admission_history"].([]any)[0].(map[string]any)["at_ms"] = at
	}
	b, err := newBase("fixture", fx.Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// run makes one case of the named variant on the test base.
func run(t *testing.T, b *base, family, name string, seed int64) (mutationCase, *reportTree, *reportTree) {
	t.Helper()
	for _, v := range variants() {
		if v.family != family || v.name != name {
			continue
		}
		c, err := makeCase(&v, b, seed)
		if err != nil {
			t.Fatalf("%s/%s: %v", family, name, err)
		}
		if c.Problem != "" {
			t.Fatalf("%s/%s: %s", family, name, c.Problem)
		}
		a, err := decode(c.ReportA)
		if err != nil {
			t.Fatal(err)
		}
		bb, err := decode(c.ReportB)
		if err != nil {
			t.Fatal(err)
		}
		return c, a, bb
	}
	t.Fatalf("no variant %s/%s", family, name)
	return mutationCase{}, nil, nil
}

// without is an element's canonical bytes with some members left out.
func without(e map[string]any, drop ...string) string {
	c := cloneValue(e).(map[string]any)
	for _, k := range drop {
		delete(c, k)
	}
	return string(appendValue(nil, c))
}

// groups keys elements by a time member: for each time, the sorted multiset of elements.
func groups(es []map[string]any, timeKey string, drop ...string) map[string][]string {
	out := map[string][]string{}
	for _, e := range es {
		k := string(appendValue(nil, e[timeKey]))
		out[k] = append(out[k], without(e, drop...))
	}
	for _, g := range out {
		sort.Strings(g)
	}
	return out
}

func TestTieOrderKeepsEveryEqualTimeGroup(t *testing.T) {
	b := testBase(t)
	for _, name := range []string{"pressure-pair", "pressure-triple"} {
		for seed := int64(1); seed <= 5; seed++ {
			_, a, bb := run(t, &b, "tie-order", name, seed)
			pa, pb := a.Pressure(), bb.Pressure()
			for i := range pa {
				if !sameValue(pa[i]["at_ms"], pb[i]["at_ms"]) {
					t.Fatalf("%s: record %d moved in time", name, i)
				}
				if o, _ := intOf(pb[i]["pressure_ordinal"]); o != i {
					t.Fatalf("%s: B's ordinals are not renumbered in order: record %d has %d", name, i, o)
				}
			}
			ga, gb := groups(pa, "at_ms", "pressure_ordinal"), groups(pb, "at_ms", "pressure_ordinal")
			for k := range ga {
				if !slices.Equal(ga[k], gb[k]) {
					t.Fatalf("%s: the group at %s ms holds other events", name, k)
				}
			}
			// References follow: each victim still names the record that is its own.
			for _, r := range bb.Requests() {
				for _, o := range asArray(r["pressure_record_ordinals"]) {
					k, _ := intOf(o)
					if pb[k]["request_uuid"] != r["uuid"] {
						t.Fatalf("%s: %s references record %d of %s", name, r["uuid"], k, pb[k]["request_uuid"])
					}
				}
			}
		}
	}
	for _, name := range []string{"arrival-uuids", "arrival-uuids-rotate"} {
		c, a, bb := run(t, &b, "tie-order", name, 3)
		ga, gb := groups(a.Requests(), "arrival_time_ms", "uuid"), groups(bb.Requests(), "arrival_time_ms", "uuid")
		for k := range ga {
			if !slices.Equal(ga[k], gb[k]) {
				t.Fatalf("%s: the requests arriving at %s ms differ beyond their uuids", name, k)
			}
		}
		ua, ub := uuids(a), uuids(bb)
		if !slices.Equal(ua, ub) {
			t.Fatalf("%s: the set of uuids changed", name)
		}
		if c.First == nil || c.First.AtMs == nil || *c.First.AtMs != 210 {
			t.Fatalf("%s: first divergence %s, want the tie at 210 ms", name, describeFirst(c.First))
		}
	}
}

func uuids(r *reportTree) []string {
	var us []string
	for _, q := range r.Requests() {
		us = append(us, uuidOf(q))
	}
	sort.Strings(us)
	return us
}

func TestIDDriftIsABijection(t *testing.T) {
	b := testBase(t)
	for _, name := range []string{"uuid-v4", "uuid-v4-subset", "uuid-counter-offset"} {
		_, a, bb := run(t, &b, "id-drift", name, 7)
		byA := map[string]map[string]any{}
		for _, r := range a.Requests() {
			byA[uuidOf(r)] = r
		}
		seen := map[string]bool{}
		renamed := map[string]string{} // A → B
		for _, r := range bb.Requests() {
			u := uuidOf(r)
			if seen[u] {
				t.Fatalf("%s: B uuid %s twice", name, u)
			}
			seen[u] = true
			var orig map[string]any
			if o, ok := byA[u]; ok && without(o, "uuid") == without(r, "uuid") {
				orig = o
			}
			for au, o := range byA {
				if orig == nil && without(o, "uuid") == without(r, "uuid") && renamed[au] == "" && au != u {
					orig, renamed[au] = o, u
				}
			}
			if orig == nil {
				t.Fatalf("%s: B's %s is no A request renamed", name, u)
			}
			if name != "uuid-counter-offset" && uuidOf(orig) != u && !isV4(u) {
				t.Fatalf("%s: %s is not a UUIDv4", name, u)
			}
		}
		if len(seen) != len(byA) {
			t.Fatalf("%s: %d requests in B, %d in A", name, len(seen), len(byA))
		}
		for i, p := range bb.Pressure() {
			au := a.Pressure()[i]["request_uuid"].(string)
			want := au
			if nu, ok := renamed[au]; ok {
				want = nu
			}
			if p["request_uuid"] != want {
				t.Fatalf("%s: pressure record %d names %s, want %s (the reference follows the renaming)", name, i, p["request_uuid"], want)
			}
		}
	}
	// Workers: one consistent permutation of the pool's workers.
	_, a, bb := run(t, &b, "id-drift", "worker-relabel", 7)
	pool := widestPool(&b)
	m := map[string]string{}
	back := map[string]string{}
	ra, rb := a.Requests(), bb.Requests()
	for i := range ra {
		for k, e := range routing(ra[i]) {
			if e["pool"] != pool {
				continue
			}
			x, y := string(appendValue(nil, e["logical_worker_id"])), string(appendValue(nil, routing(rb[i])[k]["logical_worker_id"]))
			if (m[x] != "" && m[x] != y) || (back[y] != "" && back[y] != x) {
				t.Fatalf("worker relabel is not one bijection: %s → %s and %s", x, y, m[x])
			}
			m[x], back[y] = y, x
		}
	}
	if len(m) < 2 {
		t.Fatalf("relabel saw %d workers", len(m))
	}
}

func isV4(u string) bool {
	return len(u) == 36 && u[14] == '4' && strings.ContainsRune("89ab", rune(u[19]))
}

// numericLeaves are the differing leaves whose both sides are numbers.
func numericLeaves(t *testing.T, a, b *reportTree) [][2]float64 {
	t.Helper()
	var out [][2]float64
	for _, l := range diffLeaves(a, b, nil) {
		x, okx := numOf(l.a)
		y, oky := numOf(l.b)
		if !okx || !oky {
			t.Fatalf("%s: not a numeric change (%v → %v)", l.ptr, l.a, l.b)
		}
		out = append(out, [2]float64{x, y})
	}
	return out
}

func TestFloatNoiseStaysInTheLastDigits(t *testing.T) {
	b := testBase(t)
	for _, name := range []string{"summary-means", "per-request-derived", "wide"} {
		_, a, bb := run(t, &b, "float-noise", name, 11)
		for _, xy := range numericLeaves(t, a, bb) {
			if u := ulps(xy[0], xy[1]); u < 1 || u > 64 {
				t.Fatalf("%s: %v → %v is %d ULP", name, xy[0], xy[1], u)
			}
		}
	}
}

func TestQuantumShiftsAreWholeMultiples(t *testing.T) {
	b := testBase(t)
	_, a, bb := run(t, &b, "constant-quantum", "tick", 5)
	n := 0
	for _, l := range diffLeaves(a, bb, nil) {
		if strings.HasPrefix(l.ptr, "/summary/") {
			continue // the means follow, by a fraction
		}
		x, _ := numOf(l.a)
		y, _ := numOf(l.b)
		m := (y - x) / tickMs
		if m < 0.5 || math.Abs(m-math.Round(m)) > 1e-6 {
			t.Fatalf("%s moved by %v ms: %.9f quanta", l.ptr, y-x, m)
		}
		n++
	}
	if n < 2 {
		t.Fatalf("only %d shifted values", n)
	}
}

func TestCascadeStartsAtTheFlip(t *testing.T) {
	b := testBase(t)
	for _, name := range []string{"arrival-flip", "arrival-flip-clean", "decode-flip", "preemption-victim", "late-flip"} {
		for seed := int64(1); seed <= 4; seed++ {
			c, a, bb := run(t, &b, "decision-cascade", name, seed)
			// makeCase already checks the mutator's cause is the first instant; check no
			// timed value of the history precedes it either.
			for _, l := range diffLeaves(a, bb, nil) {
				p := place(&l, a, bb)
				if p.class == 0 && p.t < *c.First.AtMs {
					t.Fatalf("%s seed %d: %s at %v precedes the flip at %v", name, seed, l.ptr, p.t, *c.First.AtMs)
				}
			}
			if !strings.Contains(c.First.Pointer, "routing_history") && !strings.Contains(c.First.Pointer, "pressure") {
				t.Fatalf("%s: first divergence %s is no decision", name, c.First.Pointer)
			}
		}
	}
}

func TestControlsAndRespellingsKeepTheValues(t *testing.T) {
	b := testBase(t)
	for _, name := range []string{"identical", "reencoded"} {
		c, _, _ := run(t, &b, "negative-control", name, 1)
		if !c.Identical || !bytes.Equal(c.ReportA, c.ReportB) {
			t.Fatalf("%s: A and B differ", name)
		}
	}
	for _, name := range []string{"float-as-int", "int-as-float", "exponent"} {
		c, a, bb := run(t, &b, "number-spelling", name, 2)
		if c.Identical {
			t.Fatalf("%s: no number respelled", name)
		}
		for _, xy := range numericLeaves(t, a, bb) {
			if xy[0] != xy[1] {
				t.Fatalf("%s: a value changed (%v → %v)", name, xy[0], xy[1])
			}
		}
	}
	for _, name := range []string{"excluded-added", "excluded-differ"} {
		_, a, bb := run(t, &b, "negative-control", name, 3)
		for _, l := range diffLeaves(a, bb, nil) {
			if !slices.Contains([]string{"/summary/wall_time_ms", "/summary/processed_tokens_per_s", "/summary/processed_output_tokens_per_s"}, l.ptr) {
				t.Fatalf("%s: %s differs, not an excluded field", name, l.ptr)
			}
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	bases := []base{testBase(t)}
	one, two := generate(bases, 42), generate(bases, 42)
	if len(one) != len(two) || len(one) < 30 {
		t.Fatalf("%d and %d cases", len(one), len(two))
	}
	for _, p := range problems(one) {
		t.Errorf("generator: %s", p)
	}
	for i := range one {
		if one[i].Case != two[i].Case || !bytes.Equal(one[i].ReportB, two[i].ReportB) || one[i].Detail != two[i].Detail {
			t.Fatalf("case %d differs between two runs of one seed: %s / %s", i, one[i].Case, two[i].Case)
		}
	}
	other := generate(bases, 43)
	same := 0
	for i := range min(len(one), len(other)) {
		if bytes.Equal(one[i].ReportB, other[i].ReportB) {
			same++
		}
	}
	if same == len(one) {
		t.Fatal("another seed made the same corpus")
	}
	// Every family is there, and every non-control case has a first divergence.
	fams := map[string]bool{}
	for _, c := range one {
		fams[c.Family] = true
		if !c.Equal && c.First == nil {
			t.Errorf("%s: no first divergence", c.Case)
		}
	}
	// Every family whose variants work on an embedded-engine base (the release family's need a
	// release replay's records, which this fixture is not).
	for _, v := range variants() {
		if !v.release && !fams[v.family] {
			t.Errorf("family %s has no case on the fixture", v.family)
			fams[v.family] = true
		}
	}
}
