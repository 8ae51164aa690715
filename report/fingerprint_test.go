package report

import (
	"encoding/json"
	"strings"
	"testing"
)

// The placement digest is computed by the timing extension's Rust in a timed run and by this Go
// from a canonical record; the two must agree bit for bit. The expected sums were printed by the
// extension's placement() compiled alone with rustc (the same code, given the uuid's bytes).
func TestPlacementSumMatchesTheExtensionsRust(t *testing.T) {
	var s PlacementSum
	if err := s.Add("00000000-0000-0000-0000-000000000001", "agg", 3, 0); err != nil {
		t.Fatal(err)
	}
	if got := s.Hex(); got != "794820fc2998590e" {
		t.Errorf("one placement: %s, the Rust gives 794820fc2998590e", got)
	}
	if err := s.Add("12345678-9ABC-DEF0-0fed-cba987654321", "decode", 1, 7); err != nil {
		t.Fatal(err)
	}
	if got := s.Hex(); s.N != 2 || got != "d4c6f956138e4a62" {
		t.Errorf("two placements: %d, %s; the Rust gives 2, d4c6f956138e4a62", s.N, got)
	}
	// Order-free: the same placements folded the other way round give the same sum.
	var r PlacementSum
	r.Add("12345678-9abc-def0-0fed-cba987654321", "decode", 1, 7)
	r.Add("00000000000000000000000000000001", "agg", 3, 0)
	if r != s {
		t.Errorf("order changed the sum: %+v vs %+v", r, s)
	}
	for _, bad := range []struct{ uuid, pool, want string }{
		{"not-a-uuid", "agg", `request uuid "not-a-uuid" is not a UUID`},
		{"00000000-0000-0000-0000-00000000000g", "agg", "is not a UUID"},
		{"0000000-00000-0000-0000-000000000001", "agg", "is not a UUID"},
		{"00000000-0000-0000-0000-000000000001", "mixed", `unknown pool "mixed"`},
	} {
		var x PlacementSum
		if err := x.Add(bad.uuid, bad.pool, 0, 0); err == nil || !strings.Contains(err.Error(), bad.want) || x.N != 0 {
			t.Errorf("%s %s: %v (n %d), want %q", bad.uuid, bad.pool, err, x.N, bad.want)
		}
	}
}

const goodWork = `{"scheme":"kvparity.work.v1","duration_ms":1604616.790723601,"num_requests":5000,"completed_requests":5000,` +
	`"total_input_tokens":65330959,"total_output_tokens":1730337,"prefix_cache_reused_ratio":0.04192707472731266,` +
	`"first_admission_prefix_cache_reused_ratio":0.04192707472731266,"pressure_events":12,"admissions":10012,"placements":10000,` +
	`"placement_digest":"2cc52056220e5760"}`

func TestParseWorkFingerprintNamesTheField(t *testing.T) {
	f, err := ParseWorkFingerprint(json.RawMessage(goodWork), "t.jsonl: line 1")
	if err != nil || f.Placements != 10000 || f.DurationMs != 1604616.790723601 {
		t.Fatalf("%+v %v", f, err)
	}
	for _, c := range []struct{ raw, want string }{
		{`[1]`, "t.jsonl: line 1: /work_fingerprint is not a JSON object"},
		{`null`, "is not a JSON object"},
		{strings.Replace(goodWork, `"admissions":10012,`, "", 1), "/work_fingerprint/admissions is missing"},
		{strings.Replace(goodWork, "kvparity.work.v1", "kvparity.work.v0", 1), `/work_fingerprint/scheme is "kvparity.work.v0", kvparity reads "kvparity.work.v1"`},
		{strings.Replace(goodWork, "2cc52056220e5760", "2cc5", 1), `placement_digest is "2cc5", not 16 hex digits`},
		{strings.Replace(goodWork, "2cc52056220e5760", "2cc52056220e576z", 1), "not 16 hex digits"},
		{strings.Replace(goodWork, `"placements":10000`, `"placements":"many"`, 1), "/work_fingerprint: json: cannot unmarshal string"},
	} {
		if _, err := ParseWorkFingerprint(json.RawMessage(c.raw), "t.jsonl: line 1"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.raw, err, c.want)
		}
	}
}

// FirstDifference reads the fields in their fixed order and floats exactly.
func TestFirstDifference(t *testing.T) {
	want, _ := ParseWorkFingerprint(json.RawMessage(goodWork), "w")
	got := want
	if _, differ := got.FirstDifference(want); differ {
		t.Fatal("equal fingerprints differ")
	}
	got.PlacementDigest, got.DurationMs = "0000000000000000", want.DurationMs+1e-9
	d, differ := got.FirstDifference(want)
	if !differ || d.Field != "duration_ms" || d.String() != "duration_ms 1604616.7907236018, not 1604616.790723601" {
		t.Errorf("%v %q", differ, d)
	}
}

// A canonical record's fingerprint comes with its evidence; a record without the summary's
// totals gives none and says which is missing.
func TestWorkOfACanonicalRecord(t *testing.T) {
	rec := `{"summary":{"num_requests":2,"duration_ms":28.354,"completed_requests":2,"total_input_tokens":16,"total_output_tokens":4,` +
		`"prefix_cache_reused_ratio":0.0,"first_admission_prefix_cache_reused_ratio":0.0},` +
		`"coverage":{"pressure":{"records":[{"pressure_ordinal":0,"pool":"agg","request_uuid":"00000000-0000-0000-0000-000000000001"}]}},` +
		`"per_request":[{"uuid":"00000000-0000-0000-0000-000000000001","admission_history":[{"pool":"agg"},{"pool":"agg"}],` +
		`"routing_history":[{"pool":"agg","logical_worker_id":3,"dp_rank":0}]},` +
		`{"uuid":"12345678-9abc-def0-0fed-cba987654321","admission_history":[{"pool":"decode"}],` +
		`"routing_history":[{"pool":"decode","outcome":"queued","logical_worker_id":null},{"pool":"decode","logical_worker_id":1,"dp_rank":7}]}]}`
	e, err := ExtractEvidence([]byte(rec), EvidenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := e.Work
	if w == nil || w.Admissions != 3 || w.PressureEvents != 1 || w.Placements != 2 || w.PlacementDigest != "d4c6f956138e4a62" ||
		w.DurationMs != 28.354 || w.InputTokens != 16 || w.Completed != 2 {
		t.Fatalf("work %+v (%s)", w, e.WorkError)
	}
	e, err = ExtractEvidence([]byte(strings.Replace(rec, `"total_output_tokens":4,`, "", 1)), EvidenceOptions{})
	if err != nil || e.Work != nil || e.WorkError != "work fingerprint: /summary/total_output_tokens is missing" {
		t.Errorf("%+v %q %v", e.Work, e.WorkError, err)
	}
}

func FuzzParseWorkFingerprint(f *testing.F) {
	f.Add([]byte(goodWork))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"scheme":"kvparity.work.v1","placement_digest":"00"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		fp, err := ParseWorkFingerprint(raw, "fuzz")
		if err != nil {
			return
		}
		// Whatever parses compares equal to itself and prints every field.
		if _, differ := fp.FirstDifference(fp); differ || strings.Count(fp.String(), "=") != 12 {
			t.Fatalf("%s", fp)
		}
	})
}
