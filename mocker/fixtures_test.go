package mocker

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Forced lifecycle fixtures (protocol Stage 6): each is a small generated trace plus a flag
// set under testdata/fixtures/<name>/, and each test asserts the lifecycle itself, not just
// completion. Regenerate with `go test ./mocker -run TestFixturesAreGenerated -update-fixtures`.

var updateFixtures = flag.Bool("update-fixtures", false, "rewrite testdata/fixtures from the generators")

const fixtureRoot = "../testdata/fixtures"

type fixture struct {
	name  string
	rows  func() string
	args  []string
	about string
}

// row formats one Mooncake row in the published layout.
func row(ts, input, output int, ids ...int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return fmt.Sprintf("{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": [%s]}\n", ts, input, output, strings.Join(s, ", "))
}

// idsFrom returns n consecutive ids starting at first.
func idsFrom(first, n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = first + i
	}
	return ids
}

var fixtures = []fixture{
	{
		name:  "router-queue",
		about: "one worker, --router-queue-threshold 0.5: a burst of 6,000-token prompts keeps the worker busy (active prefill > 4,096 tokens), so later arrivals queue in the router and are released one by one as prefills complete",
		rows: func() string {
			var b strings.Builder
			for i := 0; i < 10; i++ {
				b.WriteString(row(i*4, 6000, 16, idsFrom(1000*(i+1), 12)...))
			}
			return b.String()
		},
		args: []string{"--num-workers", "1", "--engine-type", "vllm", "--router-mode", "kv-router", "--router-queue-threshold", "0.5",
			"--block-size", "64", "--num-gpu-blocks", "4096", "--max-num-seqs", "16", "--max-num-batched-tokens", "8192", "--arrival-speedup-ratio", "1"},
	},
	{
		name:  "preemption-edge",
		about: "one vLLM worker with 80 blocks of 16 tokens and four 256-token prompts generating 200 tokens each: KV growth exhausts the pool twice, LIFO preempts the newest request, both are readmitted and finish",
		rows: func() string {
			var b strings.Builder
			for i := 0; i < 4; i++ {
				b.WriteString(row(i*10, 256, 200, 100+i))
			}
			return b.String()
		},
		args: []string{"--num-workers", "1", "--engine-type", "vllm", "--block-size", "16", "--num-gpu-blocks", "80", "--max-num-seqs", "4",
			"--max-num-batched-tokens", "8192", "--arrival-speedup-ratio", "1"},
	},
	{
		name:  "handoff-vllm",
		about: "disaggregated vLLM with a slow transfer (1,000 bytes/token at 1 GB/s): source-first handoff, the source holds its KV until the destination activates",
		rows:  handoffRows,
		args:  handoffArgs("vllm"),
	},
	{
		name:  "handoff-sglang",
		about: "disaggregated SGLang with the same slow transfer: destination-first handoff, the destination is reserved before the source prefills",
		rows:  handoffRows,
		args:  handoffArgs("sglang"),
	},
	{
		name:  "scale-to-zero",
		about: "two workers scaled to zero at 2,000 ms and back to two at 6,000 ms (kvparity extension --scale-event): arrivals in between wait as queued placements and are released at the scale-up; the drained workers reset their caches (router Cleared events, boundary worker_lifecycle). --router-queue-threshold 4 turns the KV router's queue on (Dynamo's router holds work only with queueing enabled and otherwise refuses an arrival while no worker is live: no endpoints) and is never reached by a live worker (four times a worker's batched-token budget in active prefill, more than the whole trace)",
		rows: func() string {
			var b strings.Builder
			for i := 0; i < 18; i++ {
				b.WriteString(row(i*500, 1500, 8, 7, 100+i, 200+i))
			}
			return b.String()
		},
		args: []string{"--num-workers", "2", "--engine-type", "vllm", "--block-size", "64", "--num-gpu-blocks", "1024", "--max-num-seqs", "8",
			"--arrival-speedup-ratio", "1", "--router-queue-threshold", "4", "--scale-event", "2000:0", "--scale-event", "6000:2"},
	},
}

