package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/diffview"
)

// The real row's pair (Dynamo 1.5.1 against 1.6.1, diffview/testdata/dynamo-1.5.1-vs-1.6.1): an
// excerpt of the two canonical reports of one determinism campaign of
// rows/dynamo-1.5.1-vs-1.6.1.toml — each run's metadata and its per_request records 1-16 and
// 0x44-0x48 (request 0x44 holds the first differing routing decision), literals verbatim.
// 1.6.1 lays the engine configuration out anew (settings moved into engine and dynamo
// objects, some renamed, some new), and times the first request otherwise: its first token
// at 169.136918 ms instead of 175.232085, before any routing decision differs.
const releasePair = "../testdata/dynamo-1.5.1-vs-1.6.1"

func releasePairDiff(t *testing.T, editB func(string) string) *Diff {
	t.Helper()
	a, err := os.ReadFile(filepath.Join(releasePair, "baseline.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(releasePair, "candidate.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	nb := string(b)
	if editB != nil {
		if nb = editB(nb); nb == string(b) {
			t.Fatal("the edit of B changed nothing")
		}
	}
	d, err := DiffBytes("baseline.jsonl", a, "candidate.jsonl", []byte(nb))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Mode 5 on the real row: the metadata differs only in its layout, so it is no cause; the
// first divergence is request 1's first token, before any decision differs, and the timing
// model's change leads, the cascade it causes next; nothing is left unclassified. The layout
// is the two release lines' (issue 41 item 2): the version change, with the field map that
// pairs the settings 1.6.x moved into engine and dynamo or renamed (versions_test.go has the
// pair with every section).
func TestRealRowTimingChangeLeadsTheLayout(t *testing.T) {
	d := releasePairDiff(t, nil)
	if d.First == nil || d.First.Pointer != "/per_request/0/first_token_ms" {
		t.Fatalf("first divergence %v", d.First)
	}
	if len(d.Diagnosis) < 2 || d.Diagnosis[0].Code != SigTiming || d.Diagnosis[1].Code != SigCascade {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	if s := d.Diagnosis[0]; !strings.Contains(s.Label, "from t=169.136918 ms of request 00000000-0000-0000-0000-000000000001") ||
		!strings.Contains(evidence(s), "moved before t=2290.5 ms, where the first decision differs") {
		t.Fatalf("timing: %+v", s)
	}
	if s := signature(d, SigConfig); s != nil {
		t.Fatalf("a configuration laid out anew read as another setting: %v", s)
	}
	if s := signature(d, SigUnclassified); s != nil {
		t.Fatalf("unclassified: %v", s)
	}
	if s := signature(d, SigSchema); s != nil {
		t.Fatalf("the version's layout read as a schema change of unknown versions: %v", s)
	}
	s := signature(d, SigVersion)
	if s == nil || s.Explains != 45 || !strings.HasPrefix(s.Label, "report version changed: 1.5.x → 1.6.x (7 field(s) renamed, 24 moved, 8 only in 1.6.x, 2 only in 1.5.x") ||
		!strings.Contains(evidence(*s), "16 into engine_config/<role>/engine (aic_mtp_seed, ") {
		t.Fatalf("layout: %v", s)
	}
	if ev := evidence(*signature(d, SigCascade)); !strings.Contains(ev, "45 metadata member(s) differ before virtual time 0: the configuration laid out another way") {
		t.Fatalf("cascade: %s", ev)
	}
}

// A setting that moved and changed its value, or one both layouts carry with another value,
// is configuration that differs: it leads, as any differing setting does.
func TestRealRowLayoutWithASettingChanged(t *testing.T) {
	for name, edit := range map[string]func(string) string{
		"moved": func(b string) string { return strings.Replace(b, `"block_size":64,`, `"block_size":128,`, 1) },
		"kept":  func(b string) string { return strings.Replace(b, `"num_workers":4,`, `"num_workers":5,`, 1) },
	} {
		d := releasePairDiff(t, edit)
		if len(d.Diagnosis) == 0 || d.Diagnosis[0].Code != SigConfig || signature(d, SigTiming) != nil {
			t.Fatalf("%s: diagnosis %v", name, d.Diagnosis)
		}
		ev := evidence(d.Diagnosis[0])
		if name == "moved" && !strings.Contains(ev, "/metadata/engine_config/aggregated/block_size 64 → /metadata/engine_config/aggregated/engine/block_size 128 (moved, another value)") {
			t.Fatalf("moved: %s", ev)
		}
		if name == "kept" && !strings.Contains(ev, "/metadata/execution/num_workers 4 → 5") {
			t.Fatalf("kept: %s", ev)
		}
	}
}

// Leaves pair as moved only along a path with sub-objects put in or taken out, the key last in
// both, and only when neither side has another candidate.
func TestMovedSettingPaths(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"/metadata/e/agg/block_size", "/metadata/e/agg/engine/block_size", true},
		{"/metadata/e/agg/engine/block_size", "/metadata/e/agg/block_size", true},
		{"/metadata/e/agg/perf/aic/backend", "/metadata/e/agg/engine/backend", false},
		{"/metadata/e/agg/block_size", "/metadata/e/agg/block_size", false},
		{"/metadata/e/agg/block_size", "/metadata/e/agg/engine/num_gpu_blocks", false},
	} {
		a, b := metaLeaf{ptr: c.a, seg: diffview.SplitPointer(c.a)}, metaLeaf{ptr: c.b, seg: diffview.SplitPointer(c.b)}
		if got := moved(a, b); got != c.want {
			t.Errorf("moved(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// Reports of no known release line (the same pair with its schema_version unknown) are read by
// the generic layout lens as before: settings moved with their keys kept, the renamed ones
// only in A and only in B, no setting differing.
func TestUnknownVersionsKeepTheGenericLayout(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(releasePair, name))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(strings.Replace(string(b), `"schema_version":"dynamo.offline-replay.v1"`, `"schema_version":"unknown"`, 1))
	}
	d, err := DiffBytes("baseline.jsonl", read("baseline.jsonl"), "candidate.jsonl", read("candidate.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if signature(d, SigVersion) != nil || signature(d, SigUnclassified) != nil {
		t.Fatalf("diagnosis %v", d.Diagnosis)
	}
	s := signature(d, SigSchema)
	if s == nil || s.Explains != 45 || !strings.HasPrefix(s.Label, "configuration laid out another way (24 setting(s) moved, 25 only in A, 21 only in B") ||
		!strings.Contains(evidence(*s), "/metadata/engine_config/aggregated/aic_mtp_seed → /metadata/engine_config/aggregated/engine/aic_mtp_seed (42)") {
		t.Fatalf("layout: %v", s)
	}
	if ev := evidence(*signature(d, SigCascade)); !strings.Contains(ev, "45 metadata member(s) differ before virtual time 0: the configuration laid out another way, no setting differs (see the schema-change signature)") {
		t.Fatalf("cascade: %s", ev)
	}
}
