package diffview

import (
	"strconv"
	"strings"
	"testing"

	fx "kvparity/diffview/difftest"
)

// ff spells a float as Python's json does (shortest, always with a decimal point).
func ff(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// releaseRecord is one --report-jsonl line the way a release replay writes it: keys in its own
// order, not in byte order.
func releaseRecord(uuid string, arrival, first, last float64, worker int) string {
	return `{"uuid":"` + uuid + `","arrival_time_ms":` + ff(arrival) + `,"first_token_ms":` + ff(first) +
		`,"last_token_ms":` + ff(last) + `,"ttft_ms":` + ff(first-arrival) + `,"input_length":100,"output_length":8,"decode_worker_idx":` + strconv.Itoa(worker) + `}`
}

const releaseSummary = "{\n  \"completed_requests\": 2,\n  \"duration_ms\": 30.0,\n  \"mean_ttft_ms\": 5.0,\n  \"wall_time_ms\": 812.5\n}\n"

func TestDiffReleaseRecordsAndSummary(t *testing.T) {
	dir := t.TempDir()
	ra := fx.WriteFile(t, dir, "a.jsonl", releaseRecord("r-1", 0, 5, 20, 0)+"\n"+releaseRecord("r-2", 1, 6, 30, 1)+"\n")
	// B wrote the same requests in another order (as they finished), one first token later.
	rb := fx.WriteFile(t, dir, "b.jsonl", releaseRecord("r-2", 1, 7, 30, 1)+"\n\n"+releaseRecord("r-1", 0, 5, 20, 0)+"\n")
	sa := fx.WriteFile(t, dir, "a.json", releaseSummary)
	sb := fx.WriteFile(t, dir, "b.json", strings.Replace(releaseSummary, "812.5", "640.25", 1))
	d, err := DiffRelease(ReleaseRun{Records: ra, Summary: sa}, ReleaseRun{Records: rb, Summary: sb})
	if err != nil {
		t.Fatal(err)
	}
	var ptrs []string
	for _, c := range d.Changes {
		ptrs = append(ptrs, c.Pointer)
	}
	// Records are paired by uuid, whatever their order; B's index names the record.
	if got := strings.Join(ptrs, " "); got != "/per_request/0/first_token_ms /per_request/0/ttft_ms" {
		t.Fatalf("changes %q", got)
	}
	// The summary's wall time is the canonical profile's /summary/wall_time_ms: excluded, said.
	if len(d.Excluded) != 1 || d.Excluded[0].Pointer != "/summary/wall_time_ms" {
		t.Fatalf("excluded %v", d.Excluded)
	}
	if len(d.Notes) < 2 || !strings.Contains(d.Notes[0], "A is a release replay's output: 2 per-request record(s) of "+ra) || !strings.Contains(d.Notes[1], "the summary "+sb+" as /summary") {
		t.Fatalf("notes %q", d.Notes)
	}
	if strings.Contains(strings.Join(d.Notes, "\n"), "not canonical") {
		t.Fatalf("a release run's key order is no canonical-form note: %q", d.Notes)
	}
}

// DiffFiles tells a release run's records and summary from a canonical report by their first
// value, so `kvparity diff A.jsonl B.jsonl` reads either.
func TestDiffFilesReadsReleaseOutputs(t *testing.T) {
	dir := t.TempDir()
	ra := fx.WriteFile(t, dir, "a.jsonl", releaseRecord("r-1", 0, 5, 20, 0)+"\n")
	rb := fx.WriteFile(t, dir, "b.jsonl", releaseRecord("r-1", 0, 5, 20, 1)+"\n")
	d, err := DiffFiles(ra, rb)
	if err != nil {
		t.Fatal(err)
	}
	if d.Count != 1 || d.Changes[0].Pointer != "/per_request/0/decode_worker_idx" {
		t.Fatalf("records: %d changes %v", d.Count, d.Changes)
	}
	sa := fx.WriteFile(t, dir, "a.json", releaseSummary)
	sb := fx.WriteFile(t, dir, "b.json", strings.Replace(releaseSummary, "5.0", "5.5", 1))
	d, err = DiffFiles(sa, sb)
	if err != nil {
		t.Fatal(err)
	}
	if d.Count != 1 || d.Changes[0].Pointer != "/summary/mean_ttft_ms" || len(d.Excluded) != 0 {
		t.Fatalf("summaries: %d changes %v, excluded %v", d.Count, d.Changes, d.Excluded)
	}
	for _, src := range []string{releaseRecord("x", 0, 1, 2, 0), releaseSummary, `{"summary":{},"per_request":[]}`, `[1]`, `{`} {
		want := map[string]fileShape{releaseRecord("x", 0, 1, 2, 0): shapeReleaseRecords, releaseSummary: shapeReleaseSummary}[src]
		if got := sniffShape([]byte(src)); got != want {
			t.Errorf("sniffShape(%.30q) = %d, want %d", src, got, want)
		}
	}
}

// Every bad input names the file and line it is on, not an offset into the laid-out report.
func TestDiffReleaseErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	good := fx.WriteFile(t, dir, "good.jsonl", releaseRecord("r-1", 0, 5, 20, 0)+"\n")
	sum := fx.WriteFile(t, dir, "good.json", releaseSummary)
	cases := []struct {
		run  ReleaseRun
		want string
	}{
		{ReleaseRun{Records: fx.WriteFile(t, dir, "r1.jsonl", releaseRecord("r-1", 0, 5, 20, 0)+"\n"+`{"uuid":"r-2","x":1,}`+"\n")}, "r1.jsonl:2:21: at /per_request/1: expected a string key"},
		{ReleaseRun{Records: fx.WriteFile(t, dir, "r2.jsonl", releaseRecord("r-1", 0, 5, 20, 0)+"\n\n"+`[1,2]`+"\n")}, "r2.jsonl:3:1: at /per_request/1: a per-request record must be an object"},
		{ReleaseRun{Records: fx.WriteFile(t, dir, "r3.jsonl", `{"arrival_time_ms":0}`+"\n")}, "r3.jsonl:1:1: at /per_request/0/uuid: missing or not a string"},
		{ReleaseRun{Records: fx.WriteFile(t, dir, "r4.jsonl", "\n\n")}, "r4.jsonl: no per-request record (empty file)"},
		{ReleaseRun{Records: good, Summary: fx.WriteFile(t, dir, "s1.json", "{\n  \"a\": 1,\n  \"b\": tru\n}\n")}, "s1.json:3:8: at /summary/b: "},
		{ReleaseRun{Summary: fx.WriteFile(t, dir, "s2.json", "[1]\n")}, "s2.json:1:1: the summary must be a JSON object"},
		{ReleaseRun{Records: good, Summary: fx.WriteFile(t, dir, "s3.json", "")}, "s3.json: no summary object (empty file)"},
		{ReleaseRun{Records: fx.WriteFile(t, dir, "r5.jsonl", `{"uuid":"a","x":1,"x":2}`+"\n")}, "r5.jsonl:1:23: at /per_request/0: duplicate key \"x\""},
		{ReleaseRun{}, "needs its per-request records"},
	}
	for _, c := range cases {
		// The duplicate key is found where the records differ, so B differs from A there.
		other := ReleaseRun{Records: fx.WriteFile(t, dir, "other.jsonl", `{"uuid":"a","x":3}`+"\n"), Summary: sum}
		_, err := DiffRelease(c.run, other)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.run, err, c.want)
		}
	}
}