// handoffRows: eight prompts sharing a two-block prefix, so destination-missing timing charges
// less than the full prompt once the prefix is resident on a decode worker.
func handoffRows() string {
	var b strings.Builder
	for i := 0; i < 8; i++ {
		b.WriteString(row(i*300, 2000, 12, append([]int{1, 2}, 10+i, 20+i)...))
	}
	return b.String()
}

// handoffArgs is the disaggregated row both handoff fixtures run: one prefill and two decode
// workers with a slow transfer (1,000 bytes/token at 1 GB/s), on the given engine.
func handoffArgs(engine string) []string {
	return []string{"--serving-mode", "disagg", "--num-prefill-workers", "1", "--num-decode-workers", "2", "--engine-type", engine,
		"--block-size", "64", "--num-gpu-blocks", "2048", "--max-num-seqs", "8", "--kv-bytes-per-token", "1000", "--kv-transfer-bandwidth", "1",
		"--arrival-speedup-ratio", "1"}
}

func (f fixture) dir() string { return filepath.Join(fixtureRoot, f.name) }

func (f fixture) files() map[string][]byte {
	return map[string][]byte{
		"trace.jsonl": []byte(f.rows()),
		"args":        []byte(strings.Join(f.args, "\n") + "\n"),
		"README.md":   []byte("# " + f.name + "\n\n" + f.about + ".\n\nRun: `kvparity replay trace.jsonl $(cat args)`. Generated by mocker/fixtures_test.go.\n"),
	}
}

func TestFixturesAreGenerated(t *testing.T) {
	for _, f := range fixtures {
		for name, want := range f.files() {
			path := filepath.Join(f.dir(), name)
			if *updateFixtures {
				if err := os.MkdirAll(f.dir(), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s is stale or missing (rerun with -update-fixtures): %v", path, err)
			}
		}
	}
}

// runFixture replays a committed fixture with its committed flags and returns the record.
func runFixture(t *testing.T, name string, extra ...string) canonicalRecord {
	t.Helper()
	dir := filepath.Join(fixtureRoot, name)
	argb, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "c.jsonl")
	args := append([]string{filepath.Join(dir, "trace.jsonl")}, strings.Fields(string(argb))...)
	args = append(args, extra...)
	args = append(args, "--canonical-reports-jsonl", out)
	if code, _, stderr := runMain(args...); code != 0 {
		t.Fatalf("replay exit %d: %s", code, stderr)
	}
	rec, _ := readCanonical(t, out)
	for _, p := range rec.PerRequest {
		if p.TerminalStatus != "completed" || p.OutputLength != p.RequestedOutput {
			t.Fatalf("%s: request %s ended %s with %d/%d tokens", name, p.UUID, p.TerminalStatus, p.OutputLength, p.RequestedOutput)
		}
	}
	return rec
}

func TestFixtureRouterQueue(t *testing.T) {
	rec := runFixture(t, "router-queue")
	queued, released := 0, 0
	prevRelease := 0.0
	for _, p := range rec.PerRequest {
		if len(p.RoutingHistory) != 1 {
			t.Fatalf("%s: %d routing entries", p.UUID, len(p.RoutingHistory))
		}
		r := p.RoutingHistory[0]
		if r.Outcome != "queued" {
			continue
		}
		queued++
		if r.EnteredAt == nil || r.ReleasedAt == nil || r.Worker == nil {
			t.Fatalf("%s: queued entry not completed: %+v", p.UUID, r)
		}
		released++
		if r.WaitMs <= 0 || r.WaitMs != *r.ReleasedAt-*r.EnteredAt || *r.EnteredAt != p.Arrival {
			t.Errorf("%s: queue wait %v from %v to %v", p.UUID, r.WaitMs, *r.EnteredAt, *r.ReleasedAt)
		}
		if *p.FirstAdmit < *r.ReleasedAt {
			t.Errorf("%s: admitted at %v before its release at %v", p.UUID, *p.FirstAdmit, *r.ReleasedAt)
		}
		if *r.ReleasedAt < prevRelease {
			t.Errorf("%s: fcfs release order broken", p.UUID)
		}
		prevRelease = *r.ReleasedAt
	}
	if queued == 0 || queued != released {
		t.Fatalf("queued %d, released %d: the fixture must queue and release", queued, released)
	}
	if rec.PerRequest[0].RoutingHistory[0].Outcome != "immediate" {
		t.Error("the first request finds an idle worker and must be placed immediately")
	}
}

