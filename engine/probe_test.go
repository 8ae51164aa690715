package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A probe is one journaled process of an arm with one flag's value replaced; the same probe
// asked again (a resumed qualification) is read back from the journal, not run; a flag the
// row does not set is the row's error.
func TestRunProbeJournalsAndReusesAProbe(t *testing.T) {
	row := tinyTestRow("", "")
	row.Replay.Args = append(row.Replay.Args, "--num-gpu-blocks", "900")
	c, err := OpenOrCreate(row, testOptions(t, filepath.Join(t.TempDir(), "c")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	drain(c)
	req := ProbeRequest{Arm: Baseline, Flag: "--num-gpu-blocks", Value: 640, Purpose: "search", Index: 1}
	var first ProbeRun
	done := make(chan error, 1)
	if err := c.StartStage(StageQualify, func(ctx context.Context) bool {
		var err error
		first, err = c.Host().RunProbe(ctx, req)
		done <- err
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if first.Reused || first.Error != "" || first.Digest == "" || first.Evidence == nil || first.Run != "qualify/baseline-search-1-640" {
		t.Fatalf("first probe %+v", first)
	}
	start := slices.IndexFunc(c.History().Runs(), func(r RecordedRun) bool { return r.Start != nil && r.Start.Run == first.Run })
	if start < 0 {
		t.Fatal("the probe's run_start is not in the journal")
	}
	if ev, _ := os.ReadFile(filepath.Join(c.Dir(), "runs", "qualify", "baseline-search-1-640", "evidence.json")); len(ev) == 0 {
		t.Error("the probe's evidence was not kept")
	}

	again, err := c.Host().RunProbe(context.Background(), req)
	if err != nil || !again.Reused || again.Digest != first.Digest || again.Evidence == nil {
		t.Fatalf("the same probe again: %+v, %v", again, err)
	}
	if ps := c.History().Probes(); len(ps) != 1 || ps[0].Value != 640 || ps[0].Purpose != "search" {
		t.Fatalf("probes %+v", ps)
	}

	_, err = c.Host().RunProbe(context.Background(), ProbeRequest{Arm: Baseline, Flag: "--max-num-seqs", Value: 4, Purpose: "search", Index: 1})
	var rowErr *RowError
	if !errors.As(err, &rowErr) || !strings.Contains(err.Error(), "has no --max-num-seqs to probe") {
		t.Fatalf("a flag the row does not set: %v", err)
	}
}

func TestWithFlagReplacesEitherSpelling(t *testing.T) {
	if got := withFlag([]string{"--a", "1", "--num-gpu-blocks", "900"}, "--num-gpu-blocks", "640"); !slices.Equal(got, []string{"--a", "1", "--num-gpu-blocks", "640"}) {
		t.Errorf("pair: %q", got)
	}
	if got := withFlag([]string{"--num-gpu-blocks=900"}, "--num-gpu-blocks", "640"); !slices.Equal(got, []string{"--num-gpu-blocks=640"}) {
		t.Errorf("joined: %q", got)
	}
}
