package driver_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"kvparity/driver"
	"kvparity/e2e"
	"kvparity/engine"
	"kvparity/engine/determinism"
	"kvparity/verdict"
)

// The package doc's "Adding a driver", run: a minimal driver -- the row, the shared step and
// one stage -- reaches on a built-in row the verdicts `kvparity run --stage determinism --json`
// (headless, the run driver) prints for the same row, word for word and reason for reason.
func TestAMinimalDriverAgreesWithHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two campaigns of the tiny row end to end")
	}
	bin := e2e.Binary(t)
	ctx := context.Background()

	// The driver: which campaign, which stage, and the verdicts in its own words.
	_, v, err := driver.Run(ctx, driver.Campaign{
		Row:     engine.TinyRow("", ""),
		Options: engine.Options{Dir: filepath.Join(t.TempDir(), "tiny"), BuiltinPath: bin},
		Stages: func(c *engine.Campaign) error {
			if err := determinism.Start(c.Host()); err != nil {
				return err
			}
			return c.WaitContext(ctx)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := verdict.NewDocument(verdict.KindRun, v.SemanticOnly())

	code, out, errs := e2e.Run(t, bin, 5*time.Minute, "run", "--row", "tiny", "--campaign", filepath.Join(t.TempDir(), "tiny"), "--stage", "determinism", "--json")
	if code != verdict.ExitPass {
		t.Fatalf("kvparity run: exit %d\n%s", code, e2e.Tail(errs, 20))
	}
	var want verdict.Document
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the minimal driver's verdicts\n%+v\nkvparity run's\n%+v", got, want)
	}
	if got.Overall.Verdict != verdict.Pass || verdict.ExitCode(got.Overall.Verdict) != code {
		t.Errorf("overall %s (exit %d), kvparity run exited %d", got.Overall.Verdict, verdict.ExitCode(got.Overall.Verdict), code)
	}
}
