package diagnose

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/diffview"
	fx "kvparity/diffview/difftest"
)

// Lenses for what Dynamo's release replays write (issue 26), on small runs laid out the way
// the release writes them (DiffRelease over --report-jsonl and --report-json files).

// rec is one release record; extra members are appended verbatim.
type rec struct {
	uuid                 string
	arrival, first, last float64
	worker               int
	extra                string
}

func (r rec) line() string {
	return fmt.Sprintf(`{"uuid":"%s","arrival_time_ms":%s,"first_token_ms":%s,"last_token_ms":%s,"ttft_ms":%s,"input_length":%d,"output_length":8,"decode_worker_idx":%d%s}`,
		r.uuid, fx.Num(r.arrival), fx.Num(r.first), fx.Num(r.last), fx.Num(r.first-r.arrival), 100+int(r.arrival), r.worker, r.extra)
}

func releaseDiff(t *testing.T, a, b []rec, sumA, sumB string) *Diff {
	t.Helper()
	dir := t.TempDir()
	lines := func(rs []rec) string {
		var sb strings.Builder
		for _, r := range rs {
			sb.WriteString(r.line() + "\n")
		}
		return sb.String()
	}
	ra, rb := diffview.ReleaseRun{Records: fx.WriteFile(t, dir, "a.jsonl", lines(a))}, diffview.ReleaseRun{Records: fx.WriteFile(t, dir, "b.jsonl", lines(b))}
	if sumA != "" {
		ra.Summary, rb.Summary = fx.WriteFile(t, dir, "a.json", sumA), fx.WriteFile(t, dir, "b.json", sumB)
	}
	d, err := DiffRelease(ra, rb)
	if err != nil {
		t.Fatal(err)
	}
	checkSignatureChanges(t, d)
	return d
}

func signature(d *Diff, code SignatureCode) *Signature {
	for i := range d.Diagnosis {
		if d.Diagnosis[i].Code == code {
			return &d.Diagnosis[i]
		}
	}
	return nil
}

