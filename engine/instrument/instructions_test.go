package instrument

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A callgrind profile as valgrind 3.19 writes it with --collect-atstart=no --toggle-collect.
const callgrindProfile = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  ./offline_replay_bench trace.jsonl --iterations 1
part: 1

desc: I1 cache: 
desc: Timerange: Basic block 0 - 212045561
desc: Trigger: Program termination

positions: line
events: Ir
summary: 848883809

fn=(1) aisimulate_core::replay::bench_timing::timed_region
0 12
totals: 848883809
`

func TestReadInstructionCount(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, text string
		want       uint64
		err        string // "" for none; else a part of the error, which names the file
	}{
		{"summary", callgrindProfile, 848883809, ""},
		{"totals only", strings.Replace(callgrindProfile, "summary: 848883809\n", "", 1), 848883809, ""},
		{"summary wins over totals", strings.Replace(callgrindProfile, "totals: 848883809", "totals: 1", 1), 848883809, ""},
		{"several events", "events: Ir Dr Dw\nsummary: 77 5 6\n", 77, ""},
		{"Ir not first", "events: Dr Ir\nsummary: 5 77\n", 77, ""},
		{"trailing zero left out", "events: Dr Ir\nsummary: 5\n", 0, ""},
		{"nothing counted", "events: Ir\nsummary:\n", 0, ""},
		{"no summary or totals", "events: Ir\nfn=(1) main\n0 5\n", 0, "no summary: or totals: line"},
		{"no Ir event", "events: Dr\nsummary: 5\n", 0, ":2: summary before an events: line naming Ir"},
		{"malformed count", "events: Ir\nsummary: 12x\n", 0, `:2: summary Ir "12x" is not a count`},
		{"negative count", "events: Ir\ntotals: -5\n", 0, `:2: totals Ir "-5" is not a count`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tc.name, " ", "-")+".out", tc.text)
			got, err := ReadInstructionCount(p)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), p)):
				t.Fatalf("error %v, want one naming %s and saying %q", err, p, tc.err)
			case got != tc.want:
				t.Fatalf("count %d, want %d", got, tc.want)
			}
		})
	}
	if _, err := ReadInstructionCount(filepath.Join(dir, "absent.out")); err == nil || !strings.Contains(err.Error(), "absent.out") {
		t.Errorf("a missing profile: %v", err)
	}
}

func FuzzParseInstructionCount(f *testing.F) {
	f.Add([]byte(callgrindProfile))
	f.Add([]byte("events: Ir Dr\nsummary: 1 2\ntotals: 1 2\n"))
	f.Add([]byte("summary: 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := parseInstructionCount("fuzz.out", strings.NewReader(string(b)))
		if err != nil && !strings.HasPrefix(err.Error(), "fuzz.out") {
			t.Fatalf("an error that does not name the file: %v", err)
		}
		if err != nil && n != 0 {
			t.Fatalf("a count %d beside an error", n)
		}
	})
}

func TestDecideInstructions(t *testing.T) {
	r := DecideInstructions("valgrind-3.19.0", []string{RegionExtension.Name, RegionExtension.Name},
		[]uint64{1000, 1002, 1001}, []uint64{1100, 1100, 1099}, 0)
	if r.Baseline.Median != 1001 || r.Candidate.Median != 1100 || r.Threshold != DefaultInstructionsThreshold {
		t.Fatalf("%+v", r)
	}
	if math.Abs(r.Ratio-1100.0/1001) > 1e-12 || !r.Explain || math.Abs(r.Baseline.Spread-2.0/1001) > 1e-12 || r.Spread != r.Baseline.Spread {
		t.Fatalf("ratio %v explain %v spread %v", r.Ratio, r.Explain, r.Baseline.Spread)
	}
	if !strings.Contains(r.Reason, "above 1.03") || !strings.Contains(r.Reason, "decides") && !strings.Contains(r.Reason, "the gate is the wall-clock verdict") {
		t.Errorf("reason %q", r.Reason)
	}
	// Within a declared threshold; one run each has no spread; an even count's median is the mean of the middle two.
	r = DecideInstructions("v", nil, []uint64{1000, 1010}, []uint64{1040}, 1.05)
	if r.Explain || r.Baseline.Median != 1005 || r.Candidate.Spread != 0 || !strings.Contains(r.Reason, "within 1.05") {
		t.Fatalf("%+v", r)
	}
	// Counts near 2^64 do not overflow the median.
	big := uint64(math.MaxUint64 - 10)
	if m := armInstructions([]uint64{big, big + 2}).Median; m != big+1 {
		t.Errorf("median %d", m)
	}
}
