package diffpane

import (
	"encoding/json"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The group list: rows, cursor and scrolling, next/previous difference, selection, copy.

func (p *Model) rebuild() {
	p.rows = p.rows[:0]
	if p.diff == nil {
		return
	}
	for gi, g := range p.cur().groups {
		// g.count, not the held changes: a field pattern of a truncated diff may hold none of
		// its pointers in detail and must still be listed (c covers it).
		if p.vis.count(p.by, gi, g.count) == 0 {
			continue
		}
		p.rows = append(p.rows, row{group: gi, change: -1})
		if p.expanded[g.key] {
			for _, ci := range g.changes {
				if p.visible(ci) {
					p.rows = append(p.rows, row{group: gi, change: ci})
				}
			}
		}
	}
	p.cursor = min(p.cursor, max(0, len(p.rows)-1))
	p.clampScroll()
}

// selectChange expands the change's group and moves the cursor onto it.
func (p *Model) selectChange(ci int) {
	if p.diff == nil || ci < 0 || ci >= len(p.diff.Changes) || len(p.cur().groups) == 0 {
		return
	}
	g := p.cur().groups[p.groupOfChange(ci)]
	if !p.expanded[g.key] {
		p.expanded[g.key] = true
		p.rebuild()
	}
	for i, r := range p.rows {
		if r.change == ci {
			p.cursor = i
			p.clampScroll()
			return
		}
	}
}

// visibleChanges lists up to limit changes (0: all) that pass the filter, in group order.
func (p Model) visibleChanges(limit int) []int {
	var out []int
	if p.diff == nil {
		return nil
	}
	for _, g := range p.cur().groups {
		for _, ci := range g.changes {
			if p.visible(ci) {
				out = append(out, ci)
				if limit > 0 && len(out) == limit {
					return out
				}
			}
		}
	}
	return out
}

// step moves to the next (+1) or previous (-1) difference, expanding groups as it goes.
func (p *Model) step(dir int) tea.Cmd {
	if len(p.rows) == 0 || p.cursor >= len(p.rows) {
		return nil
	}
	r := p.rows[p.cursor]
	gs := p.cur().groups
	g, k := r.group, 0
	switch {
	case r.change >= 0:
		for i, ci := range gs[g].changes {
			if ci == r.change {
				k = i + dir
				break
			}
		}
	case dir < 0: // a header steps back into the previous group
		g--
		if g >= 0 {
			k = len(gs[g].changes) - 1
		}
	}
	for g >= 0 && g < len(gs) {
		cs := gs[g].changes
		for ; k >= 0 && k < len(cs); k += dir {
			if p.visible(cs[k]) {
				p.selectChange(cs[k])
				return nil
			}
		}
		g += dir
		if g >= 0 && g < len(gs) {
			k = 0
			if dir < 0 {
				k = len(gs[g].changes) - 1
			}
		}
	}
	return p.tell("no more differences", false)
}

func (p *Model) listHeight() int {
	return max(1, p.Height-p.chromeHeight())
}

func (p *Model) clampScroll() {
	h := p.listHeight()
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+h {
		p.offset = p.cursor - h + 1
	}
	p.offset = max(0, min(p.offset, max(0, len(p.rows)-h)))
}

func (p Model) updateList(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := p.keys
	p.status = ""
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, k.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(msg, k.Down):
		p.cursor = min(max(0, len(p.rows)-1), p.cursor+1)
	case key.Matches(msg, k.PageUp):
		p.cursor = max(0, p.cursor-p.listHeight())
	case key.Matches(msg, k.PageDown):
		p.cursor = min(max(0, len(p.rows)-1), p.cursor+p.listHeight())
	case key.Matches(msg, k.Top):
		p.cursor = 0
	case key.Matches(msg, k.Bottom):
		p.cursor = max(0, len(p.rows)-1)
	case key.Matches(msg, k.Toggle):
		if p.cursor < len(p.rows) {
			r := p.rows[p.cursor]
			g := p.cur().groups[r.group]
			p.expanded[g.key] = !p.expanded[g.key]
			p.rebuild()
			p.cursorToHeader(r.group)
		}
	case key.Matches(msg, k.Collapse):
		if p.cursor < len(p.rows) {
			r := p.rows[p.cursor]
			p.expanded[p.cur().groups[r.group].key] = false
			p.rebuild()
			p.cursorToHeader(r.group)
		}
	case key.Matches(msg, k.ExpandAll):
		for _, g := range p.cur().groups {
			p.expanded[g.key] = true
		}
		p.rebuild()
	case key.Matches(msg, k.CollapseAll):
		cur := -1
		if p.cursor < len(p.rows) {
			cur = p.rows[p.cursor].group
		}
		for _, g := range p.cur().groups {
			delete(p.expanded, g.key)
		}
		p.rebuild()
		p.cursorToHeader(cur)
	case key.Matches(msg, k.NextDiff):
		cmd = p.step(1)
	case key.Matches(msg, k.PrevDiff):
		cmd = p.step(-1)
	case key.Matches(msg, k.GroupBy):
		p.switchGrouping()
		byPattern := p.by == byPattern
		cmd = func() tea.Msg { return GroupingChangedMsg{ByPattern: byPattern} }
	case key.Matches(msg, k.Diagnosis):
		if p.diagOpen() {
			p.diagSet = -1
		} else {
			p.diagSet = 1
		}
	case key.Matches(msg, k.WholeDiagnosis):
		if p.diff == nil || len(p.diff.Diagnosis) == 0 {
			cmd = p.tell("no diagnosis: nothing differs, or no diff is open", false)
			break
		}
		p.mode = modeDiagnosis
		p.selectCause(min(p.diagCursor, len(p.diff.Diagnosis)-1))
	case key.Matches(msg, k.Filter):
		return p.startFilter()
	case key.Matches(msg, k.ClearFilter):
		if p.pattern != "" || p.asked != "" {
			p.clearFilter()
		}
	case key.Matches(msg, k.Mark):
		p.toggleMark()
	case key.Matches(msg, k.NewException):
		return p.openForm(p.prefill())
	case key.Matches(msg, k.Cover):
		return p.openForm(p.coverDraft())
	case key.Matches(msg, k.Records):
		p.mode = modeRecords
		p.confirmDel = false
	case key.Matches(msg, k.CopyPointer):
		cmd = p.copySelected(false)
	case key.Matches(msg, k.CopyValue):
		cmd = p.copySelected(true)
	}
	p.clampScroll()
	return p, cmd
}

