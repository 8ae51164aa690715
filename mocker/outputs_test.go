package mocker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/report"
)

// checkSortedKeys walks a JSON document and fails on any object whose keys are not in
// bytewise order, naming the path.
func checkSortedKeys(t *testing.T, doc []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	type frame struct {
		obj     bool
		lastKey string
		expKey  bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{obj: true, expKey: true})
				continue
			case '[':
				stack = append(stack, frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		} else if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expKey {
			k := tok.(string)
			if stack[n-1].lastKey != "" && k <= stack[n-1].lastKey {
				t.Fatalf("key %q after %q: object keys not sorted bytewise", k, stack[n-1].lastKey)
			}
			stack[n-1].lastKey = k
			stack[n-1].expKey = false
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].expKey = true
		}
	}
}

func TestReplayWritesAllOutputsInTheHarnessShape(t *testing.T) {
	dir := t.TempDir()
	trace := genTrace(t, dir, 200, 3)
	canon := filepath.Join(dir, "c.jsonl")
	timings := filepath.Join(dir, "t.jsonl")
	rep := filepath.Join(dir, "r.json")
	prog := filepath.Join(dir, "p.jsonl")
	code, stdout, stderr := runMain(trace, "--num-workers", "2", "--num-gpu-blocks", "4096", "--iterations", "2",
		"--canonical-reports-jsonl", canon, "--timings-jsonl", timings, "--report-json", rep, "--progress-file", prog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "Saved report to "+rep+"\nOffline replay report\n  completed_requests: 200\n") || strings.Count(stdout, "\n  ") != 12 {
		t.Fatalf("stdout:\n%s", stdout)
	}

	rec, raw := readCanonical(t, canon)
	lines := strings.SplitAfter(string(raw), "\n")
	if len(lines) != 3 || lines[0] != lines[1] || lines[2] != "" {
		t.Fatalf("want two identical canonical lines, got %d", len(lines)-1)
	}
	checkSortedKeys(t, []byte(lines[0]))
	for _, frag := range []string{`"arrival_speedup_ratio":4.0`, `"planner":null`, `"replay_bench":true`, `"queue_wait_ms":0.0`,
		`"schema_version":"dynamo.offline-replay.v1"`, `"seed":3516948205`, `"encoding":"dynamo.offline-kv-ingest.v1"`} {
		if !strings.Contains(lines[0], frag) {
			t.Errorf("canonical line lacks %s", frag)
		}
	}
	if strings.Contains(lines[0], `"wall_time_ms"`) || strings.Contains(lines[0], `"processed_tokens_per_s"`) {
		t.Error("excluded summary keys must not be in the canonical line")
	}
	data, _ := os.ReadFile(trace)
	if rec.Metadata.Workload.Digest != workloadDigest(data) || !rec.Metadata.ReplayBench {
		t.Errorf("metadata: %+v", rec.Metadata)
	}
	if len(rec.PerRequest) != 200 || rec.Coverage.PerRequestRecords != 200 {
		t.Fatalf("%d per_request entries", len(rec.PerRequest))
	}
	in, out := 0, 0
	for i, p := range rec.PerRequest {
		if p.UUID != ordinalUUID(i) || p.TerminalStatus != "completed" || p.OutputLength != p.RequestedOutput {
			t.Fatalf("entry %d: %+v", i, p)
		}
		in += p.InputLength
		out += p.OutputLength
	}
	if rec.Summary["total_input_tokens"].(float64) != float64(in) || rec.Summary["total_output_tokens"].(float64) != float64(out) ||
		rec.Summary["completed_requests"].(float64) != 200 {
		t.Errorf("summary totals disagree with per_request: %v", rec.Summary)
	}
	if k := rec.Coverage.KVIngest; k == nil || k.Batches == 0 || k.KindCounts["stored"] == 0 || len(k.Digest) != 64 {
		t.Errorf("kv_ingest: %+v", rec.Coverage.KVIngest)
	}

	tl, _ := os.ReadFile(timings)
	tlines := strings.Split(strings.TrimSpace(string(tl)), "\n")
	if len(tlines) != 2 {
		t.Fatalf("%d timing lines", len(tlines))
	}
	for i, l := range tlines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"wall_time_ms", "replay_call_ms", "replay_cpu_ms", "trace_load_ms", "peak_rss_kib", "replay_execution_ms", "setup_ms", "end_to_end_ms"} {
			if _, ok := m[k]; !ok {
				t.Errorf("timing line lacks %s", k)
			}
		}
		if m["iteration"].(float64) != float64(i) || m["replay_bench"] != true || m["native_router_event_visibility"] != "pass-end" ||
			m["serving_mode"] != "aggregated" || m["router_mode"] != "kv-router" || m["engine_type"] != "vllm" {
			t.Errorf("timing line %d: %v", i, m)
		}
		if m["replay_execution_ms"].(float64) > m["replay_call_ms"].(float64) || m["setup_ms"].(float64) > m["end_to_end_ms"].(float64) {
			t.Errorf("timing regions do not nest: %v", m)
		}
	}

	pretty, _ := os.ReadFile(rep)
	if !bytes.HasPrefix(pretty, []byte("{\n  \"num_requests\": 200,\n  \"completed_requests\": 200,")) || bytes.HasSuffix(pretty, []byte("\n")) ||
		!bytes.Contains(pretty, []byte(`"wall_time_ms": `)) {
		t.Errorf("report json:\n%.300s", pretty)
	}

	pl, _ := os.ReadFile(prog)
	plines := strings.Split(strings.TrimSpace(string(pl)), "\n")
	var last struct {
		VT        *float64 `json:"virtual_time_ms"`
		Completed int      `json:"completed"`
		Total     int      `json:"total"`
	}
	if err := json.Unmarshal([]byte(plines[len(plines)-1]), &last); err != nil || last.VT == nil || last.Completed != 200 || last.Total != 200 {
		t.Fatalf("last progress line %q (%v)", plines[len(plines)-1], err)
	}
}

