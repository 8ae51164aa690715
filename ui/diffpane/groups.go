package diffpane

import (
	"fmt"
	"strings"

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
	title   string // as listed (request ids shortened)
	full    string // in full, for the line under the list
	pattern string // byPattern: the field pattern (an exception pattern covering exactly it)
	changes []int  // indexes into Diff.Changes, document order
	count   int    // the pointers the group stands for (more than changes in a truncated diff)
}

// A grouping is the groups of one kind and, for each change, the group holding it.
type grouping struct {
	groups  []listGroup
	groupOf []int
	short   map[string]string // request id → the part that tells it apart (byRequest only)
}

// buildGroupings computes both groupings (off the update loop, with the diff).
func buildGroupings(d *diffview.Diff) [2]grouping {
	var gs [2]grouping
	// Request ids are shown by the part that tells them apart: zero-padded uuids differ only
	// at the end, and a title cut at the pane's edge would hide exactly that.
	var ids []string
	for _, c := range d.Changes {
		if c.Request != "" {
			ids = append(ids, c.Request)
		}
		if c.RequestA != "" {
			ids = append(ids, c.RequestA)
		}
	}
	short := diffview.ShortIDs(ids, 4)
	req := grouping{groupOf: make([]int, len(d.Changes)), short: short}
	for gi, g := range d.Groups {
		title := g.Title
		if g.Request != "" {
			title = strings.Replace(title, g.Request, short[g.Request], 1)
			if a := d.Changes[g.Changes[0]].RequestA; a != "" {
				title = strings.Replace(title, a, short[a], 1)
			}
		}
		req.groups = append(req.groups, listGroup{key: "r " + g.Key, title: title, full: g.Title, changes: g.Changes, count: len(g.Changes)})
		for _, ci := range g.Changes {
			req.groupOf[ci] = gi
		}
	}
	pat := grouping{groupOf: make([]int, len(d.Changes))}
	for gi, pc := range d.FieldPatterns() {
		pat.groups = append(pat.groups, listGroup{key: "p " + pc.Pattern, title: pc.Pattern, full: pc.Pattern, pattern: pc.Pattern, changes: pc.Changes, count: pc.Count})
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

// switchGrouping shows the other grouping. Field patterns open on the largest, at the top;
// back by request, the change (or first change of the pattern) selected before stays selected.
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
	if keep >= 0 && p.by == byRequest {
		// Land on the change's group header unless the group is open: a request group is small,
		// but selecting inside it is what n would do.
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
	n := p.vis.count(p.by, gi, g.count)
	txt := fmt.Sprintf("%s %s (%d)", arrow, g.title, n)
	if p.by == byPattern {
		txt = fmt.Sprintf("%s %7d  %s", arrow, n, g.title)
		if len(g.changes) == 0 && n > 0 {
			txt += " (none held in detail)"
		}
	}
	if marked > 0 {
		txt += fmt.Sprintf(" [%d selected]", marked)
	}
	return txt
}
