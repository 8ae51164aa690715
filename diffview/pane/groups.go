package pane

import (
	"fmt"

	"kvparity/diffview"
)

// Two groupings of the same changes: by request or event (the diff's own groups, in triage
// order) and by field pattern (indices and ids wildcarded, largest first). f switches; the
// selected change stays selected.

type groupBy int

const (
	byRequest groupBy = iota
	byPattern
)

func (g groupBy) String() string {
	if g == byPattern {
		return "field pattern"
	}
	return "request/event"
}

// A listGroup is one group of a grouping.
type listGroup struct {
	key     string // expansion state key, unique across both groupings
	title   string
	pattern string // byPattern: the field pattern (an exception pattern covering exactly it)
	changes []int  // indexes into Diff.Changes, document order
}

// A grouping is the groups of one kind and, for each change, the group holding it.
type grouping struct {
	groups  []listGroup
	groupOf []int
}

// buildGroupings computes both groupings (off the update loop, with the diff).
func buildGroupings(d *diffview.Diff) [2]grouping {
	var gs [2]grouping
	req := grouping{groupOf: make([]int, len(d.Changes))}
	for gi, g := range d.Groups {
		req.groups = append(req.groups, listGroup{key: "r " + g.Key, title: g.Title, changes: g.Changes})
		for _, ci := range g.Changes {
			req.groupOf[ci] = gi
		}
	}
	pat := grouping{groupOf: make([]int, len(d.Changes))}
	for gi, pc := range d.FieldPatterns() {
		pat.groups = append(pat.groups, listGroup{key: "p " + pc.Pattern, title: pc.Pattern, pattern: pc.Pattern, changes: pc.Changes})
		for _, ci := range pc.Changes {
			pat.groupOf[ci] = gi
		}
	}
	gs[byRequest], gs[byPattern] = req, pat
	return gs
}

// cur is the grouping shown.
func (p *Model) cur() *grouping { return &p.groups[p.by] }

// groupOfChange is the group of the current grouping holding change ci.
func (p *Model) groupOfChange(ci int) int {
	g := p.cur()
	if ci >= 0 && ci < len(g.groupOf) {
		return g.groupOf[ci]
	}
	return 0
}

// switchGrouping shows the other grouping, keeping the selected change (or the first change of
// the selected group) selected.
func (p *Model) switchGrouping() {
	keep := -1
	if p.cursor < len(p.rows) {
		r := p.rows[p.cursor]
		keep = r.change
		if keep < 0 {
			for _, ci := range p.cur().groups[r.group].changes {
				if p.visible(ci) {
					keep = ci
					break
				}
			}
		}
	}
	p.by = 1 - p.by
	p.cursor, p.offset = 0, 0
	p.rebuild()
	if keep >= 0 {
		// Land on the change's group header, not inside it: the other grouping may be huge.
		gi := p.groupOfChange(keep)
		if p.expanded[p.cur().groups[gi].key] {
			p.selectChange(keep)
		} else {
			p.cursorToHeader(gi)
		}
	}
}

// requestsIn counts the distinct requests of a group's visible changes.
func (p Model) requestsIn(g listGroup) int {
	seen := map[string]bool{}
	for _, ci := range g.changes {
		if r := p.diff.Changes[ci].Request; r != "" && p.visible(ci) {
			seen[r] = true
		}
	}
	return len(seen)
}

// markedByGroup counts the marked visible changes of each group of the current grouping.
func (p Model) markedByGroup() map[int]int {
	out := map[int]int{}
	for ci := range p.marked {
		if p.visible(ci) {
			out[p.groupOfChange(ci)]++
		}
	}
	return out
}

// groupLine is a group header's text.
func (p Model) groupLine(gi int, g listGroup, marked int) string {
	arrow := "▸"
	if p.expanded[g.key] {
		arrow = "▾"
	}
	n := p.vis.count(p.by, gi, len(g.changes))
	txt := fmt.Sprintf("%s %s (%d)", arrow, g.title, n)
	if p.by == byPattern {
		txt = fmt.Sprintf("%s %7d  %s", arrow, n, g.title)
	}
	if marked > 0 {
		txt += fmt.Sprintf(" [%d selected]", marked)
	}
	return txt
}
