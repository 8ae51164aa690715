package qualify_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvparity/e2e"
	"kvparity/engine/qualify"
)

// sharedTrace is the public Mooncake trace the golden points' window is cut from: under CI a
// missing copy fails, elsewhere the test skips.
func sharedTrace(t *testing.T) string {
	p, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "traces", "conversation_trace.jsonl"))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs the shared trace %s: %v", p, err)
		}
		t.Skipf("shared trace not available: %v", err)
	}
	return p
}

// The four golden rows' templates (spec §7) with Dynamo's own seeds; the embedded engine's
// capacities differ (testdata/golden-points.md), so qualification has to walk to its band.
var goldenRows = map[string]string{
	"vllm-agg": `"--serving-mode","aggregated","--num-workers","4","--engine-type","vllm","--block-size","64","--num-gpu-blocks","6144","--max-num-seqs","16","--max-num-batched-tokens","8192"`,
	"vllm-disagg": `"--serving-mode","disagg","--num-prefill-workers","2","--num-decode-workers","2","--engine-type","vllm","--block-size","64","--num-gpu-blocks","5500",
	        "--max-num-seqs","16","--max-num-batched-tokens","8192","--kv-bytes-per-token","1","--kv-transfer-bandwidth","100","--kv-transfer-timing-mode","full-prompt"`,
	"sglang-agg": `"--serving-mode","aggregated","--num-workers","4","--engine-type","sglang","--block-size","512","--num-gpu-blocks","1536","--max-num-seqs","256","--max-num-batched-tokens","32768"`,
	"sglang-disagg": `"--serving-mode","disagg","--num-prefill-workers","2","--num-decode-workers","2","--engine-type","sglang","--block-size","512","--num-gpu-blocks","11264",
	        "--max-num-seqs","256","--max-num-batched-tokens","32768","--kv-bytes-per-token","262144","--kv-transfer-bandwidth","100","--kv-transfer-timing-mode","full-prompt"`,
}

// TestQualifyReproducesTheGoldenPointsShape qualifies the four golden rows on the embedded
// engine, from Dynamo's seeds, on the public window: each ends in its band with a probe on each
// side, every probe bounded (readmitted, complete, virtual time advancing), the chosen capacity
// repeated by fresh processes with one digest, the candidate run once with the same flags, and
// a frozen row that parses back with the capacity and band.
func TestQualifyReproducesTheGoldenPointsShape(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 4 × 5,000 requests about 30 times")
	}
	trace := sharedTrace(t)
	bin := e2e.Binary(t)
	for name, args := range goldenRows {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			row := filepath.Join(dir, name+".toml")
			os.WriteFile(row, []byte(fmt.Sprintf(`name = %q
[baseline]
revision = "builtin"
binary = "builtin"
[candidate]
revision = "builtin"
binary = "builtin"
[trace]
path = %q
count = 5000
sha256 = "b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df"
[replay]
args = ["--router-mode","kv-router","--arrival-speedup-ratio","4","--trace-block-size","512","--speedup-ratio","1","--decode-speedup-ratio","1",
        %s]
`, name, trace, args)), 0o644)
			camp := filepath.Join(dir, "campaign")
			code, stdout, stderr := e2e.Run(t, bin, 10*time.Minute, "qualify", row, "--campaign", camp, "--json")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, e2e.Tail(stderr, 30))
			}
			var res qualify.Result
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatal(err)
			}
			if res.Outcome != qualify.Qualified || !res.Identity || len(res.Confirm) != qualify.DefaultConfirmations || res.Candidate == nil {
				t.Fatalf("result %+v", res)
			}
			var below, above bool
			for _, p := range append(append(res.Search, res.Edges...), res.Confirm...) {
				l := p.Lifecycle
				if p.Error != "" || l == nil {
					t.Fatalf("probe %s at %d: %s", p.Purpose, p.Capacity, p.Error)
				}
				if p.Class == qualify.Flood {
					continue // a flood is what the search backs off from
				}
				if l.Completed != 5000 || l.Readmitted != p.Count || l.VirtualEndMs <= l.VirtualStartMs {
					t.Errorf("probe at %d: %+v, %d %s", p.Capacity, *l, p.Count, p.Kind)
				}
				below = below || p.Capacity < res.Chosen
				above = above || p.Capacity > res.Chosen
			}
			if !below || !above {
				t.Errorf("no probe on each side of %d: %+v", res.Chosen, res.Search)
			}
			band := map[bool]qualify.Band{false: {Min: 1, Max: 3}, true: {Min: 10, Max: 20}}[strings.HasSuffix(name, "disagg")]
			if res.Band != band || res.Candidate.Digest != res.Digest {
				t.Errorf("band %v (want %v); candidate digest %s, baseline %s (both arms are the embedded engine)", res.Band, band, res.Candidate.Digest, res.Digest)
			}
			frozen, err := os.ReadFile(filepath.Join(camp, "qualify", "row.toml"))
			if err != nil || !strings.Contains(string(frozen), fmt.Sprintf(`"--num-gpu-blocks","%d"`, res.Chosen)) || !strings.Contains(string(frozen), fmt.Sprintf("pressure_band = [%d, %d]", band.Min, band.Max)) {
				t.Errorf("frozen row (%v):\n%s", err, frozen)
			}
			t.Logf("%s: %s", name, res.Why)
		})
	}
}