// Mode 1: requests placed on another worker with every timing equal are a tie among
// interchangeable workers, not a logic change; the placements follow no one renaming.
func TestPlacementTieWithEqualOutcome(t *testing.T) {
	a := []rec{{"r-1", 0, 5, 20, 0, ""}, {"r-2", 0, 5, 21, 1, ""}, {"r-3", 0, 5, 22, 2, ""}, {"r-4", 3, 8, 30, 2, ""}}
	b := []rec{{"r-1", 0, 5, 20, 1, ""}, {"r-2", 0, 5, 21, 1, ""}, {"r-3", 0, 5, 22, 0, ""}, {"r-4", 3, 8, 30, 2, ""}}
	d := releaseDiff(t, a, b, "", "")
	s := signature(d, SigTieOrder)
	if s == nil || !s.placement || s.Explains != 2 || !strings.Contains(evidence(*s), "2 request(s) were placed on another worker while every time") {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	if u := signature(d, SigUnclassified); u != nil {
		t.Fatalf("unclassified: %v", u)
	}
	// A placement whose request's times moved too is no tie of equal outcome.
	b[2].last = 25
	if s := signature(releaseDiff(t, a, b, "", ""), SigTieOrder); s == nil || s.Explains != 1 {
		t.Fatalf("one equal-outcome placement left: %v", s)
	}
}

// Mode 2: B's records carry a field A's lack, and a field renamed; records are paired on the
// common fields (uuids are random per run), the schema change is named with counts, and the
// one timing that moved is diagnosed apart and is the first divergence.
func TestSchemaChangeBetweenVersions(t *testing.T) {
	var a, b []rec
	for i := range 6 {
		at := float64(10 * i)
		a = append(a, rec{fmt.Sprintf("a-%d", i), at, at + 5, at + 9, i % 2, fmt.Sprintf(`,"finish_ms":%s`, fx.Num(at+9))})
		b = append(b, rec{fmt.Sprintf("b-%d", 5-i), at, at + 5, at + 9, i % 2, fmt.Sprintf(`,"terminal_ms":%s,"requested_output_length":8`, fx.Num(at+9))})
	}
	b[3].first = 36 // one first token moved, 1 ms later
	d := releaseDiff(t, a, b, "", "")
	for _, c := range d.Changes {
		if c.IndexA < 0 || c.IndexB < 0 {
			t.Fatalf("a record left unpaired: %+v", c)
		}
	}
	s := signature(d, SigSchema)
	if s == nil || s.Explains != 18 || !strings.Contains(s.Label, "1 field(s) added, 0 removed, 1 renamed") ||
		!strings.Contains(evidence(*s), "fields added in B's records: requested_output_length (6 records)") ||
		!strings.Contains(evidence(*s), "fields renamed: finish_ms → terminal_ms (6 records, equal values in 6)") {
		t.Fatalf("schema: %+v", s)
	}
	// (identity fields aside: the random uuids are renamings at each arrival)
	if d.First == nil || !strings.HasSuffix(d.First.Pointer, "/first_token_ms") && !strings.HasSuffix(d.First.Pointer, "/uuid") {
		t.Fatalf("first divergence %v", d.First)
	}
	if signature(d, SigIDDrift) == nil {
		t.Fatalf("the random uuids are not named: %v", d.Diagnosis)
	}
}

// Mode 3: a run duration and the rates taken over it, outside the canonical /summary, moved
// by tens of percent while the run's virtual span did not: recognised by behaviour (rate ×
// duration = a count of the object), whatever the fields are called.
func TestWallRatesOutsideTheCanonicalLayout(t *testing.T) {
	report := func(elapsed float64, span string) []byte {
		return fmt.Appendf(nil, `{"per_request":[{"uuid":"r-1","arrival_time_ms":0.0,"last_token_ms":%s,"terminal_time_ms":%s,"terminal_status":"completed"}],"run":{"elapsed":%s,"generated":5000,"gen_speed":%s,"steps":40}}`,
			span, span, fx.Num(elapsed), fmt.Sprint(5000/(elapsed/1e3)))
	}
	d, err := DiffBytes("A", report(1000, "900.0"), "B", report(1400, "900.0"))
	if err != nil {
		t.Fatal(err)
	}
	s := signature(d, SigWallClock)
	if s == nil || s.Explains != 2 || !strings.Contains(evidence(*s), "/run/elapsed 1000.0 → 1400.0 moved 40%") || !strings.Contains(evidence(*s), "gen_speed are counts over it") {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	// A duration that moved with the virtual span is the run's own: no clock.
	d, err = DiffBytes("A", report(1000, "900.0"), "B", report(1400, "1260.0"))
	if err != nil {
		t.Fatal(err)
	}
	if s := signature(d, SigWallClock); s != nil {
		t.Fatalf("a virtual duration read as a wall clock: %v", s)
	}
}

// Mode 4: records written in another order are said, and paired by identity.
func TestRecordsEmittedInAnotherOrder(t *testing.T) {
	a := []rec{{"r-2", 0, 5, 20, 0, ""}, {"r-1", 1, 6, 30, 1, ""}, {"r-3", 2, 7, 40, 1, ""}}
	b := []rec{{"r-3", 2, 7, 40, 1, ""}, {"r-2", 0, 5, 20, 0, ""}, {"r-1", 1, 6, 31, 1, ""}}
	d := releaseDiff(t, a, b, "", "")
	notes := strings.Join(d.Notes, "\n")
	if !strings.Contains(notes, "records emitted in another order: 2 of 3 paired records stand earlier in B") || d.Count != 1 {
		t.Fatalf("%d changes, notes %q", d.Count, notes)
	}
}

// Mode 5: a value that moved before the first differing decision is the cause at the first
// divergence, and the cascade that follows is ranked after it.
func TestTimingBeforeTheFirstDecisionLeads(t *testing.T) {
	a := []rec{{"r-1", 0, 5, 20, 0, ""}, {"r-2", 10, 15, 40, 1, ""}, {"r-3", 11, 16, 41, 0, ""}}
	b := []rec{{"r-1", 0, 6.37, 20, 0, ""}, {"r-2", 10, 17.91, 44.13, 0, ""}, {"r-3", 11, 18.2, 45.77, 1, ""}}
	d := releaseDiff(t, a, b, "", "")
	if len(d.Diagnosis) < 2 || d.Diagnosis[0].Code != SigTiming || signature(d, SigCascade) == nil {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	if s := d.Diagnosis[0]; s.Explains != 2 || !strings.Contains(s.Label, "from t=5 ms of request r-1") || !strings.Contains(evidence(s), "moved before t=10 ms, where the first decision differs") {
		t.Fatalf("timing: %+v", s)
	}
	if d.First == nil || d.First.Request != "r-1" {
		t.Fatalf("first divergence %v", d.First)
	}
}

// A summary whose statistics moved while every per-request value is equal was computed
// another way (a percentile's method), not from other results.
func TestSummaryComputedAnotherWay(t *testing.T) {
	a := []rec{{"a-1", 0, 5, 20, 0, ""}, {"a-2", 1, 6, 30, 1, ""}, {"a-3", 2, 7, 31, 0, ""}, {"a-4", 3, 8, 32, 1, ""}}
	b := []rec{{"b-1", 0, 5, 20, 0, ""}, {"b-2", 1, 6, 30, 1, ""}, {"b-3", 2, 7, 31, 0, ""}, {"b-4", 3, 8, 32, 1, ""}}
	// What 1.3.1 and 1.4.0 wrote for one round-robin run: percentiles of the inter-token
	// latencies moved, the records they come from did not (std_itl_ms: last-digit noise).
	sum := "{\n  \"mean_ttft_ms\": 5.0,\n  \"median_itl_ms\": %s,\n  \"p75_output_token_throughput_per_user\": %s,\n  \"std_itl_ms\": %s\n}\n"
	d := releaseDiff(t, a, b, fmt.Sprintf(sum, "8.287543000013102", "141.20534292777364", "21.425967230754328"), fmt.Sprintf(sum, "8.289587465485914", "141.3163720573597", "21.425967230754384"))
	s := signature(d, SigSchema)
	if s == nil || s.Explains != 2 || !strings.Contains(evidence(*s), "2 summary statistic(s) moved (/summary/median_itl_ms, /summary/p75_output_token_throughput_per_user) while every per-request value is equal") || signature(d, SigUnclassified) != nil || signature(d, SigFloatNoise) == nil {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
}

// With no decision differing at all (round robin places every request alike), values that
// moved between two versions are the timing model's, and the summary follows them.
func TestTimingChangeWithNoDecisionDiffering(t *testing.T) {
	a := []rec{{"r-1", 0, 5, 20, 0, ""}, {"r-2", 10, 15, 40, 1, ""}, {"r-3", 11, 16, 41, 0, ""}}
	b := []rec{{"r-1", 0, 5.3712345, 21.9634567, 0, ""}, {"r-2", 10, 15.4187213, 43.1302481, 1, ""}, {"r-3", 11, 16.2093177, 45.7734109, 0, ""}}
	// One version's runs: moved values with equal decisions are any logic change.
	d := releaseDiff(t, a, b, "{\"mean_ttft_ms\": 5.0}", "{\"mean_ttft_ms\": 5.3330911}")
	if len(d.Diagnosis) == 0 || d.Diagnosis[0].Code != SigUnclassified || signature(d, SigTiming) != nil {
		t.Fatalf("one version: diagnosis %v", d.Diagnosis)
	}
	// Two versions (B's records carry a field A's lack): the timing model's.
	for i := range b {
		b[i].extra = `,"requested_output_length":8`
	}
	d = releaseDiff(t, a, b, "{\"mean_ttft_ms\": 5.0}", "{\"mean_ttft_ms\": 5.3330911}")
	if len(d.Diagnosis) == 0 || d.Diagnosis[0].Code != SigTiming || signature(d, SigUnclassified) != nil {
		t.Fatalf("two versions: diagnosis %v", d.Diagnosis)
	}
	if s := d.Diagnosis[0]; s.Explains != d.Count-3 || !strings.Contains(evidence(s), "no decision differs in the whole run") {
		t.Fatalf("timing: %+v (of %d)", s, d.Count)
	}
}

// Mode 1, the whole run: every request on the other of two interchangeable workers, all else
// equal, is one consistent renaming read off the records' own placements (a release's records
// hold no routing history), not a cascade of flips nor many ties one by one. The renaming is
// the placement tie, and the random uuids beside it are a cause of their own (issue 41: the
// two were one id-drift signature, their evidence joined).
func TestWholeRunRenamingFromRecordPlacements(t *testing.T) {
	var a, b []rec
	for i := range 8 {
		at := float64(3 * i)
		a = append(a, rec{fmt.Sprintf("a-%d", i), at, at + 5, at + 9, i % 2, ""})
		b = append(b, rec{fmt.Sprintf("b-%d", i), at, at + 5, at + 9, 1 - i%2, ""})
	}
	d := releaseDiff(t, a, b, "", "")
	if len(d.Diagnosis) != 2 || d.Diagnosis[0].Code != SigTieOrder || d.Diagnosis[1].Code != SigIDDrift || signature(d, SigCascade) != nil || signature(d, SigUnclassified) != nil {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	if s := d.Diagnosis[0]; s.Explains != 8 || s.Label != "consistent renaming of workers (decode 0↔1)" ||
		!strings.Contains(evidence(s), "every one of 8 records' placements maps A's workers to B's by one consistent renaming (decode 0↔1)") {
		t.Fatalf("renaming not named: %v\n%s", s, evidence(s))
	}
	if s := d.Diagnosis[1]; s.Explains != 8 || strings.Contains(evidence(s), "renaming (decode") {
		t.Fatalf("uuids: %v\n%s", s, evidence(s))
	}
}

// Records the trace cannot tell apart (same arrival, same lengths) pair with the record of
// equal outcome on the other side before they pair by placement: under workers renamed, a
// pairing by placement would cross them and read the renaming as moved times and a cascade.
func TestLikeRecordsPairByOutcomeAcrossARenaming(t *testing.T) {
	a := []rec{{"a-1", 0, 5, 20, 0, ""}, {"a-2", 0, 5, 21, 1, ""}, {"a-3", 3, 8, 30, 0, ""}, {"a-4", 3, 8, 31, 1, ""}}
	b := []rec{{"b-2", 0, 5, 21, 0, ""}, {"b-1", 0, 5, 20, 1, ""}, {"b-4", 3, 8, 31, 0, ""}, {"b-3", 3, 8, 30, 1, ""}}
	d := releaseDiff(t, a, b, "", "")
	for _, c := range d.Changes {
		if k := diffview.LastSegment(c.Pointer); k != "uuid" && k != "decode_worker_idx" {
			t.Fatalf("records crossed in the pairing: %s %s → %s", c.Pointer, c.A, c.B)
		}
	}
	// (the workers renamed are a placement tie, the uuids drawn anew id drift: issue 41)
	if len(d.Diagnosis) == 0 || d.Diagnosis[0].Code != SigTieOrder || signature(d, SigIDDrift) == nil || signature(d, SigCascade) != nil || signature(d, SigUnclassified) != nil {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
}

// Two versions' round of one run: every record renamed, the workers under other names, one
// version's extra field and a percentile computed another way. The layout is no moved
// result, so the renaming is judged on what the layout leaves: nothing is unclassified.
func TestLayoutRenamingAndSummaryBetweenVersions(t *testing.T) {
	var a, b []rec
	for i := range 6 {
		at := float64(4 * i)
		a = append(a, rec{fmt.Sprintf("a-%d", i), at, at + 5, at + 9, i % 2, ""})
		b = append(b, rec{fmt.Sprintf("b-%d", i), at, at + 5, at + 9, 1 - i%2, `,"requested_output_length":8,"terminal_time_ms":1`})
	}
	sum := "{\"mean_ttft_ms\": 5.0, \"median_itl_ms\": %s}\n"
	d := releaseDiff(t, a, b, fmt.Sprintf(sum, "8.287543000013102"), fmt.Sprintf(sum, "8.289587465485914"))
	if s := signature(d, SigUnclassified); s != nil {
		t.Fatalf("unclassified: %v (diagnosis %v)", s, d.Diagnosis)
	}
	if s := signature(d, SigSchema); s == nil || !strings.Contains(evidence(*s), "summary statistic(s) moved (/summary/median_itl_ms)") {
		t.Fatalf("summary: %v", d.Diagnosis)
	}
	// (a placement tie since issue 41, beside the uuids' id drift)
	if s := signature(d, SigTieOrder); s == nil || !strings.Contains(evidence(*s), "one consistent renaming (decode 0↔1)") || signature(d, SigIDDrift) == nil {
		t.Fatalf("renaming: %v", d.Diagnosis)
	}
}

// Mode 1 beside random uuids: a few requests on another worker, no time moved, every record
// renamed. The decisions differ and nothing follows from them (no cascade), and the tie at the
// first divergence leads the identities that differ beside it.
func TestPlacementTieLeadsTheUUIDs(t *testing.T) {
	var a, b []rec
	wa, wb := []int{0, 1, 0, 1, 2, 2}, []int{1, 1, 0, 0, 2, 2}
	for i := range wa {
		at := float64(5 * i)
		a = append(a, rec{fmt.Sprintf("a-%d", i), at, at + 3, at + 9, wa[i], ""})
		b = append(b, rec{fmt.Sprintf("b-%d", i), at, at + 3, at + 9, wb[i], ""})
	}
	d := releaseDiff(t, a, b, "", "")
	if len(d.Diagnosis) < 2 || d.Diagnosis[0].Code != SigTieOrder || d.Diagnosis[1].Code != SigIDDrift || signature(d, SigCascade) != nil || signature(d, SigUnclassified) != nil {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	if d.First == nil || diffview.LastSegment(d.First.Pointer) != "decode_worker_idx" {
		t.Fatalf("first divergence %v", d.First)
	}
	// Between two versions (B's records carry two fields more): the layout follows too.
	for i := range b {
		b[i].extra = `,"requested_output_length":8,"terminal_time_ms":1`
	}
	d = releaseDiff(t, a, b, "", "")
	if len(d.Diagnosis) < 3 || d.Diagnosis[0].Code != SigTieOrder || signature(d, SigSchema).Explains <= d.Diagnosis[0].Explains {
		t.Fatalf("two versions: diagnosis %v", d.Diagnosis)
	}
}

// One version's runs with random uuids and a tie broken otherwise at t=30 whose consequence
// moved a later request's times: the cascade leads the renamed identities, though these are
// more.
func TestCascadeLeadsTheRandomUUIDs(t *testing.T) {
	var a, b []rec
	for i := range 8 {
		at := float64(5 * i)
		a = append(a, rec{fmt.Sprintf("a-%d", i), at, at + 3, at + 9, i % 2, ""})
		r := rec{fmt.Sprintf("b-%d", i), at, at + 3, at + 9, i % 2, ""}
		switch {
		case i == 6:
			r.worker = 1 // the flip: on the other worker, its own outcome equal
		case i > 6:
			r.first, r.last = r.first+1.25, r.last+2.5 // what follows it moved
		}
		b = append(b, r)
	}
	d := releaseDiff(t, a, b, "", "")
	if len(d.Diagnosis) < 2 || d.Diagnosis[0].Code != SigCascade || signature(d, SigIDDrift) == nil || signature(d, SigUnclassified) != nil {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	if s := signature(d, SigIDDrift); s.Explains <= d.Diagnosis[0].Explains {
		t.Fatalf("the case does not hold what it tests: the uuids (%d) explain fewer than the cascade (%d)", s.Explains, d.Diagnosis[0].Explains)
	}
}

// Issue 41: random uuids and workers tied on cost are two entropy sources with two fixes. A
// release pair whose records are all renamed and whose placements on two of three workers
// are one consistent renaming names two causes, each with its own pointers, and each cause's
// evidence states its own count (a merged id-drift claimed both and called its own uuids
// "others").
func TestUUIDDriftAndPlacementRenamingAreTwoCauses(t *testing.T) {
	var a, b []rec
	swap := []int{1, 0, 2} // decode 0↔1, worker 2 kept
	for i := range 9 {
		at := float64(3 * i)
		a = append(a, rec{fmt.Sprintf("a-%d", i), at, at + 5, at + 9, i % 3, ""})
		b = append(b, rec{fmt.Sprintf("b-%d", i), at, at + 5, at + 9, swap[i%3], ""})
	}
	d := releaseDiff(t, a, b, "", "")
	if d.Count != 9+6 {
		t.Fatalf("%d differing pointers, want 9 uuids and 6 placements", d.Count)
	}
	ids, ties := signature(d, SigIDDrift), signature(d, SigTieOrder)
	if ids == nil || ties == nil || signature(d, SigUnclassified) != nil || signature(d, SigCascade) != nil {
		t.Fatalf("want id drift and placement ties, nothing else: %v", d.Diagnosis)
	}
	if ids.Explains != 9 || ids.Label != "id / uuid drift" || ties.Explains != 6 || !ties.placement {
		t.Fatalf("counts: %v and %v", ids, ties)
	}
	for _, i := range ids.Changes {
		if diffview.LastSegment(d.Changes[i].Pointer) != "uuid" {
			t.Fatalf("id drift names %s", d.Changes[i].Pointer)
		}
	}
	for _, i := range ties.Changes {
		if diffview.LastSegment(d.Changes[i].Pointer) != "decode_worker_idx" {
			t.Fatalf("the placement ties name %s", d.Changes[i].Pointer)
		}
	}
	if ev := evidence(*ids); !strings.Contains(ev, "9 request identity field(s) differ") || strings.Contains(ev, "renaming (decode") {
		t.Fatalf("id drift's evidence: %s", ev)
	}
	ev := evidence(*ties)
	for _, want := range []string{"every one of 9 records' placements maps A's workers to B's by one consistent renaming (decode 0↔1); 6 placement(s) changed",
		"6 differing pointer(s) follow the renaming", "tied on cost"} {
		if !strings.Contains(ev, want) {
			t.Fatalf("placement ties' evidence lacks %q:\n%s", want, ev)
		}
	}
	// The cause's own sentence says what the rest is: other causes', counted as the diff has it.
	if !strings.Contains(ev, "the other 9 difference(s) are other causes'") {
		t.Fatalf("placement ties' evidence on the rest:\n%s", ev)
	}
	// The tie at the first divergence leads the identities renamed beside it.
	if d.Diagnosis[0].Code != SigTieOrder || d.Diagnosis[1].Code != SigIDDrift {
		t.Fatalf("ranking %v", d.Diagnosis)
	}
	// A real pair's shape (1.4.0, agg, KV router, 1,000 requests: 1000 uuids, 1000 placements
	// decode 0↔1, 6 summary means in the last digits): every record on the other worker, so
	// neither cause alone explains half. Both are the runs' alpha-equivalence, one share:
	// nothing is left unclassified (no "logic change?").
	for i := range b {
		b[i].worker = 1 - a[i].worker%2
		a[i].worker %= 2
	}
	sum := "{\"mean_e2e_latency_ms\": %s, \"mean_ttft_ms\": %s}"
	d = releaseDiff(t, a, b, fmt.Sprintf(sum, "6570.897852144731", "41.25"), fmt.Sprintf(sum, "6570.8978521447225", "41.25"))
	if d.Count != 9+9+1 || signature(d, SigUnclassified) != nil || signature(d, SigFloatNoise) == nil ||
		signature(d, SigIDDrift).Explains != 9 || signature(d, SigTieOrder).Explains != 9 {
		t.Fatalf("the whole run renamed, with noise: %d differing, %v", d.Count, d.Diagnosis)
	}
}

// Issue 41: a release that writes only run-level aggregates (--report-json, no records)
// leaves nothing per request to attribute a difference to: the diagnosis says so, not "a
// logic change?". A lens that explains some aggregates (last-digit noise) still speaks.
func TestSummaryOnlyAggregatesDiffer(t *testing.T) {
	dir := t.TempDir()
	sum := "{\n  \"completed_requests\": 1000,\n  \"mean_ttft_ms\": %s,\n  \"p99_ttft_ms\": %s,\n  \"std_itl_ms\": %s,\n  \"wall_time_ms\": %s\n}\n"
	run := func(name, mean, p99, std, wall string) diffview.ReleaseRun {
		return diffview.ReleaseRun{Summary: fx.WriteFile(t, dir, name, fmt.Sprintf(sum, mean, p99, std, wall))}
	}
	d, err := DiffRelease(run("a.json", "41.5", "180.25", "21.425967230754328", "812.5"), run("b.json", "44.0", "191.75", "21.425967230754328", "640.25"))
	if err != nil {
		t.Fatal(err)
	}
	checkSignatureChanges(t, d)
	if len(d.Diagnosis) != 1 || d.Count != 2 {
		t.Fatalf("%d differing, diagnosis %v", d.Count, d.Diagnosis)
	}
	s := d.Diagnosis[0]
	if s.Code != SigUnclassified || s.Explains != 2 || strings.Contains(s.Label, "logic change") ||
		s.Label != "run-level aggregates differ (no per-request records to attribute them)" {
		t.Fatalf("summary only: %v", s)
	}
	ev := evidence(s)
	for _, want := range []string{"2 run-level aggregate(s) differ (/summary/mean_ttft_ms 41.5 → 44.0, /summary/p99_ttft_ms 180.25 → 191.75)",
		"neither input holds a per-request record: nothing per request is there to attribute them to a request, a decision or an instant"} {
		if !strings.Contains(ev, want) {
			t.Fatalf("evidence lacks %q:\n%s", want, ev)
		}
	}
	// Last-digit noise in one aggregate is named; the rest is still said as unattributable.
	d, err = DiffRelease(run("c.json", "41.5", "180.25", "21.425967230754328", "812.5"), run("e.json", "44.0", "180.25", "21.425967230754384", "812.5"))
	if err != nil {
		t.Fatal(err)
	}
	checkSignatureChanges(t, d)
	u := signature(d, SigUnclassified)
	if signature(d, SigFloatNoise) == nil || u == nil || u.Explains != 1 || strings.Contains(u.Label, "cause?") || strings.Contains(u.Label, "logic change") ||
		!strings.Contains(evidence(*u), "1 run-level aggregate(s) differ (/summary/mean_ttft_ms 41.5 → 44.0)") {
		t.Fatalf("noise and an aggregate: %v", d.Diagnosis)
	}
	// Read by DiffFiles (two --report-json files given as reports): the same.
	d, err = DiffFiles(filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Diagnosis) != 1 || d.Diagnosis[0].Label != "run-level aggregates differ (no per-request records to attribute them)" {
		t.Fatalf("DiffFiles: %v", d.Diagnosis)
	}
}
