package diffpane

import (
	"fmt"
	"strings"

	"kvparity/ui/keys"

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
			p.status = "delete " + p.recs[p.recCursor].ID + "? " + keys.Name(p.keys.Confirm) + " to confirm, any other key cancels"
		}
	}
	return p, nil
}

// recordsView is the record list in h lines: the title, each record (the selected one with its
// details), and the keys or the last outcome. When the records do not fit, the list scrolls to
// keep the selected one in view and counts the records above and below it.
func (p Model) recordsView(h int) []string {
	st, k := p.Styles, p.keys
	title := []string{st.Diff.Title.Render(cut(fmt.Sprintf("EXCEPTION RECORDS (%d) in %s", len(p.recs), p.campaign), p.Width))}
	var body []string
	if len(p.recs) == 0 {
		body = append(body, st.Faint.Render(cut(fmt.Sprintf("none yet: select differences in the list and press %s, or %s on a field pattern",
			k.NewException.Help().Key, k.Cover.Help().Key), p.Width)))
	}
	total := 0
	if p.diff != nil {
		total = p.diff.Count
	}
	start, end := 0, 0 // the selected record's lines in body
	for i, r := range p.recs {
		if i == p.recCursor {
			start = len(body)
		}
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
		body = append(body, s.Render(pad(txt, p.Width)))
		if i == p.recCursor {
			switch {
			case why != "" && !r.Broad:
				body = append(body, st.Warn.Render(cut("    BROAD: it "+why+"; never confirmed as broad (saved by hand, or against a narrower diff)", p.Width)))
			case why != "":
				body = append(body, st.Warn.Render(cut("    BROAD: it "+why+"; confirmed by its author", p.Width)))
			case r.Broad:
				body = append(body, st.Faint.Render(cut("    saved as broad by its author; not broad against this diff", p.Width)))
			}
			body = append(body, st.Faint.Render(cut("    differs: "+r.Differs, p.Width)))
			body = append(body, st.Faint.Render(cut("    candidate: "+r.Candidate, p.Width)))
			end = len(body)
		}
	}
	status := fmt.Sprintf("%s edit · %s delete · %s back", k.Edit.Help().Key, k.Delete.Help().Key, k.Cancel.Help().Key)
	if p.status != "" {
		status = p.status
	}
	foot := st.Warn.Render(cut(status, p.Width))
	room := h - 2 // title and keys
	if room < 1 || len(body) <= room {
		return append(append(title, body...), foot)
	}
	first := 0
	if end > room {
		first = max(0, min(start, end-room))
	}
	first = min(first, len(body)-room)
	above, below := first, len(body)-first-room
	// The title counts what is off screen, so the selected record's lines are never replaced.
	off := fmt.Sprintf("EXCEPTION RECORDS (%d) · ↑ %d ↓ %d line(s) off screen (%s/%s) · in %s", len(p.recs), above, below,
		k.Up.Help().Key, k.Down.Help().Key, p.campaign)
	title = []string{st.Diff.Title.Render(cut(off, p.Width))}
	win := body[first : first+room]
	return append(append(title, win...), foot)
}
