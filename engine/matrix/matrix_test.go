package matrix

import (
	"context"
	"fmt"
	"io"
	"kvparity/engine/journal"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// writeRowFile writes a tiny built-in row named name (changed by each mutate) and returns its path.
func writeRowFile(t *testing.T, dir, name string, mutate ...func(*engine.Row)) string {
	t.Helper()
	r := engine.TinyRow("", "")
	r.Name = name
	for _, m := range mutate {
		m(r)
	}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".toml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeRun stands in for `kvparity run`: it writes the journal a passing determinism stage
// would, a report.md, and returns exit.
func fakeRun(t *testing.T, rowDir string, exit int, semantic string) {
	t.Helper()
	j, err := journal.Open[engine.Record](filepath.Join(rowDir, layout.FileJournal), nil)
	if err != nil {
		t.Error(err)
		return
	}
	defer j.Close()
	recs := []engine.Record{{Type: engine.RecCampaign}}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		for rep := 1; rep <= 2; rep++ {
			id := engine.RunID(fmt.Sprintf("det/%s-%d", arm, rep))
			recs = append(recs, engine.Record{Type: engine.RecRunStart, Run: id, Arm: arm, Kind: engine.KindRepetition},
				engine.Record{Type: engine.RecRunEnd, Run: id, Arm: arm, Kind: engine.KindRepetition, Digest: "d-" + filepath.Base(rowDir)})
		}
		recs = append(recs, engine.Record{Type: engine.RecVerdict, Stage: engine.StageDeterminism, Arm: arm, Verdict: "STABLE"})
	}
	recs = append(recs, engine.Record{Type: engine.RecVerdict, Stage: engine.StageParity, Verdict: verdict.Word(semantic)})
	for _, r := range recs {
		if _, err := j.Append(r); err != nil {
			t.Error(err)
		}
	}
	if err := os.WriteFile(filepath.Join(rowDir, "report.md"), []byte("# row\n"), 0o644); err != nil {
		t.Error(err)
	}
	// The report's verdicts, as campaignreport writes them at the row's end.
	w := verdict.Word(semantic)
	v := verdict.Verdicts{Overall: verdict.Of(w, "fake"), Semantic: verdict.Of(w, "fake"), ExitCode: exit}
	if err := writeJSONFile(filepath.Join(rowDir, layout.FileReportJSON), verdict.NewDocument(verdict.KindReport, v)); err != nil {
		t.Error(err)
	}
}

func TestMatrixLocalRunsRowsOneAfterAnother(t *testing.T) {
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "m")
	rows := []string{writeRowFile(t, src, "vllm-agg"), writeRowFile(t, src, "sglang-agg")}
	var inFlight, maxInFlight atomic.Int32
	var mu sync.Mutex
	var order []string
	var updates atomic.Int32
	var reported []Result // what the report hook was given, one per call
	res, err := Run(context.Background(), Options{
		Dir: dir, RowFiles: rows, Poll: 20 * time.Millisecond,
		RunLocal: func(ctx context.Context, rowFile, rowDir string, out io.Writer) int {
			n := inFlight.Add(1)
			if n > maxInFlight.Load() {
				maxInFlight.Store(n)
			}
			defer inFlight.Add(-1)
			mu.Lock()
			order = append(order, filepath.Base(rowDir))
			mu.Unlock()
			fmt.Fprintf(out, "running %s\n", rowFile)
			fakeRun(t, rowDir, 0, "PASS")
			time.Sleep(30 * time.Millisecond) // a row that takes time, so that two run at once would overlap
			return 0
		},
		OnUpdate: func([]RowStatus) { updates.Add(1) },
		Report: func(d string, rows []RowStatus, overall verdict.Outcome) error {
			reported = append(reported, Result{Dir: d, Rows: rows, Overall: overall})
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if maxInFlight.Load() != 1 || strings.Join(order, ",") != "vllm-agg,sglang-agg" {
		t.Fatalf("rows must run one after another in the given order: order %v, max in flight %d", order, maxInFlight.Load())
	}
	if res.ExitCode != 0 || len(res.Rows) != 2 || updates.Load() == 0 {
		t.Fatalf("exit %d, rows %d, updates %d", res.ExitCode, len(res.Rows), updates.Load())
	}
	for _, s := range res.Rows {
		if s.Stage != RowStageDone || s.Verdicts == nil || s.Verdicts.Semantic.Verdict != verdict.Pass || !slices.Equal(s.Digests[engine.Baseline], []string{"d-" + s.Row}) || s.Mode != "local" || s.Attempts != 1 || s.Node == "" || s.CPUs == "" {
			t.Errorf("row %s: %+v", s.Row, s)
		}
		jobs, err := ReadJobs(s.Dir)
		if err != nil || len(jobs) != 1 || jobs[0].State != JobCompleted || *jobs[0].ExitCode != 0 || jobs[0].Command[1] != "run" {
			t.Errorf("row %s jobs: %+v %v", s.Row, jobs, err)
		}
		out, _ := os.ReadFile(filepath.Join(s.Dir, layout.FileLocalRunOutput))
		if !strings.Contains(string(out), "running "+filepath.Join(src, s.Row+".toml")) {
			t.Errorf("row %s: run output %q", s.Row, out)
		}
		if ps, _ := ReadPlacements(s.Dir); len(ps) != 1 || ps[0].Mode != "local" {
			t.Errorf("row %s placement %+v", s.Row, ps)
		}
	}
	// The report is written after each row's end and once more at the end, from the final rows.
	if len(reported) != 3 {
		t.Fatalf("the report hook ran %d times, want 3 (two job ends, the end)", len(reported))
	}
	last := reported[len(reported)-1]
	if abs, _ := filepath.Abs(dir); last.Dir != abs || last.Dir != res.Dir || last.Overall.Verdict != verdict.Pass || res.Overall != last.Overall || len(last.Rows) != 2 || !slices.Equal(last.Rows[1].Digests[engine.Baseline], []string{"d-sglang-agg"}) {
		t.Fatalf("last report: %+v (result %+v)", last, res)
	}
	if first := reported[0]; first.Rows[0].Stage != RowStageDone || first.Rows[1].Stage == RowStageDone || first.Overall.Verdict != verdict.Undecided {
		t.Fatalf("the report after the first row's end: %+v", first)
	}
}

// An interrupted local run is recorded as environmental; the next matrix runs only that row
// again (its campaign resumes from the journal) and keeps the finished row's verdict.
func TestMatrixLocalResumesOnlyUnfinishedRows(t *testing.T) {
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "m")
	rows := []string{writeRowFile(t, src, "a"), writeRowFile(t, src, "b")}
	ctx, cancel := context.WithCancel(context.Background())
	res, err := Run(ctx, Options{Dir: dir, RowFiles: rows, Poll: 20 * time.Millisecond,
		RunLocal: func(ctx context.Context, rowFile, rowDir string, out io.Writer) int {
			if filepath.Base(rowDir) == "a" {
				fakeRun(t, rowDir, 1, "FAIL")
				return 1
			}
			j, err := journal.Open[engine.Record](filepath.Join(rowDir, layout.FileJournal), nil)
			if err != nil {
				t.Error(err)
				return 3
			}
			j.Append(engine.Record{Type: engine.RecCampaign})
			j.Append(engine.Record{Type: engine.RecRunStart, Run: "det/baseline-1", Arm: engine.Baseline, Kind: engine.KindRepetition})
			j.Close()
			cancel() // the user presses ctrl-c while b runs
			<-ctx.Done()
			return 2
		}})
	if err != context.Canceled {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if res.Rows[0].Stage != RowStageDone || res.Rows[0].Verdicts == nil || res.Rows[0].Verdicts.Overall.Verdict != verdict.Fail || res.Rows[1].Stage != RowStageInterrupted || len(res.Rows[1].Environmental) != 1 {
		t.Fatalf("first matrix: %+v", res.Rows)
	}
	if res.ExitCode != 1 {
		t.Fatalf("a FAIL row makes the matrix exit 1, got %d", res.ExitCode)
	}
	var ran []string
	res, err = Run(context.Background(), Options{Dir: dir, RowFiles: rows, Poll: 20 * time.Millisecond,
		RunLocal: func(ctx context.Context, rowFile, rowDir string, out io.Writer) int {
			ran = append(ran, filepath.Base(rowDir))
			fakeRun(t, rowDir, 0, "PASS")
			return 0
		}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ran, ",") != "b" {
		t.Fatalf("only the interrupted row runs again, ran %v", ran)
	}
	b := res.Rows[1]
	if b.Stage != RowStageDone || b.Attempts != 2 || len(b.Environmental) != 1 || !strings.Contains(b.Environmental[0], "CANCELLED") {
		t.Fatalf("row b: %+v", b)
	}
	// The interruption is in b's own journal too (its report shows it next to the runs).
	recs := readAll(t, filepath.Join(dir, "b", layout.FileJournal))
	found := false
	for _, r := range recs {
		if r.Type == RecMatrixJob && strings.Contains(r.Note, "environmental") {
			found = true
		}
	}
	if !found {
		t.Fatal("no matrix_job record in row b's journal")
	}
	// The job records carry the placement each attempt ran with.
	jobs, _ := ReadJobs(filepath.Join(dir, "b"))
	for i, j := range jobs {
		if j.Placement == nil || j.Placement.Mode != "local" || j.Placement.AllowedCPUs == "" {
			t.Errorf("attempt %d of b has no placement: %+v", i+1, j)
		}
	}
}

func readAll(t *testing.T, path string) []engine.Record {
	t.Helper()
	j, err := journal.Open[engine.Record](path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	return j.Records()
}

func TestMatrixRejectsBadInput(t *testing.T) {
	src := t.TempDir()
	a := writeRowFile(t, src, "same")
	other := filepath.Join(src, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	b := writeRowFile(t, other, "same")
	run := func(context.Context, string, string, io.Writer) int { return 0 }
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{RowFiles: []string{a}, RunLocal: run}, "--campaign DIR is required"},
		{Options{Dir: t.TempDir(), RunLocal: run}, "no row files"},
		{Options{Dir: t.TempDir(), RowFiles: []string{a, b}, RunLocal: run}, `name "same" is already the name of ` + a},
		{Options{Dir: t.TempDir(), RowFiles: []string{filepath.Join(src, "missing.toml")}, RunLocal: run}, "missing.toml"},
		{Options{Dir: filepath.Join(t.TempDir(), "my matrix"), RowFiles: []string{a}, RunLocal: run}, "spaces"},
	} {
		_, err := Run(context.Background(), c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error containing %q, got %v", c.want, err)
		}
	}
	bad := filepath.Join(src, "bad.toml")
	if err := os.WriteFile(bad, []byte("name = \"x\"\n[perf]\npairs = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Dir: t.TempDir(), RowFiles: []string{bad}, RunLocal: run}); err == nil || !strings.Contains(err.Error(), "bad.toml") {
		t.Fatalf("a bad row file is named: %v", err)
	}
}

// The kvparity copy the jobs run is replaced only until a row's campaign has pinned it.
func TestMatrixStagesItsBinaryOnce(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(t.TempDir(), "kvparity")
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var log strings.Builder
	r := &matrixRow{row: &engine.Row{Name: "r"}, dir: filepath.Join(dir, "r")}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := &matrix{o: Options{executable: exe}, dir: dir, rows: []*matrixRow{r}, log: &log}
	staged := filepath.Join(dir, layout.MatrixBinary)
	read := func() string { b, _ := os.ReadFile(staged); return string(b) }
	write(exe, "v1")
	if err := m.stageBinary(); err != nil || read() != "v1" {
		t.Fatalf("first copy: %v %q", err, read())
	}
	if fi, _ := os.Stat(staged); fi.Mode().Perm()&0o100 == 0 {
		t.Fatal("the staged copy must be executable")
	}
	write(exe, "v2")
	if err := m.stageBinary(); err != nil || read() != "v2" {
		t.Fatalf("no campaign yet: replaced: %v %q", err, read())
	}
	write(filepath.Join(r.dir, layout.FileJournal), "")
	write(exe, "v3")
	if err := m.stageBinary(); err != nil || read() != "v2" || !strings.Contains(log.String(), "keeping") {
		t.Fatalf("a started row keeps its binary: %v %q log %q", err, read(), log.String())
	}
}

// A second matrix on the same folder is refused while the first one follows it.
func TestMatrixLockRefusesASecondFollower(t *testing.T) {
	dir := t.TempDir()
	first, err := lockMatrix(dir, func(s string) { t.Error(s) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockMatrix(dir, func(s string) { t.Error(s) }); err == nil || !strings.Contains(err.Error(), "another kvparity matrix") || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("want a refusal naming the holder, got %v", err)
	}
	first.Close()
	again, err := lockMatrix(dir, func(s string) { t.Error(s) })
	if err != nil {
		t.Fatalf("the lock is free once the first matrix ends: %v", err)
	}
	again.Close()
}
