package diagnose

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kvparity/diffview"
	"kvparity/exceptions"
)

// The real row's pair with every section (diffview/testdata/dynamo-1.5.1-vs-1.6.1/
// *-sections.jsonl, made by reduce.go there from one determinism campaign of
// rows/dynamo-1.5.1-vs-1.6.1.toml): metadata, summary, coverage and planner whole, per_request
// records 0x01-0x10 and 0x44-0x48.
func sectionsPair(t *testing.T, swap bool, edit func(a, b string) (string, string)) *Diff {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(releasePair, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a, b := read("baseline-sections.jsonl"), read("candidate-sections.jsonl")
	if edit != nil {
		na, nb := edit(a, b)
		if na == a && nb == b {
			t.Fatal("the edit changed nothing")
		}
		a, b = na, nb
	}
	if swap {
		a, b = b, a
	}
	d, err := DiffBytes("a.jsonl", []byte(a), "b.jsonl", []byte(b))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// explainsAll says every differing pointer is named by a cause other than unclassified.
func explainsAll(t *testing.T, d *Diff) {
	t.Helper()
	if s := signature(d, SigUnclassified); s != nil {
		t.Fatalf("unclassified: %v", s)
	}
	if rest := d.Unexplained(); len(rest) > 0 {
		t.Fatalf("%d pointer(s) no cause names, first %s", len(rest), d.Changes[rest[0]].Pointer)
	}
}

// Issue 41 item 2 on the real 1.5.1 → 1.6.1 pair: the version change is a cause of its own,
// with the field map it applied (MockEngineArgs → MockerConfig, aic_* → ais_*) and the members
// only one line writes (the summary's four new statistics among them); the timing model's
// change leads, the cascade follows, and no pointer is left unclassified.
func TestRealPairVersionChangeWithItsFieldMap(t *testing.T) {
	d := sectionsPair(t, false, nil)
	explainsAll(t, d)
	var codes []SignatureCode
	for _, s := range d.Diagnosis {
		codes = append(codes, s.Code)
	}
	if !slices.Equal(codes, []SignatureCode{SigTiming, SigCascade, SigVersion, SigFloatNoise}) {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	if signature(d, SigSchema) != nil || signature(d, SigConfig) != nil {
		t.Fatalf("a layout or a setting named beside the version: %v", d.Diagnosis)
	}
	s := signature(d, SigVersion)
	if s.Explains != 49 || s.Label != "report version changed: 1.5.x → 1.6.x (7 field(s) renamed, 24 moved, 12 only in 1.6.x, 2 only in 1.5.x; no setting differs)" {
		t.Fatalf("version: %v", s)
	}
	ev := evidence(*s)
	for _, want := range []string{
		"A is a 1.5.x report (schema_version dynamo.offline-replay.v1, aic_* keys, engine configuration MockEngineArgs); B is a 1.6.x report",
		`engine_config/<role>/engine_type → engine_config/<role>/engine/backend ("vllm")`,
		"engine_config/<role>/kv_bytes_per_token → engine_config/<role>/engine/kv_transfer_bytes_per_token (null)",
		"engine_config/<role>/performance_model/aic → engine_config/<role>/performance_model/ais (no identity: null)",
		"execution/aic_prefill_load_estimator → execution/ais_prefill_load_estimator (null)",
		"semantic_features/aic_forward_pass → semantic_features/ais_forward_pass (false)",
		"16 into engine_config/<role>/engine (aic_mtp_seed, aic_nextn, aic_nextn_accept_rates, block_size,",
		"8 into engine_config/<role>/dynamo (bootstrap_port,",
		"engine_config/<role>/sglang null → engine_config/<role>/engine/sglang (5 setting(s))",
		"only 1.5.x writes (2): engine_config/<role>/planner_profile_data, router/config/shared_cache_multiplier",
		"/summary/committed_prefill_tokens, /summary/kv_eviction_policy, /summary/power_coverage, /summary/power_w",
	} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence lacks %q:\n%s", want, ev)
		}
	}
	if strings.Contains(ev, "not in the release table") {
		t.Errorf("a member the table does not know:\n%s", ev)
	}
	// The summary's new statistics are the version's, not a consequence of the flip.
	for _, i := range s.Changes {
		if p := d.Changes[i].Pointer; strings.HasPrefix(p, "/summary/") && !strings.Contains("committed_prefill_tokens kv_eviction_policy power_coverage power_w", diffview.LastSegment(p)) {
			t.Errorf("the version claims %s", p)
		}
	}
	if ev := evidence(*signature(d, SigCascade)); !strings.Contains(ev, "45 metadata member(s) differ before virtual time 0: the configuration laid out another way, no setting differs (the report version changed: see the version-change signature)") {
		t.Fatalf("cascade: %s", ev)
	}
}

// The same pair read the other way (B the older line): the map is applied backwards, with the
// same counts.
func TestRealPairVersionDowngrade(t *testing.T) {
	d := sectionsPair(t, true, nil)
	explainsAll(t, d)
	s := signature(d, SigVersion)
	if s == nil || s.Explains != 49 || s.Label != "report version changed: 1.6.x → 1.5.x (7 field(s) renamed, 24 moved, 2 only in 1.5.x, 12 only in 1.6.x; no setting differs)" {
		t.Fatalf("version: %v", s)
	}
	if ev := evidence(*s); !strings.Contains(ev, `engine_config/<role>/engine/backend → engine_config/<role>/engine_type ("vllm")`) ||
		!strings.Contains(ev, "engine_config/<role>/engine/sglang (5 setting(s)) → engine_config/<role>/sglang null") {
		t.Fatalf("evidence: %s", ev)
	}
}

// One exception record covers the renaming: the version change's patterns (one "{a,b}" key set
// per object) cover exactly the pointers it explains, none of the behaviour changes beside
// it, and the record is valid, not broad, and survives exceptions.jsonl.
func TestOneExceptionRecordCoversTheRenaming(t *testing.T) {
	d := sectionsPair(t, false, nil)
	s := signature(d, SigVersion)
	want := []string{
		"/metadata/engine_config/*/{aic_mtp_seed,aic_nextn,aic_nextn_accept_rates,block_size,bootstrap_port,cuda_graph_reserved_bytes,decode_speedup_ratio,dynamo,enable_chunked_prefill,enable_local_indexer,enable_prefix_caching,engine,engine_type,handoff_session_timeout_ms,kv_bytes_per_token,kv_transfer_bandwidth,kv_transfer_timing_mode,max_model_len,max_num_batched_tokens,max_num_seqs,num_gpu_blocks,num_gpu_blocks_is_explicit,planner_profile_data,preemption_mode,reasoning,response_replay_trace_path,router_queue_policy,sglang,speedup_ratio,tensor_parallel_size,trtllm,worker_type,zmq_kv_events_port,zmq_replay_port}",
		"/metadata/engine_config/*/performance_model/{aic,ais}",
		"/metadata/execution/{aic_performance_model_implementation,aic_prefill_load_estimator,aic_prefill_load_estimator_implementation,ais_performance_model_implementation,ais_prefill_load_estimator,ais_prefill_load_estimator_implementation}",
		"/metadata/router/config/shared_cache_multiplier",
		"/metadata/semantic_features/{aic_forward_pass,ais_forward_pass}",
		"/summary/{committed_prefill_tokens,kv_eviction_policy,power_coverage,power_w}",
	}
	if !slices.Equal(s.Patterns, want) {
		t.Fatalf("patterns:\n%s", strings.Join(s.Patterns, "\n"))
	}
	if !strings.Contains(evidence(*s), "one exception record covers the version change: "+strings.Join(want, "  ")) {
		t.Fatalf("the evidence does not name the record: %s", evidence(*s))
	}
	sel, _ := d.Select(s.Patterns, nil)
	if !slices.Equal(sel, s.Changes) {
		t.Fatalf("the record selects %d pointers, the version explains %d", len(sel), len(s.Changes))
	}
	rec := validRecord(s.Patterns...)
	rec.Differs = "the report layout of Dynamo 1.6.x: " + d.Describe(sel)
	if err := rec.Validate(); err != nil {
		t.Fatal(err)
	}
	if r := exceptions.BroadReason(rec.Pointers, len(sel), d.Count); r != "" {
		t.Fatalf("broad: %s", r)
	}
	dir := t.TempDir()
	if _, err := exceptions.PutException(dir, rec); err != nil {
		t.Fatal(err)
	}
	recs, err := exceptions.LoadExceptions(dir)
	if err != nil || len(recs) != 1 {
		t.Fatalf("load: %v %d", err, len(recs))
	}
	x, counts := exceptions.CoverageByRecord(d.AllPointers(), recs)
	if counts[0].Covers != 49 || x.Uncovered != d.Count-49 {
		t.Fatalf("covers %d, uncovered %d of %d", counts[0].Covers, x.Uncovered, d.Count)
	}
	for _, p := range x.First {
		if i := slices.IndexFunc(d.Changes, func(c diffview.Change) bool { return c.Pointer == p }); i >= 0 && slices.Contains(s.Changes, i) {
			t.Fatalf("%s is the version's and uncovered", p)
		}
	}
}

// A renamed setting with another value is configuration that differs: it leads, named with
// the map that paired it, and the rest of the layout is still the version's (the times that
// moved are then the setting's, or a second cause, as with any differing setting).
func TestVersionRenamedSettingThatDiffers(t *testing.T) {
	d := sectionsPair(t, false, func(a, b string) (string, string) {
		return a, strings.Replace(b, `"backend":"vllm"`, `"backend":"sglang"`, 1)
	})
	if d.Diagnosis[0].Code != SigConfig || signature(d, SigTiming) != nil {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	c := d.Diagnosis[0]
	if c.Explains != 2 || !strings.Contains(evidence(c), `/metadata/engine_config/aggregated/engine_type "vllm" → /metadata/engine_config/aggregated/engine/backend "sglang" (renamed by 1.5.x → 1.6.x, another value)`) {
		t.Fatalf("configuration: %v", c)
	}
	s := signature(d, SigVersion)
	if s == nil || s.Explains != 47 || !strings.HasSuffix(s.Label, "; a setting differs: see the configuration)") {
		t.Fatalf("version: %v", s)
	}
}

// A value one line spells otherwise (performance_model/kind aic_callback, ais_callback) is the
// version's, not another setting.
func TestVersionValueAlias(t *testing.T) {
	d := sectionsPair(t, false, func(a, b string) (string, string) {
		return strings.Replace(a, `"kind":"builtin_polynomial"`, `"kind":"aic_callback"`, 1),
			strings.Replace(b, `"kind":"builtin_polynomial"`, `"kind":"ais_callback"`, 1)
	})
	explainsAll(t, d)
	if signature(d, SigConfig) != nil {
		t.Fatalf("an alias read as a setting: %v", d.Diagnosis)
	}
	if s := signature(d, SigVersion); s.Explains != 50 || !strings.Contains(evidence(*s), "1 setting value(s) spelled the 1.6.x way (/metadata/engine_config/aggregated/performance_model/kind)") {
		t.Fatalf("version: %v", s)
	}
}

// The shapes are told by their marks; the embedded engine's report (flat MockEngineArgs with
// ais_forward_pass) is no release line, so no version change is said between it and one.
func TestReleaseLineShapes(t *testing.T) {
	read := func(path string) *diffview.Doc {
		t.Helper()
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dc, err := parseDoc(path, src)
		if err != nil {
			t.Fatal(err)
		}
		return dc
	}
	for path, want := range map[string]string{
		"../testdata/dynamo-1.4.2/report.jsonl":                      "1.4.x",
		"../testdata/dynamo-1.5.1-vs-1.6.1/baseline.jsonl":           "1.5.x",
		"../testdata/dynamo-1.5.1-vs-1.6.1/baseline-sections.jsonl":  "1.5.x",
		"../testdata/dynamo-1.5.1-vs-1.6.1/candidate-sections.jsonl": "1.6.x",
		"../testdata/dynamo-1.5.1-vs-1.6.1/candidate.jsonl":          "1.6.x",
	} {
		got := ""
		if i := lineOf(read(path)); i >= 0 {
			got = releaseLines[i].name
		}
		if got != want {
			t.Errorf("%s: line %q, want %q", path, got, want)
		}
	}
	b := strings.Replace(strings.Replace(mustRead(t, filepath.Join(releasePair, "baseline-sections.jsonl")),
		`"aic_forward_pass"`, `"ais_forward_pass"`, 1), "\n", "", 1) // the embedded engine's mix
	dc, err := parseDoc("mixed", []byte(b))
	if err != nil {
		t.Fatal(err)
	}
	if i := lineOf(dc); i >= 0 {
		t.Fatalf("a mixed shape read as %s", releaseLines[i].name)
	}
}

// parseDoc reads one report as the diff reads its sides.
func parseDoc(name string, src []byte) (*diffview.Doc, error) {
	d, err := diffview.DiffBytes(name, src, name, src)
	if err != nil {
		return nil, err
	}
	return d.DocA, nil
}

// validRecord is an exception record with every field filled, covering patterns.
func validRecord(patterns ...string) exceptions.ExceptionRecord {
	return exceptions.ExceptionRecord{Differs: "x", Pointers: patterns, Baseline: "x", Candidate: "x", Cause: "x", RegressionTest: "x", Impact: "x", Disposition: "x"}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// 1.4.2 against 1.5.1 and 1.6.1 (real reports, the same trace and arguments): the root's
// settings move into metadata (engine_type composed on to engine/backend for 1.6.x), the
// sections 1.4.x does not write are the version's, the records' six new fields are the record
// schema change, and nothing is left unclassified or read as another setting. The first times
// that moved (before the tie at request 0x44 broke otherwise) share one shift, a "quantum":
// between two versions that is the timing model's, and the timing change leads (issue 41's
// triangle; the quantum is still named).
func TestReal142AgainstLaterLines(t *testing.T) {
	a := mustRead(t, "../testdata/dynamo-1.4.2/report.jsonl")
	for _, c := range []struct{ b, label, move string }{
		{"baseline-sections.jsonl", "report version changed: 1.4.x → 1.5.x (0 field(s) renamed, 2 moved, 6 only in 1.5.x, 1 only in 1.4.x; no setting differs)",
			"1 into engine_config/<role> (engine_type), 1 into /metadata (replay_bench)"},
		{"candidate-sections.jsonl", "report version changed: 1.4.x → 1.6.x (1 field(s) renamed, 1 moved, 10 only in 1.6.x, 1 only in 1.4.x; no setting differs)",
			`/engine_type → engine_config/<role>/engine/backend ("vllm")`},
	} {
		d, err := DiffBytes("1.4.2", []byte(a), c.b, []byte(mustRead(t, filepath.Join(releasePair, c.b))))
		if err != nil {
			t.Fatal(err)
		}
		explainsAll(t, d)
		if signature(d, SigConfig) != nil {
			t.Fatalf("%s: %v", c.b, d.Diagnosis)
		}
		s := signature(d, SigVersion)
		if s == nil || s.Label != c.label || !strings.Contains(evidence(*s), c.move) ||
			!strings.Contains(evidence(*s), "only 1.4.x writes (1): /native_router_event_visibility") {
			t.Fatalf("%s: version %v", c.b, s)
		}
		if r := signature(d, SigSchema); r == nil || !strings.HasPrefix(r.Label, "record schema changed (6 field(s) added, 0 removed)") {
			t.Fatalf("%s: records %v", c.b, r)
		}
		if d.Diagnosis[0].Code != SigTiming || signature(d, SigCascade) == nil || signature(d, SigQuantum) == nil {
			t.Fatalf("%s: want the timing change first, the cascade and the quantum named: %v", c.b, d.Diagnosis)
		}
	}
}
