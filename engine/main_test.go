package engine

import (
	"flag"
	"kvparity/engine/journal"
	"os"
	"path/filepath"
	"testing"

	"kvparity/engine/build/buildtest"
	"kvparity/engine/replaytest"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// The engine tests need a replay binary. The test binary itself plays one (engine/replaytest):
// started with KVPARITY_FAKE_REPLAY=1 in its environment, TestMain acts as `kvparity replay`
// instead of running tests, so the runner, journal and stages are exercised end to end without
// building anything. Tests that need the real embedded engine build kvparity (see realKvparity).

func TestMain(m *testing.M) {
	if code, ok := buildtest.Main(); ok { // a fake cargo or rustc (watch_checkout_test.go)
		os.Exit(code)
	}
	if code, ok := replaytest.Main(); ok {
		os.Exit(code)
	}
	if dir := os.Getenv(runCampaignEnv); dir != "" {
		os.Exit(runCampaignChild(dir))
	}
	flag.Parse()
	os.Setenv(replaytest.Env, "1") // children of the tests (replays) are fakes
	buildtest.NoRaceExitSleep()
	code := m.Run()
	os.Exit(code)
}

// semanticExit is the exit status of `kvparity run --stage determinism` for a summary's
// campaign (no exception records in engine tests): stage 8's rules over the folded journal.
func semanticExit(s Summary) int {
	recs, _, err := journal.Read[Record](filepath.Join(s.Dir, layout.FileJournal), journal.RefuseDamage)
	if err != nil {
		return -1
	}
	row, err := LoadRow(filepath.Join(s.Dir, layout.FileRow))
	if err != nil {
		return -1
	}
	in := FoldJournal(recs, row).Inputs(s.Dir)
	in.SemanticOnly = true
	return verdict.Decide(in).ExitCode
}
