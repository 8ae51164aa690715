package qualifyview

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine/qualify"
	qualifydriver "kvparity/qualify"
	"kvparity/ui/pane"
)

// snapshot is the qualification as far as it went.
type snapshot struct {
	Row     string
	Start   *qualify.Result // the settings: flag, band, seed, step
	Probes  []qualify.Probe // in the order they ended
	Running string          // the probe process running now ("" between probes)
	Since   time.Time       // when it started
	Result  *qualify.Result // the outcome, once recorded
}

func (s snapshot) clone() snapshot {
	s.Probes = append([]qualify.Probe(nil), s.Probes...)
	return s
}

// apply folds one progress step.
func (s *snapshot) apply(p qualifydriver.Progress) {
	s.Row = p.Row
	switch {
	case p.Start != nil:
		s.Start = p.Start
	case p.Running != nil:
		s.Running, s.Since = string(p.Running.Run), p.Running.At
	case p.Probe != nil:
		s.Probes = append(s.Probes, *p.Probe)
		s.Running = ""
	case p.Result != nil:
		s.Result, s.Running = p.Result, ""
	}
}

// snapshotMsg is a new snapshot; doneMsg the qualification's end (its exit status).
type (
	snapshotMsg snapshot
	doneMsg     struct{ Code int }
)

// A Feed folds the qualification's progress into snapshots and hands the newest to the
// program: the probes never wait for the screen.
type Feed struct {
	f *pane.Fold[snapshot, qualifydriver.Progress, doneMsg]
}

// NewFeed makes an empty feed.
func NewFeed() *Feed {
	return &Feed{pane.NewFold[snapshot, qualifydriver.Progress, doneMsg]((*snapshot).apply, snapshot.clone)}
}

// Publish folds p and offers the new snapshot (qualifydriver.Options.Progress; the stage and
// the campaign's event pump both call it).
func (f *Feed) Publish(p qualifydriver.Progress) { f.f.Fold(p) }

// Finish hands the end to the view; call it once, after qualifydriver.Run returned.
func (f *Feed) Finish(code int) { f.f.Finish(doneMsg{Code: code}) }

// Wait delivers the next snapshot or the end.
func (f *Feed) Wait() tea.Cmd {
	return f.f.Wait(func(s snapshot) tea.Msg { return snapshotMsg(s) }, func(d doneMsg) tea.Msg { return d })
}