// FuzzLoadRelease: any bytes as records or summary load or fail with a message naming the
// file, never panic.
func FuzzLoadRelease(f *testing.F) {
	f.Add([]byte(releaseRecord("r-1", 0, 5, 20, 0)+"\n"+releaseRecord("r-2", 1, 6, 30, 1)), []byte(releaseSummary))
	f.Add([]byte("{\"uuid\":\"a\"}\n{"), []byte("{\n\"a\":\n"))
	f.Add([]byte("\n\n[]\n"), []byte("[]"))
	f.Fuzz(func(t *testing.T, records, summary []byte) {
		dir := t.TempDir()
		run := ReleaseRun{Records: fx.WriteFile(t, dir, "r.jsonl", string(records)), Summary: fx.WriteFile(t, dir, "s.json", string(summary))}
		d, err := loadRelease(run)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error names no file: %v", err)
			}
			return
		}
		if _, ok := d.Root["summary"]; d.origin == nil || !ok {
			t.Fatal("a loaded release run is laid out with its /summary")
		}
	})
}

// Records sorted by uuid (the canonical profile's order) are no emission order (the order of
// records that are not is said: TestRecordsEmittedInAnotherOrder, with the diagnosis).
func TestSortedRecordsAreNoEmissionOrder(t *testing.T) {
	if n := emissionOrder([]pair{{1, 0}, {0, 1}}, []string{"a", "b"}, []string{"b", "a"}); n != "" {
		t.Fatalf("sorted side: %q", n)
	}
}