func (p *Model) cursorToHeader(group int) {
	for i, r := range p.rows {
		if r.group == group && r.change < 0 {
			p.cursor = i
			break
		}
	}
	p.clampScroll()
}

func (p *Model) toggleMark() {
	if p.cursor >= len(p.rows) {
		return
	}
	r := p.rows[p.cursor]
	if r.change >= 0 {
		p.marked[r.change] = !p.marked[r.change]
		if !p.marked[r.change] {
			delete(p.marked, r.change)
		}
		return
	}
	// A header marks (or unmarks) every visible change of its group.
	cs := p.cur().groups[r.group].changes
	all := true
	for _, ci := range cs {
		if p.visible(ci) && !p.marked[ci] {
			all = false
			break
		}
	}
	for _, ci := range cs {
		if p.visible(ci) {
			if all {
				delete(p.marked, ci)
			} else {
				p.marked[ci] = true
			}
		}
	}
}

// copySelected puts the selected pointer (a group's pattern or request on a header) or, with
// values, the selected change as JSON on the clipboard (OSC 52, through the terminal).
func (p *Model) copySelected(values bool) tea.Cmd {
	if p.diff == nil || p.cursor >= len(p.rows) {
		return p.tell("nothing selected to copy", false)
	}
	r := p.rows[p.cursor]
	g := p.cur().groups[r.group]
	var text, what string
	switch {
	case r.change >= 0 && values:
		c := p.diff.Changes[r.change]
		b, _ := json.Marshal(struct {
			Pointer string          `json:"pointer"`
			A       json.RawMessage `json:"a,omitempty"`
			B       json.RawMessage `json:"b,omitempty"`
		}{c.Pointer, rawOrNil(c.A), rawOrNil(c.B)})
		text, what = string(b), "the values of "+c.Pointer
	case r.change >= 0:
		text = p.diff.Changes[r.change].Pointer
		what = text
	case g.pattern != "":
		text, what = g.pattern, "pattern "+g.pattern
	default:
		text = p.diff.Changes[g.changes[0]].Request
		what = "request " + text
		if text == "" {
			text, what = g.title, g.title
		}
	}
	return tea.Batch(tea.SetClipboard(text), p.tell(fmt.Sprintf("copied %s to the clipboard (OSC 52)", what), false))
}

func rawOrNil(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// ScrollBy moves the selection by n rows (the mouse wheel over the pane).
func (p *Model) ScrollBy(n int) {
	if p.mode != modeList && p.mode != modeRecords {
		return
	}
	if p.mode == modeRecords {
		p.recCursor = max(0, min(len(p.recs)-1, p.recCursor+n))
		return
	}
	p.cursor = max(0, min(len(p.rows)-1, p.cursor+n))
	p.clampScroll()
}

// ClickAt selects the list row drawn on line y of the pane (0 is its title line); a click on
// a group's header toggles it. It reports whether y was a row.
func (p *Model) ClickAt(y int) bool {
	if p.mode != modeList || p.diff == nil {
		return false
	}
	i := y - p.listTop() + p.offset
	if y < p.listTop() || i >= len(p.rows) || y >= p.listTop()+p.listHeight() {
		return false
	}
	if i == p.cursor && p.rows[i].change < 0 {
		g := p.cur().groups[p.rows[i].group]
		p.expanded[g.key] = !p.expanded[g.key]
		p.rebuild()
		p.cursorToHeader(p.rows[min(i, len(p.rows)-1)].group)
		return true
	}
	p.cursor = i
	p.clampScroll()
	return true
}
