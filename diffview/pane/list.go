package pane

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
)

// The group list: filter, rows, cursor and scrolling, next/previous difference, selection.

// visible applies the pointer filter: a pattern when it starts with "/" and has a glob,
// a substring otherwise.
func (p Model) visible(ci int) bool {
	if p.pattern == "" {
		return true
	}
	ptr := p.diff.Changes[ci].Pointer
	if strings.HasPrefix(p.pattern, "/") && strings.ContainsAny(p.pattern, "*?[") {
		return diffview.MatchPattern(p.pattern, ptr)
	}
	return strings.Contains(ptr, p.pattern) || strings.Contains(p.diff.Changes[ci].Request, p.pattern)
}

func (p *Model) rebuild() {
	p.rows = p.rows[:0]
	if p.diff == nil {
		return
	}
	for gi, g := range p.diff.Groups {
		var vis []int
		for _, ci := range g.Changes {
			if p.visible(ci) {
				vis = append(vis, ci)
			}
		}
		if len(vis) == 0 {
			continue
		}
		p.rows = append(p.rows, row{group: gi, change: -1})
		if p.expanded[g.Key] {
			for _, ci := range vis {
				p.rows = append(p.rows, row{group: gi, change: ci})
			}
		}
	}
	p.cursor = min(p.cursor, max(0, len(p.rows)-1))
	p.clampScroll()
}

// selectChange expands the change's group and moves the cursor onto it.
func (p *Model) selectChange(ci int) {
	if p.diff == nil || ci < 0 || ci >= len(p.diff.Changes) {
		return
	}
	g := p.diff.Groups[p.groupOfChange(ci)]
	if !p.expanded[g.Key] {
		p.expanded[g.Key] = true
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

// visibleChanges lists the changes that pass the filter, in group order.
func (p Model) visibleChanges() []int {
	var out []int
	if p.diff == nil {
		return nil
	}
	for _, g := range p.diff.Groups {
		for _, ci := range g.Changes {
			if p.visible(ci) {
				out = append(out, ci)
			}
		}
	}
	return out
}

// step moves to the next (+1) or previous (-1) difference, expanding groups as it goes.
func (p *Model) step(dir int) {
	vis := p.visibleChanges()
	if len(vis) == 0 || p.cursor >= len(p.rows) {
		return
	}
	r := p.rows[p.cursor]
	next := -1
	for k, ci := range vis {
		if r.change >= 0 && ci == r.change {
			next = k + dir
			break
		}
		if r.change < 0 && p.groupIdx[ci] == r.group {
			next = k
			if dir < 0 {
				next = k - 1
			}
			break
		}
	}
	if next < 0 || next >= len(vis) {
		p.status = "no more differences"
		return
	}
	p.selectChange(vis[next])
}

func (p *Model) listHeight() int {
	return max(1, p.height-p.chromeHeight())
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
	switch {
	case key.Matches(msg, k.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(msg, k.Down):
		p.cursor = min(max(0, len(p.rows)-1), p.cursor+1)
	case key.Matches(msg, k.PageUp):
		p.cursor = max(0, p.cursor-p.listHeight())
	case key.Matches(msg, k.PageDown):
		p.cursor = min(max(0, len(p.rows)-1), p.cursor+p.listHeight())
	case key.Matches(msg, k.Toggle):
		if p.cursor < len(p.rows) {
			r := p.rows[p.cursor]
			g := p.diff.Groups[r.group]
			p.expanded[g.Key] = !p.expanded[g.Key]
			p.rebuild()
			p.cursorToHeader(r.group)
		}
	case key.Matches(msg, k.Collapse):
		if p.cursor < len(p.rows) {
			r := p.rows[p.cursor]
			p.expanded[p.diff.Groups[r.group].Key] = false
			p.rebuild()
			p.cursorToHeader(r.group)
		}
	case key.Matches(msg, k.ExpandAll):
		if p.diff != nil {
			for _, g := range p.diff.Groups {
				p.expanded[g.Key] = true
			}
			p.rebuild()
		}
	case key.Matches(msg, k.CollapseAll):
		p.expanded = map[string]bool{}
		cur := -1
		if p.cursor < len(p.rows) {
			cur = p.rows[p.cursor].group
		}
		p.rebuild()
		p.cursorToHeader(cur)
	case key.Matches(msg, k.NextDiff):
		p.step(1)
	case key.Matches(msg, k.PrevDiff):
		p.step(-1)
	case key.Matches(msg, k.Filter):
		p.mode = modeFilter
		p.filter.SetValue(p.pattern)
		p.filter.CursorEnd()
		return p, p.filter.Focus()
	case key.Matches(msg, k.ClearFilter):
		if p.pattern != "" {
			p.pattern = ""
			p.rebuild()
		}
	case key.Matches(msg, k.Mark):
		p.toggleMark()
	case key.Matches(msg, k.NewException):
		if p.diff == nil || p.diff.Equal() {
			p.status = "nothing differs: no exception to record"
			return p, nil
		}
		if p.campaign == "" {
			p.status = "no campaign directory: exception records cannot be saved"
			return p, nil
		}
		p.form = newExceptionForm(p.styles, p.width, p.prefill())
		p.mode = modeForm
		return p, p.form.focus()
	case key.Matches(msg, k.Records):
		p.mode = modeRecords
		p.confirmDel = false
	}
	p.clampScroll()
	return p, nil
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
	all := true
	for _, ci := range p.diff.Groups[r.group].Changes {
		if p.visible(ci) && !p.marked[ci] {
			all = false
		}
	}
	for _, ci := range p.diff.Groups[r.group].Changes {
		if p.visible(ci) {
			if all {
				delete(p.marked, ci)
			} else {
				p.marked[ci] = true
			}
		}
	}
}

func (p Model) updateFilter(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, p.keys.Apply):
		p.pattern = strings.TrimSpace(p.filter.Value())
		p.mode = modeList
		p.filter.Blur()
		p.cursor = 0
		p.rebuild()
		if vis := p.visibleChanges(); len(vis) > 0 {
			p.selectChange(vis[0])
		} else if p.pattern != "" {
			p.status = "no differing pointer matches " + p.pattern
		}
		return p, nil
	case key.Matches(msg, p.keys.Cancel):
		p.mode = modeList
		p.filter.Blur()
		return p, nil
	}
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	return p, cmd
}
