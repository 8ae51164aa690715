package diffpane

import (
	"strings"
	"sync/atomic"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
)

// The filter is incremental: every keystroke that changes the field starts a scan of the
// differing pointers off the update loop, tagged with a generation. A newer keystroke makes
// older scans give up (they poll the latest generation) and their results, should they still
// arrive, are dropped. The list shows the newest finished result, so typing never waits on
// tens of thousands of pointers.

// visibility is a filter's result: which changes pass and how many per group of each
// grouping. Its zero value shows everything.
type visibility struct {
	on     bool
	pass   []bool
	total  int
	counts [2][]int
}

func (v visibility) count(by groupBy, gi, all int) int {
	if !v.on {
		return all
	}
	return v.counts[by][gi]
}

// filterState is what esc restores while the filter is being typed.
type filterState struct {
	pattern string
	vis     visibility
}

// filterDoneMsg carries one scan's result.
type filterDoneMsg struct {
	gen     int
	pattern string
	vis     visibility
}

// visible says whether change ci passes the filter shown.
func (p Model) visible(ci int) bool { return !p.vis.on || p.vis.pass[ci] }

// visibleCount is how many changes pass the filter shown.
func (p Model) visibleCount() int {
	if !p.vis.on {
		if p.diff == nil {
			return 0
		}
		return len(p.diff.Changes)
	}
	return p.vis.total
}

// matcher is the filter's test: a pointer pattern when it starts with "/" and has a glob,
// else a substring of the pointer or of the request id.
func matcher(pattern string) func(c *diffview.Change) bool {
	if strings.HasPrefix(pattern, "/") && strings.ContainsAny(pattern, "*?[") {
		m := diffview.Compile(pattern)
		return func(c *diffview.Change) bool { return m.Match(c.Pointer) }
	}
	return func(c *diffview.Change) bool {
		return strings.Contains(c.Pointer, pattern) || strings.Contains(c.Request, pattern)
	}
}

// scanFilter computes a filter's visibility off the update loop. It captures only values:
// the diff (read only), both groupings, the pattern, its generation and the shared latest
// generation it polls to give up early.
func scanFilter(d *diffview.Diff, groups [2]grouping, pattern string, gen int, latest *atomic.Int64) tea.Cmd {
	return func() tea.Msg {
		if pattern == "" {
			return filterDoneMsg{gen: gen}
		}
		match := matcher(pattern)
		v := visibility{on: true, pass: make([]bool, len(d.Changes))}
		for i := range d.Changes {
			if i%2048 == 2047 && latest.Load() != int64(gen) {
				return nil // superseded: a newer keystroke asked again
			}
			if match(&d.Changes[i]) {
				v.pass[i] = true
				v.total++
			}
		}
		for by := range groups {
			v.counts[by] = make([]int, len(groups[by].groups))
			for i, ok := range v.pass {
				if ok && i < len(groups[by].groupOf) && groups[by].groupOf[i] < len(v.counts[by]) {
					v.counts[by][groups[by].groupOf[i]]++
				}
			}
		}
		return filterDoneMsg{gen: gen, pattern: pattern, vis: v}
	}
}

// refilter asks for the field's current value to be applied.
func (p *Model) refilter(pattern string) tea.Cmd {
	p.filterGen++
	p.latest.Store(int64(p.filterGen))
	p.asked = pattern
	if p.diff == nil {
		return nil
	}
	return scanFilter(p.diff.Diff, p.groups, pattern, p.filterGen, p.latest)
}

// onFilterDone shows a scan's result unless a newer one was asked for.
func (p Model) onFilterDone(msg filterDoneMsg) Model {
	if msg.gen != p.filterGen || p.diff == nil {
		return p
	}
	p.applyFilter(msg.pattern, msg.vis)
	return p
}

// applyFilter shows a filter result, keeping the selected change when it still passes.
func (p *Model) applyFilter(pattern string, v visibility) {
	keep := -1
	if p.cursor < len(p.rows) {
		keep = p.rows[p.cursor].change
	}
	p.pattern, p.vis = pattern, v
	p.cursor = 0
	p.rebuild()
	switch {
	case keep >= 0 && p.visible(keep):
		p.selectChange(keep)
	case p.pattern != "":
		if vis := p.visibleChanges(1); len(vis) > 0 {
			p.selectChange(vis[0])
		}
	}
}

func (p Model) updateFilter(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, p.keys.Apply):
		p.mode = modeList
		p.filter.Blur()
		if v := strings.TrimSpace(p.filter.Value()); v != p.asked {
			return p, p.refilter(v) // nothing asked yet for the field's value
		}
		if p.pattern != "" && p.visibleCount() == 0 {
			return p, p.tell("no differing pointer matches "+p.pattern, false)
		}
		return p, nil
	case key.Matches(msg, p.keys.Cancel):
		p.mode = modeList
		p.filter.Blur()
		p.filterGen++ // drop what is in flight
		p.latest.Store(int64(p.filterGen))
		p.asked = p.before.pattern
		p.applyFilter(p.before.pattern, p.before.vis)
		return p, nil
	}
	before := p.filter.Value()
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	if v := p.filter.Value(); v != before {
		return p, tea.Batch(cmd, p.refilter(strings.TrimSpace(v)))
	}
	return p, cmd
}

// startFilter opens the field on the current filter.
func (p Model) startFilter() (Model, tea.Cmd) {
	p.mode = modeFilter
	p.before = filterState{pattern: p.pattern, vis: p.vis}
	p.filter.SetValue(p.pattern)
	p.filter.CursorEnd()
	return p, p.filter.Focus()
}

// clearFilter shows every change again.
func (p *Model) clearFilter() {
	p.filterGen++
	p.latest.Store(int64(p.filterGen))
	p.asked = ""
	p.applyFilter("", visibility{})
}