// The workload digest domain (spec §4.6) reproduces the note's value for Dynamo's tiny fixture.
func TestWorkloadDigestOfDynamoTinyTrace(t *testing.T) {
	tiny := "{\"timestamp\":0,\"input_length\":8,\"output_length\":2,\"hash_ids\":[1]}\n{\"timestamp\":1,\"input_length\":8,\"output_length\":2,\"hash_ids\":[1]}\n"
	if got := workloadDigest([]byte(tiny)); got != "6472e984364194c5bcff1702196afbcddfb7fc47ed119ae1d922d96a814cc708" {
		t.Fatalf("digest %s", got)
	}
	data, err := os.ReadFile(sharedTrace(t, "mooncake_trace_1000.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := workloadDigest(data); got != "b9346813269079710017859384026de64dc7b68b83395055c93f08266077fb87" {
		t.Fatalf("1000-row digest %s", got)
	}
}

// Spec §5.1: clamping to len(hash_ids)·trace_block_size, stable order for equal timestamps,
// arrival normalisation, interning and session ids.
func TestWorkloadNormalisation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.jsonl")
	writeFile(t, path, `{"timestamp": 100, "input_length": 5000, "output_length": 2, "hash_ids": [9, 8]}
{"timestamp": 50, "input_length": 100, "output_length": 1, "hash_ids": [9]}
{"timestamp": 100, "output_length": 3, "hash_ids": [9, 7], "session_id": "s"}
{"timestamp": 50, "input_length": 700, "output_length": 1, "hash_ids": [9, 8], "session_id": "s"}
`)
	cfg, v, wl := prepared(t, []string{path, "--arrival-speedup-ratio", "2", "--block-size", "64"})
	_ = cfg
	_ = v
	got := []struct {
		line, prompt int
		arrival      float64
		session      string
		turn         int
	}{{2, 100, 0, "request_2", 0}, {4, 700, 0, "s", 1}, {1, 1024, 25, "request_1", 0}, {3, 1024, 25, "s", 0}}
	for i, r := range wl.requests {
		g := got[i]
		if r.line != g.line || r.promptLen != g.prompt || r.arrival != g.arrival || r.sessionID != g.session || r.turn != g.turn || r.ord != i {
			t.Errorf("request %d: line %d prompt %d arrival %v session %s turn %d", i, r.line, r.promptLen, r.arrival, r.sessionID, r.turn)
		}
	}
	// the same trace block gives the same engine-block ids; 8 engine blocks per trace block
	a, b := wl.requests[2], wl.requests[3]
	if len(a.ids) != 16 || a.ids[7] != b.ids[7] || a.ids[8] == b.ids[8] {
		t.Errorf("prefix block ids: %v vs %v", a.ids, b.ids)
	}
	if wl.requests[0].ids[0] != a.ids[0] || len(wl.requests[0].ids) != 1 {
		t.Errorf("shared first block must intern to the same id")
	}
}

