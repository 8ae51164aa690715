package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// rooms is DESIGN's package picture ("Packages (one room each; arrows are the only imports
// allowed)"): for each room, the kvparity packages its non-test files may import, and whether
// it may import anything outside the standard library. A room "x/*" covers x's subpackages.
// Change this table and DESIGN together.
var rooms = map[string]struct {
	may     []string
	stdOnly bool
	ext     []string // third-party packages a stdOnly room may still import
}{
	"kvparity":            {may: []string{"*"}},
	"headless":            {may: []string{"engine", "campaignreport", "verdict"}, stdOnly: true},
	"ui":                  {may: []string{"engine", "diffview", "stats", "report", "verdict", "ui/*", "internal/atomicfile"}},                          // atomicfile: ui-state.json
	"ui/diffpane":         {may: []string{"diffview", "ui/keys", "ui/pane", "ui/theme", "verdict"}},                                                    // the diff pane: over diffview, beside the other panes
	"ui/*":                {may: []string{"engine", "engine/matrix", "diffview", "stats", "report", "verdict", "ui/*"}},                                // engine/matrix: ui/matrixview shows matrix.RowStatus
	"diffview":            {may: []string{"report", "verdict", "internal/*"}, stdOnly: true, ext: []string{"github.com/sergi/go-diff/diffmatchpatch"}}, // go-diff aligns ordered arrays
	"diffview/difftest":   {may: []string{"internal/*"}, stdOnly: true},
	"diffview/internal/*": {may: []string{"diffview", "diffview/difftest", "report", "internal/*"}, stdOnly: true},
	"engine":              {may: []string{"engine/build", "engine/profile", "report", "stats", "verdict", "internal/*"}},
	"engine/build":        {may: []string{"internal/*"}},
	"engine/profile":      {stdOnly: true}, // stage 7's profiles and symbol tables, parsed (engine runs perf and nm)
	"engine/matrix":       {may: []string{"engine", "verdict", "internal/*"}},
	"campaignreport":      {may: []string{"engine", "engine/matrix", "diffview", "stats", "report", "verdict", "internal/*"}, stdOnly: true, ext: plotPackages},
	"report":              {may: []string{"verdict", "internal/*"}, stdOnly: true},
	"stats":               {may: []string{"verdict"}, stdOnly: true},
	"verdict":             {stdOnly: true},
	"internal/*":          {may: []string{"internal/*"}, stdOnly: true},
	"mocker":              {may: []string{"report", "internal/*"}},
	"scripts/*":           {stdOnly: true}, // tools run by hand (go run ./scripts/census): no arrow into the product
}

// plotPackages draw the campaign report's plots/ (gonum.org/v1/plot).
var plotPackages = []string{"gonum.org/v1/plot", "gonum.org/v1/plot/plotter", "gonum.org/v1/plot/vg", "gonum.org/v1/plot/vg/draw", "gonum.org/v1/plot/vg/vgimg", "gonum.org/v1/plot/vg/vgsvg"}

// room finds the table entry of a package path relative to the module ("" is the root).
func room(rel string) (string, bool) {
	if rel == "" {
		return "kvparity", true
	}
	if _, ok := rooms[rel]; ok {
		return rel, true
	}
	for i := strings.LastIndex(rel, "/"); i > 0; i = strings.LastIndex(rel[:i], "/") {
		if _, ok := rooms[rel[:i]+"/*"]; ok {
			return rel[:i] + "/*", true
		}
	}
	return "", false
}

func allowed(patterns []string, imp string) bool {
	for _, p := range patterns {
		switch {
		case p == "*", p == imp:
			return true
		case strings.HasSuffix(p, "/*") && strings.HasPrefix(imp, strings.TrimSuffix(p, "*")):
			return true
		}
	}
	return false
}

// arrowViolations checks a package graph (module-relative path → imports of its non-test files)
// against the rooms table.
func arrowViolations(graph map[string][]string) []string {
	var bad []string
	for pkg, imps := range graph {
		r, ok := room(pkg)
		if !ok {
			bad = append(bad, "package "+strconv.Quote(pkg)+" has no room in DESIGN's picture")
			continue
		}
		rule := rooms[r]
		for _, imp := range imps {
			if rel, own := strings.CutPrefix(imp, "kvparity/"); own {
				if !allowed(rule.may, rel) {
					may := strings.Join(rule.may, ", ")
					if may == "" {
						may = "no kvparity package"
					}
					bad = append(bad, pkg+" -> "+rel+" (room "+r+" may import "+may+")")
				}
				continue
			}
			if rule.stdOnly && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") && !slices.Contains(rule.ext, imp) {
				bad = append(bad, pkg+" -> "+imp+" (room "+r+" is standard library only)")
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// moduleGraph reads every package's non-test imports from the source tree.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			pkg = ""
		}
		for _, is := range f.Imports {
			imp, _ := strconv.Unquote(is.Path.Value)
			if !slices.Contains(graph[pkg], imp) {
				graph[pkg] = append(graph[pkg], imp)
			}
		}
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return graph
}

// TestImportsFollowTheRooms holds DESIGN's arrows: no package imports a room it may not, and the
// standard-library-only rooms import nothing else.
func TestImportsFollowTheRooms(t *testing.T) {
	graph := moduleGraph(t)
	for _, want := range []string{"verdict", "headless", "ui/diffpane", "engine", "campaignreport"} {
		if _, ok := graph[want]; !ok {
			t.Errorf("package %s is missing from the tree", want)
		}
	}
	for _, v := range arrowViolations(graph) {
		t.Error(v)
	}
}

// The checker itself: a broken arrow, a third-party import into a stdlib-only room and an
// unknown package are each reported.
func TestArrowViolationsAreReported(t *testing.T) {
	bad := arrowViolations(map[string][]string{
		"engine":         {"kvparity/ui", "kvparity/report"},
		"verdict":        {"github.com/BurntSushi/toml", "fmt"},
		"campaignreport": {"kvparity/engine", "kvparity/diffview"},
		"newroom":        nil,
	})
	want := []string{
		"engine -> ui (room engine may import engine/build, engine/profile, report, stats, verdict, internal/*)",
		`package "newroom" has no room in DESIGN's picture`,
		"verdict -> github.com/BurntSushi/toml (room verdict is standard library only)",
	}
	if !slices.Equal(bad, want) {
		t.Errorf("violations\n%s\nwant\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
}