func TestFixturePreemptionEdge(t *testing.T) {
	rec := runFixture(t, "preemption-edge")
	pr := rec.Coverage.Pressure
	if n := pr.VLLM; n < 1 || n > 3 || len(pr.Records) != n || pr.SGLang != 0 {
		t.Fatalf("want 1-3 vLLM preemptions, got %d (%d records)", n, len(pr.Records))
	}
	byUUID := map[string]perRequest{}
	for _, p := range rec.PerRequest {
		byUUID[p.UUID] = p
	}
	prevAt := -1.0
	for i, r := range pr.Records {
		if r.Ordinal != i || r.Kind != "vllm_preemption" || r.Pool != "agg" {
			t.Errorf("record %d: %+v", i, r)
		}
		if r.AtMs <= prevAt {
			t.Errorf("virtual time must advance between pressure events: %v then %v", prevAt, r.AtMs)
		}
		prevAt = r.AtMs
		if r.ReadmittedAt == nil || *r.ReadmittedAt <= r.AtMs {
			t.Fatalf("record %d not readmitted after its preemption: %+v", i, r)
		}
		p := byUUID[r.RequestUUID]
		if p.ReadmissionCount == 0 || *p.Terminal <= *r.ReadmittedAt {
			t.Errorf("%s: readmissions %d, terminal %v", p.UUID, p.ReadmissionCount, *p.Terminal)
		}
		found := false
		for _, o := range p.PressureRecordOrdinals {
			found = found || o == r.Ordinal
		}
		last := p.AdmissionHistory[len(p.AdmissionHistory)-1]
		if !found || !last.IsReadmission {
			t.Errorf("%s: pressure ordinals %v, admissions %+v", p.UUID, p.PressureRecordOrdinals, p.AdmissionHistory)
		}
	}
	// LIFO: the newest running request is the victim, so the first request is never preempted
	if first := rec.PerRequest[0]; first.ReadmissionCount != 0 {
		t.Errorf("oldest request was preempted under LIFO")
	}
}

func TestFixturePreemptionFIFOVariantPreemptsTheOldest(t *testing.T) {
	rec := runFixture(t, "preemption-edge", "--variant", "fifo-preemption")
	if len(rec.Coverage.Pressure.Records) == 0 || rec.Coverage.Pressure.Records[0].RequestUUID != ordinalUUID(0) {
		t.Fatalf("fifo-preemption must preempt the oldest running request first: %+v", rec.Coverage.Pressure.Records)
	}
}

func handoffTimes(t *testing.T, p perRequest) (held, reserved, activated, released, admit float64) {
	t.Helper()
	for _, f := range []*float64{p.SourceHeld, p.DestinationReserved, p.DestinationActivated, p.SourceReleased, p.DecodeAdmit, p.PrefillAdmit} {
		if f == nil {
			t.Fatalf("%s: incomplete handoff %+v", p.UUID, p)
		}
	}
	return *p.SourceHeld, *p.DestinationReserved, *p.DestinationActivated, *p.SourceReleased, *p.DecodeAdmit
}

