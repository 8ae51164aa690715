package pane

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
)

// The exception-record list: what each record covers, edit and delete.

func (p Model) updateRecords(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := p.keys
	if p.confirmDel {
		p.confirmDel = false
		if key.Matches(msg, k.Confirm) && p.recCursor < len(p.recs) {
			return p, deleteException(p.campaign, p.recs[p.recCursor].ID)
		}
		p.status = "delete cancelled"
		return p, nil
	}
	switch {
	case key.Matches(msg, k.Cancel):
		p.mode = modeList
	case key.Matches(msg, k.Up):
		p.recCursor = max(0, p.recCursor-1)
	case key.Matches(msg, k.Down):
		p.recCursor = min(max(0, len(p.recs)-1), p.recCursor+1)
	case key.Matches(msg, k.Edit):
		if p.recCursor < len(p.recs) {
			p.form = newExceptionForm(p.styles, p.width, p.recs[p.recCursor])
			p.mode = modeForm
			return p, p.form.focus()
		}
	case key.Matches(msg, k.Delete):
		if p.recCursor < len(p.recs) {
			p.confirmDel = true
			p.status = "delete " + p.recs[p.recCursor].ID + "? y to confirm, any other key cancels"
		}
	}
	return p, nil
}

func (p Model) recordsView() []string {
	st := p.styles
	lines := []string{st.Diff.Title.Render(cut(fmt.Sprintf("EXCEPTION RECORDS (%d) in %s", len(p.recs), p.campaign), p.width))}
	if len(p.recs) == 0 {
		lines = append(lines, st.Faint.Render("none yet: select differences in the list and press e"))
	}
	var cov map[string][]string
	if p.diff != nil {
		cov = diffview.CoveredBy(p.diff, p.recs)
	}
	for i, r := range p.recs {
		n := 0
		for _, ids := range cov {
			for _, id := range ids {
				if id == r.ID {
					n++
				}
			}
		}
		txt := fmt.Sprintf("%s  covers %d differing · %s · %s", r.ID, n, strings.Join(r.Pointers, ", "), r.Disposition)
		s := st.Diff.Row
		if i == p.recCursor {
			s = st.Selected
		}
		lines = append(lines, s.Render(pad(txt, p.width)))
		if i == p.recCursor {
			lines = append(lines, st.Faint.Render(cut("    differs: "+r.Differs, p.width)))
			lines = append(lines, st.Faint.Render(cut("    candidate: "+r.Candidate, p.width)))
		}
	}
	status := "enter edit · d delete · esc back"
	if p.status != "" {
		status = p.status
	}
	return append(lines, st.Warn.Render(cut(status, p.width)))
}
