package campaignreport

import (
	"fmt"
	"io"
	"kvparity/internal/layout"
	"path"
	"strings"
)

// WriteText prints the plan for people: what was removed and what was kept, grouped by why,
// one line per file or per run folder.
func (p Plan) WriteText(w io.Writer) {
	verb := "removed"
	if p.DryRun {
		verb = "would remove"
	}
	fmt.Fprintf(w, "campaign %s\n", p.Dir)
	for _, u := range p.Unresolved {
		fmt.Fprintf(w, "unresolved: %s\n", u)
	}
	writeGroup(w, verb, p.Removed)
	writeGroup(w, "kept", p.Kept)
	fmt.Fprintf(w, "%s %s, %s; kept %s\n", verb, plural(len(p.Removed), "file"), size(p.Freed), plural(len(p.Kept), "file"))
	if p.ReportRewritten {
		fmt.Fprintln(w, "report.md and report.json written again: they now say which outputs were removed")
	}
}

func writeGroup(w io.Writer, verb string, entries []entry) {
	type group struct {
		why   string
		items []string
		n     map[string]int
		bytes int64
	}
	var groups []*group
	byWhy := map[string]*group{}
	for _, e := range entries {
		g := byWhy[e.Why]
		if g == nil {
			g = &group{why: e.Why, n: map[string]int{}}
			byWhy[e.Why] = g
			groups = append(groups, g)
		}
		item := e.Path
		if strings.HasPrefix(e.Path, layout.DirRuns+"/") && strings.Count(e.Path, "/") == 3 {
			item = path.Dir(e.Path) + "/" // a run folder is one line
		}
		if g.n[item] == 0 {
			g.items = append(g.items, item)
		}
		g.n[item]++
		g.bytes += e.Bytes
	}
	for _, g := range groups {
		fmt.Fprintf(w, "%s — %s (%s):\n", verb, g.why, size(g.bytes))
		for _, it := range g.items {
			if strings.HasSuffix(it, "/") {
				fmt.Fprintf(w, "  %s (%s)\n", it, plural(g.n[it], "file"))
			} else {
				fmt.Fprintf(w, "  %s\n", it)
			}
		}
	}
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