func TestFixtureHandoffVLLMIsSourceFirst(t *testing.T) {
	rec := runFixture(t, "handoff-vllm")
	for _, p := range rec.PerRequest {
		held, reserved, activated, released, admit := handoffTimes(t, p)
		if !(*p.PrefillAdmit < held && held <= reserved && reserved < activated && activated == released && admit == activated) {
			t.Errorf("%s: prefill %v held %v reserved %v activated %v released %v admit %v: not source-first",
				p.UUID, *p.PrefillAdmit, held, reserved, activated, released, admit)
		}
		// full-prompt timing: 2,000 tokens × 1,000 bytes at 1 GB/s = 2 ms
		if d := activated - reserved; d < 1.999999 || d > 2.000001 {
			t.Errorf("%s: transfer took %v ms, want 2", p.UUID, d)
		}
		if *p.FirstToken != activated || len(p.RoutingHistory) != 2 || p.RoutingHistory[0].Pool != "prefill" || p.RoutingHistory[1].Pool != "decode" {
			t.Errorf("%s: first token %v, routing %+v", p.UUID, *p.FirstToken, p.RoutingHistory)
		}
	}
}

func TestFixtureHandoffSGLangIsDestinationFirst(t *testing.T) {
	rec := runFixture(t, "handoff-sglang")
	for _, p := range rec.PerRequest {
		held, reserved, activated, released, admit := handoffTimes(t, p)
		if !(reserved <= *p.PrefillAdmit && *p.PrefillAdmit < held && held < activated && activated == released && admit == activated) {
			t.Errorf("%s: reserved %v prefill %v held %v activated %v released %v: not destination-first",
				p.UUID, reserved, *p.PrefillAdmit, held, activated, released)
		}
		if len(p.RoutingHistory) != 2 || p.RoutingHistory[0].Pool != "decode" || p.RoutingHistory[1].Pool != "prefill" {
			t.Errorf("%s: the destination is routed first: %+v", p.UUID, p.RoutingHistory)
		}
	}
}

// destination-missing charges only the tokens not already resident at the destination.
func TestFixtureHandoffDestinationMissingTiming(t *testing.T) {
	rec := runFixture(t, "handoff-vllm", "--kv-transfer-timing-mode", "destination-missing")
	shorter := 0
	for _, p := range rec.PerRequest {
		_, reserved, activated, _, _ := handoffTimes(t, p)
		if d := activated - reserved; d < 2.0-1e-9 {
			shorter++
		}
	}
	if shorter == 0 {
		t.Fatal("with a shared prefix resident on the decode worker some transfers must be shorter than the full prompt")
	}
}

func TestFixtureScaleToZeroThenScaleUp(t *testing.T) {
	rec := runFixture(t, "scale-to-zero")
	pending := 0
	for _, p := range rec.PerRequest {
		r := p.RoutingHistory[0]
		inGap := p.Arrival >= 2000 && p.Arrival < 6000
		if inGap != (r.Outcome == "queued") {
			t.Errorf("%s arrived at %v: outcome %s", p.UUID, p.Arrival, r.Outcome)
		}
		if !inGap {
			continue
		}
		pending++
		if r.ReleasedAt == nil || *r.ReleasedAt != 6000 || *p.FirstAdmit < 6000 {
			t.Errorf("%s: pending work must be released by the scale-up at 6000: %+v admit %v", p.UUID, r, *p.FirstAdmit)
		}
	}
	if pending != 8 {
		t.Fatalf("%d requests pending while scaled to zero, want 8", pending)
	}
	// both drained workers reset their caches: one Cleared event each, at the scale-down
	if k := rec.Coverage.KVIngest; k == nil || k.KindCounts["cleared"] != 2 {
		t.Errorf("kv_ingest after scale-to-zero: %+v", rec.Coverage.KVIngest)
	}
	for _, p := range rec.PerRequest {
		if p.Arrival == 2000 && p.Reused != 0 { // the first request placed after the scale-up
			t.Errorf("%s: reused %d tokens from a cache that was cleared", p.UUID, p.Reused)
		}
	}
	// in-flight work at the scale-down drains on its workers
	for _, p := range rec.PerRequest {
		if p.Arrival < 2000 && *p.FirstAdmit > 2000 && p.RoutingHistory[0].Outcome != "immediate" {
			t.Errorf("%s: placed before the scale-down but not immediate", p.UUID)
		}
	}
}