// The per-trace-block interner gives every prompt block the same sequence hash as hashing the
// synthesized tokens block by block; the generic path covers block sizes that do not tile.
func TestInternerMatchesBlockByBlockHashing(t *testing.T) {
	trace := genTrace(t, t.TempDir(), 300, 21)
	for _, bs := range []string{"64", "512", "96"} {
		_, _, wl := prepared(t, []string{trace, "--block-size", bs})
		data, _ := os.ReadFile(trace)
		cfgRows := mustRows(t, data)
		intern := map[uint64]uint32{}
		byLine := map[int][]uint32{}
		for _, r := range cfgRows {
			ids := make([]uint32, len(r.HashIDs))
			for k, h := range r.HashIDs {
				if _, ok := intern[h]; !ok {
					intern[h] = uint32(len(intern))
				}
				ids[k] = intern[h]
			}
			byLine[r.Line] = ids
		}
		n := 0
		fmt.Sscan(bs, &n)
		for _, r := range wl.requests {
			locals, hashes := promptBlockHashes(byLine[r.line], r.promptLen, 512, n)
			if len(hashes) != len(r.ids) {
				t.Fatalf("bs %s: %d ids for %d blocks", bs, len(r.ids), len(hashes))
			}
			for j, id := range r.ids {
				if wl.blocks.hash[id] != hashes[j] || wl.blocks.local[id] != locals[j] {
					t.Fatalf("bs %s: request %d block %d hash differs", bs, r.ord, j)
				}
			}
		}
	}
}

func mustRows(t *testing.T, data []byte) []report.MooncakeRow {
	t.Helper()
	rows, err := report.ReadMooncake(bytes.NewReader(data), "t")
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Pressure records reach the progress side channel as they happen (kvparity shows them live),
// each with the fields of its canonical record, and a readmission line when it is readmitted.
func TestProgressFileAnnouncesPressureLive(t *testing.T) {
	dir := t.TempDir()
	trace := genTrace(t, dir, 200, 3)
	canon := filepath.Join(dir, "c.jsonl")
	prog := filepath.Join(dir, "p.jsonl")
	code, _, stderr := runMain(trace, "--num-workers", "1", "--num-gpu-blocks", "64", "--iterations", "2",
		"--canonical-reports-jsonl", canon, "--progress-file", prog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	raw, _ := os.ReadFile(canon)
	var rec struct {
		Coverage struct {
			Pressure struct {
				Records []struct {
					Ordinal    int      `json:"pressure_ordinal"`
					AtMs       float64  `json:"at_ms"`
					UUID       string   `json:"request_uuid"`
					Readmitted *float64 `json:"readmitted_at_ms"`
				} `json:"records"`
			} `json:"pressure"`
		} `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(string(raw), "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	want := rec.Coverage.Pressure.Records
	if len(want) == 0 {
		t.Fatal("the trace produced no pressure: the test needs some")
	}
	pl, _ := os.ReadFile(prog)
	type live struct {
		Pressure *struct {
			Ordinal int     `json:"ordinal"`
			AtMs    float64 `json:"at_ms"`
			UUID    string  `json:"request_uuid"`
		} `json:"pressure"`
		Readmitted *struct {
			Ordinal int     `json:"ordinal"`
			AtMs    float64 `json:"at_ms"`
		} `json:"readmitted"`
	}
	seen, readmitted := 0, map[int]float64{}
	for _, l := range strings.Split(strings.TrimSpace(string(pl)), "\n") {
		var p live
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("progress line %q: %v", l, err)
		}
		switch {
		case p.Pressure != nil:
			if p.Pressure.Ordinal != seen || p.Pressure.Ordinal >= len(want) {
				t.Fatalf("pressure line %q out of order (want ordinal %d of %d; later iterations must not repeat)", l, seen, len(want))
			}
			w := want[seen]
			if w.AtMs != p.Pressure.AtMs || w.UUID != p.Pressure.UUID {
				t.Fatalf("live %q, canonical %+v", l, w)
			}
			seen++
		case p.Readmitted != nil:
			if p.Readmitted.Ordinal >= seen {
				t.Fatalf("readmission %q before its record", l)
			}
			readmitted[p.Readmitted.Ordinal] = p.Readmitted.AtMs
		}
	}
	if seen != len(want) {
		t.Fatalf("%d live records, %d canonical", seen, len(want))
	}
	for _, w := range want {
		at, ok := readmitted[w.Ordinal]
		if (w.Readmitted != nil) != ok || (ok && at != *w.Readmitted) {
			t.Fatalf("record %d: canonical readmitted %v, live %v %v", w.Ordinal, w.Readmitted, at, ok)
		}
	}
}
