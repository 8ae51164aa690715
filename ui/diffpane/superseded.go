package diffpane

import (
	"fmt"

	"kvparity/diffview"
	"kvparity/verdict"
)

// superseded is what the pane knows of a rebuild that made its open diff stale: the arm, the
// generation the diff's reports belong to, the one pinned in its place (0: none yet), and the
// parity the new generation reached ("" while it reruns).
type superseded struct {
	arm         string
	gen, newGen int
	rerun       bool
	parity      verdict.Word
}

// Supersede tells the pane that arm's pinned generation gen was superseded: a rebuild pinned
// newGen in its place (0 when the source changed without a re-pin) and rerun says the
// determinism stage reruns on it. An open diff of that arm's reports describes a build that is
// no longer the arm's, so the pane marks it stale at once; the new generation's parity then
// clears it (PASS: nothing differs any more) or a newly opened diff replaces it.
func (p *Model) Supersede(arm string, gen, newGen int, rerun bool) {
	if p.a.Arm != arm && p.b.Arm != arm {
		return // the diff compares reports of the other arm only: still current
	}
	if !p.loading && p.diff == nil && p.err == nil {
		return // nothing open
	}
	if s := p.stale; s != nil && s.arm == arm {
		gen = s.gen // a second rebuild before the first reran: the diff is still the first's
	}
	p.stale = &superseded{arm: arm, gen: gen, newGen: newGen, rerun: rerun}
}

// SetParity tells the pane the parity verdict of the current generations. A stale diff whose
// new generation passes is cleared (its differences are gone), and SetParity says so; any
// other verdict is named beside the stale mark until a diff of the new generation is opened.
func (p *Model) SetParity(w verdict.Word) (cleared bool) {
	if p.stale == nil || p.stale.newGen == 0 {
		return false // the diff is current, or nothing was re-pinned and rerun
	}
	if w == verdict.Pass {
		p.close()
		return true
	}
	p.stale.parity = w
	return false
}

// close drops the open diff and everything shown of it.
func (p *Model) close() {
	p.stale = nil
	p.gen++ // a load still in flight is dropped
	p.loading, p.err = false, nil
	p.a, p.b = diffview.Side{}, diffview.Side{}
	p.mode = modeList
	p.setDiff(nil)
}

// staleTitle is the title's stale mark, "" for a current diff.
func (p Model) staleTitle() string {
	s := p.stale
	switch {
	case s == nil:
		return ""
	case s.newGen == 0:
		return fmt.Sprintf("generation %d, stale: the %s changed after it was pinned", s.gen, s.arm)
	case s.parity != "":
		return fmt.Sprintf("generation %d, superseded by generation %d: parity %s", s.gen, s.newGen, s.parity)
	case s.rerun:
		return fmt.Sprintf("generation %d, superseded by generation %d: rerunning", s.gen, s.newGen)
	}
	return fmt.Sprintf("generation %d, superseded by generation %d", s.gen, s.newGen)
}
