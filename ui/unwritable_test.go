package ui

import (
	"strings"
	"testing"

	"kvparity/engine"
)

// Issue 42: a campaign whose folder nobody can write (a read-only mount: an NFS export, a CI
// artifact, a snapshot) opens read-only. The status line says "READ-ONLY:" and why, where a
// follower's says it follows; the footer offers no key that writes; the stage keys are refused
// by the engine with the same words, and the report and exception keys are refused here,
// naming the folder, before anything is drafted or written.
func TestUnwritableCampaignIsShownReadOnly(t *testing.T) {
	why := "campaign folder /nfs/c cannot be written (read-only file system)"
	info := testInfo(5000, 60)
	info.ReadOnly, info.Unwritable = "read-only: "+why, why
	f := newFake(info)
	m := newTestModel(t, f, 240, 30)
	m = update(t, m, eventsMsg{events: []engine.Event{engine.HistoryReplayed{Records: 12}}})
	s := screen(m)
	mustContain(t, s, "READ-ONLY: "+why+"; its history is shown, nothing is written there")
	mustContain(t, s, "campaign reopened: 12 journal records replayed · read-only: no stage resumes here")
	lines := strings.Split(s, "\n")
	footer := lines[len(lines)-1]
	for _, k := range []string{"g determinism", "p perf", "r rerun", "w watch", "+ add repetition", "e exception", "s save report"} {
		if strings.Contains(footer, k) {
			t.Errorf("the footer offers %q, which cannot write here: %q", k, footer)
		}
	}
	for _, k := range []string{"tab pane", "d diff", "? help · q quit"} {
		if !strings.Contains(footer, k) {
			t.Errorf("the footer lost %q: %q", k, footer)
		}
	}
	saved := false
	m.save = func(string) error { saved = true; return nil }
	m = update(t, m, press("s"))
	mustContain(t, screen(m), "save report refused: "+why)
	m = update(t, m, press("e"))
	mustContain(t, screen(m), "exception record refused: "+why)
	if saved || m.focus == focusDiff {
		t.Errorf("a write went ahead on an unwritable folder: report written %v, exception form opened %v", saved, m.focus == focusDiff)
	}
}
