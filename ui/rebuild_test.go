package ui

import (
	"strings"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/engine/build"
)

// Watch mode rebuilding the candidate's checkout: the phases reach the log once each, the
// compile's progress follows on the status line only.
func TestRebuildProgressIsShownWithoutFloodingTheLog(t *testing.T) {
	m := newTestModel(t, newFake(engine.CampaignInfo{}), 100, 30)
	src := "worktree:/src/dynamo"
	for _, p := range []build.Progress{
		{Source: src, Phase: "toolchain"}, {Source: src, Phase: "fetching"},
		{Source: src, Phase: "compiling", Units: 1, Current: "dynamo-kv-router v1.5.1 (lib/kv-router)", Elapsed: 3 * time.Second},
		{Source: src, Phase: "compiling", Units: 2, Current: "dynamo-mocker v1.5.1 (lib/mocker)", Elapsed: 21 * time.Second},
	} {
		m = update(t, m, eventsMsg{events: []engine.Event{engine.BuildProgress{Arm: engine.Candidate, Progress: p}}})
	}
	status, _ := m.statusText()
	if !strings.Contains(status, "rebuilding the candidate from worktree:/src/dynamo: compiling · 2 units · dynamo-mocker v1.5.1 (lib/mocker) · 21s") {
		t.Errorf("status line: %q", status)
	}
	log := m.logText()
	if strings.Count(log, "compiling") != 1 || !strings.Contains(log, "rebuilding the candidate from worktree:/src/dynamo: fetching") {
		t.Errorf("log:\n%s", log)
	}
	m = update(t, m, eventsMsg{events: []engine.Event{engine.BuildProgress{Arm: engine.Candidate, Progress: build.Progress{Source: src, Phase: "done", Units: 3, Elapsed: 40 * time.Second}}}})
	if log := m.logText(); !strings.Contains(log, "built · 3 units compiled · 40s") {
		t.Errorf("log after the build:\n%s", log)
	}
}
