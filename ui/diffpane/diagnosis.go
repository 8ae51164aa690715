package diffpane

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"kvparity/diffview/diagnose"
	"kvparity/exceptions"
)

// The whole diagnosis (I): every cause with all its evidence, wrapped, a cause selected; c
// drafts an exception record covering the selected cause (the patterns of the pointers the
// diagnosis says it accounts for), so an intended cascade is covered from its diagnosis
// instead of by typing its patterns.

func (p Model) updateDiagnosis(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := p.keys
	n := 0
	if p.diff != nil {
		n = len(p.diff.Diagnosis)
	}
	p.status = ""
	switch {
	case key.Matches(msg, k.Cancel), key.Matches(msg, k.WholeDiagnosis):
		p.mode = modeList
	case key.Matches(msg, k.Up):
		p.selectCause(max(0, p.diagCursor-1))
	case key.Matches(msg, k.Down):
		p.selectCause(min(max(0, n-1), p.diagCursor+1))
	case key.Matches(msg, k.Top):
		p.selectCause(0)
	case key.Matches(msg, k.Bottom):
		p.selectCause(max(0, n-1))
	case key.Matches(msg, k.PageDown):
		p.diagOffset += max(1, p.diagRoom()-1)
	case key.Matches(msg, k.PageUp):
		p.diagOffset = max(0, p.diagOffset-max(1, p.diagRoom()-1))
	case key.Matches(msg, k.Cover):
		return p.openForm(p.causeDraft(p.diagCursor))
	}
	return p, nil
}

// selectCause selects cause i and scrolls its head into view, one line under the window's top
// (which then says what is above).
func (p *Model) selectCause(i int) {
	p.diagCursor = i
	_, starts := p.diagnosisBody()
	if i < len(starts) {
		p.diagOffset = max(0, starts[i]-1)
	}
}

// diagRoom is how many lines the whole diagnosis's body has.
func (p Model) diagRoom() int { return max(1, p.Height-len(p.headerLines())-1) }

// causePatterns are the field patterns of the pointers cause sig accounts for, as the
// diagnosis names them (its Changes); for the unclassified remainder, of the pointers no cause
// names. A pattern may count pointers of another cause too: the form's live count and BROAD
// check say what the record covers. named is false only when there is nothing to name them
// by (a remainder whose pointers every cause names): then every pattern is drafted.
func (p Model) causePatterns(sig diagnose.Signature) (pats []string, named bool) {
	changes := sig.Changes
	if sig.Code == diagnose.SigUnclassified {
		changes = p.diff.Unexplained()
	}
	if pats = p.diff.PatternsOf(changes); len(pats) > 0 {
		return pats, true
	}
	for _, g := range p.groups[byPattern].groups {
		if g.pattern != "" {
			pats = append(pats, g.pattern)
		}
	}
	return pats, false
}

// causeDraft drafts a record covering cause i of the diagnosis: its patterns, the requests and
// events they count, and the diagnosis's own words as the cause, to be edited into a why.
func (p Model) causeDraft(i int) (exceptions.ExceptionRecord, bool) {
	if p.diff == nil || p.diff.Equal() || i < 0 || i >= len(p.diff.Diagnosis) {
		return exceptions.ExceptionRecord{}, p.diff == nil || p.diff.Equal()
	}
	sig := p.diff.Diagnosis[i]
	pats, _ := p.causePatterns(sig)
	var all []int
	for _, pat := range pats {
		all = append(all, p.groups[byPattern].groups[p.patternIndex(pat)].changes...)
	}
	sort.Ints(all)
	rec := p.patternDraft(pats, all)
	rec.Cause = "diagnosis: " + sig.String()
	if len(sig.Evidence) > 0 {
		rec.Cause += ": " + strings.Join(sig.Evidence, "; ")
	}
	return rec, len(pats) > 0
}

// diagnosisBody is every cause and its evidence, wrapped to the pane, and the line each cause
// starts on.
func (p Model) diagnosisBody() (body []string, starts []int) {
	st, w, k := p.Styles, p.Width, p.keys
	for i, s := range p.diff.Diagnosis {
		starts = append(starts, len(body))
		head := fmt.Sprintf("%d. %s", i+1, s.String())
		if i == p.diagCursor {
			body = append(body, st.Selected.Render(pad("▸ "+head, w)))
			pats, named := p.causePatterns(s)
			what := "its patterns: "
			switch {
			case !named:
				what = "names no pointers: every pattern is drafted, narrow them in the form: "
			case s.Code == diagnose.SigUnclassified:
				what = "the patterns of what no cause above names: "
			}
			body = append(body, st.Faint.Render(cut("     "+k.Cover.Help().Key+" covers it · "+what+strings.Join(pats, ", "), w)))
		} else {
			body = append(body, st.Warn.Render(cut("  "+head, w)))
		}
		for _, e := range s.Evidence {
			for j, l := range strings.Split(ansi.Wrap(e, max(10, w-8), " ,;"), "\n") {
				lead := "     · "
				if j > 0 {
					lead = "       "
				}
				body = append(body, st.Faint.Render(cut(lead+strings.TrimLeft(l, " "), w)))
			}
		}
	}
	return body, starts
}

// diagnosisView is the whole diagnosis in h lines: a title with the keys, then the body from
// the scroll offset; lines above or below the window are counted on its edge lines, never
// dropped silently.
func (p Model) diagnosisView(h int) []string {
	st, w, k := p.Styles, p.Width, p.keys
	title := fmt.Sprintf("DIAGNOSIS: %d cause(s), most specific first · %s %s select · %s drafts a record covering it · %s back",
		len(p.diff.Diagnosis), k.Up.Help().Key, k.Down.Help().Key, k.Cover.Help().Key, k.Cancel.Help().Key)
	out := []string{st.Diff.Title.Render(cut(title, w))}
	body, _ := p.diagnosisBody()
	room := max(1, h-len(out))
	if len(body) <= room {
		return append(out, body...)
	}
	first := max(0, min(p.diagOffset, len(body)-room))
	win := append([]string(nil), body[first:first+room]...)
	if first > 0 {
		win[0] = st.Faint.Render(cut(fmt.Sprintf("     ↑ %d more line(s) above (%s)", first+1, k.PageUp.Help().Key), w))
	}
	if below := len(body) - (first + room); below > 0 {
		win[len(win)-1] = st.Faint.Render(cut(fmt.Sprintf("     ↓ %d more line(s) below (%s)", below+1, k.PageDown.Help().Key), w))
	}
	return append(out, win...)
}
