package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/internal/digest"
)

// Issue 44, item A: the row init-row writes declares the pressure band it relies on — the
// protocol's starting band for its (aggregated) topology — with a comment saying it is assumed
// and how to qualify it (stage 3). It used to write no band, and the default 1–3 failed rows
// whose file never mentioned one.
func TestInitRowWritesTheBandItAssumes(t *testing.T) {
	repo, _ := checkoutFixture(t, filepath.Join(t.TempDir(), "dynamo"))
	row, text := initRowLoad(t, repo)
	if got := row.Determinism.PressureBand; len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("[determinism] pressure_band %v, want [1, 3] declared:\n%s", got, text)
	}
	for _, want := range []string{"pressure_band = [1, 3]", "assumed, not qualified", "the protocol's starting band", "for an aggregated row", "(protocol stage 3)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the row does not say %q:\n%s", want, text)
		}
	}
}

// Issue 44, item C: init-row --trace PATH names the trace when the checkout ships none (or
// another is wanted): written relative to the row, its checksum and usable rows read from the
// file (a window of at most 5,000 rows). Without the flag, a checkout lacking the bench crate's
// trace is refused naming the missing file and the flag.
func TestInitRowTrace(t *testing.T) {
	dir := t.TempDir()
	repo, _ := checkoutFixture(t, filepath.Join(dir, "dynamo"))
	if err := os.Remove(filepath.Join(repo, filepath.FromSlash(checkoutTrace))); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	if code := initRowCmd([]string{"--checkout", repo}, &out, &errb); code == 0 ||
		!strings.Contains(errb.String(), "the checkout has no "+checkoutTrace) || !strings.Contains(errb.String(), "--trace PATH") {
		t.Fatalf("no in-tree trace, no --trace: exit %d, %s", code, errb.String())
	}

	trace := filepath.Join(dir, "traces", "mooncake 5001.jsonl")
	os.MkdirAll(filepath.Dir(trace), 0o755)
	var rows strings.Builder
	for i := range 5001 {
		fmt.Fprintf(&rows, `{"timestamp":%d,"input_length":10,"output_length":2,"hash_ids":[1]}`+"\n", i)
		if i == 7 {
			rows.WriteString("\n") // a blank line is not a row
		}
	}
	os.WriteFile(trace, []byte(rows.String()), 0o644)
	sum, err := digest.File(trace)
	if err != nil {
		t.Fatal(err)
	}
	row, text := initRowLoad(t, repo, "--trace", trace)
	if row.Trace.Path != trace || row.Trace.Count != 5000 || row.Trace.Offset != 0 || row.Trace.SHA256 != sum {
		t.Errorf("trace %q [%d:+%d] sha256 %s; want %q [0:+5000] %s", row.Trace.Path, row.Trace.Offset, row.Trace.Count, row.Trace.SHA256, trace, sum)
	}
	if !strings.Contains(text, "5001 usable rows, the window is the first 5000") {
		t.Errorf("the trace comment:\n%s", text)
	}
	// Relative to the row, like the checkout: the row file is in a temporary folder of its own.
	if strings.Contains(text, `path   = "/`) {
		t.Errorf("the trace path is not relative to the row:\n%s", text)
	}

	errb.Reset()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"timestamp\":0,\"input_length\":10,\"output_length\":2,\"hash_ids\":[1]}\nnot json\n"), 0o644)
	if code := initRowCmd([]string{"--checkout", repo, "--trace", bad}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--trace "+bad) || !strings.Contains(errb.String(), bad+":2") {
		t.Errorf("a malformed --trace: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	if code := initRowCmd([]string{"--checkout", repo, "--trace", filepath.Join(dir, "missing.jsonl")}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--trace "+filepath.Join(dir, "missing.jsonl")) {
		t.Errorf("a missing --trace: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	if code := initRowCmd([]string{"--trace", trace}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--trace needs --checkout") {
		t.Errorf("--trace without --checkout: exit %d, %s", code, errb.String())
	}
}
