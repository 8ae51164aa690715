package pane

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The exception-record list: what each record covers, whether it is broad, edit and delete.

func (p Model) updateRecords(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := p.keys
	if p.confirmDel {
		p.confirmDel = false
		if key.Matches(msg, k.Confirm) && p.recCursor < len(p.recs) {
			return p, deleteException(p.campaign, p.recs[p.recCursor].ID, p.diff, p.unstable)
		}
		return p, p.tell("delete cancelled", false)
	}
	p.status = ""
	switch {
	case key.Matches(msg, k.Cancel):
		p.mode = modeList
	case key.Matches(msg, k.Up):
		p.recCursor = max(0, p.recCursor-1)
	case key.Matches(msg, k.Down):
		p.recCursor = min(max(0, len(p.recs)-1), p.recCursor+1)
	case key.Matches(msg, k.Edit):
		if p.recCursor < len(p.recs) {
			return p.openForm(p.recs[p.recCursor], true)
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
		lines = append(lines, st.Faint.Render("none yet: select differences in the list and press e, or c on a field pattern"))
	}
	total := 0
	if p.diff != nil {
		total = p.diff.Count
	}
	for i, r := range p.recs {
		// Broad is computed from the patterns and this diff's coverage (standingOf); the file's
		// "broad" only says whether the author confirmed it.
		why := p.recBroad[r.ID]
		flag := ""
		switch {
		case why != "" && !r.Broad:
			flag = "BROAD (unconfirmed) · "
		case why != "":
			flag = "BROAD · "
		}
		txt := fmt.Sprintf("%s  %scovers %d of %d · %s · %s", r.ID, flag, p.recCovers[r.ID], total, strings.Join(r.Pointers, ", "), r.Disposition)
		s := st.Diff.Row
		if why != "" {
			s = st.Warn
		}
		if i == p.recCursor {
			s = st.Selected
		}
		lines = append(lines, s.Render(pad(txt, p.width)))
		if i == p.recCursor {
			switch {
			case why != "" && !r.Broad:
				lines = append(lines, st.Warn.Render(cut("    BROAD: it "+why+"; never confirmed as broad (saved by hand, or against a narrower diff)", p.width)))
			case why != "":
				lines = append(lines, st.Warn.Render(cut("    BROAD: it "+why+"; confirmed by its author", p.width)))
			case r.Broad:
				lines = append(lines, st.Faint.Render(cut("    saved as broad by its author; not broad against this diff", p.width)))
			}
			lines = append(lines, st.Faint.Render(cut("    differs: "+r.Differs, p.width)))
			lines = append(lines, st.Faint.Render(cut("    candidate: "+r.Candidate, p.width)))
		}
	}
	status := "enter edit · D delete · esc back"
	if p.status != "" {
		status = p.status
	}
	return append(lines, st.Warn.Render(cut(status, p.width)))
}
