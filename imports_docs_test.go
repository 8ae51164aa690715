package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every package's doc comment names each kvparity package it imports (or its room, "ui/*"), so
// the reason for an arrow (arrowWhy) is also where a reader of the package looks first.
func TestPackageDocsSayWhyTheyImport(t *testing.T) {
	for pkg, imps := range moduleGraph(t) {
		doc := packageDoc(t, pkg)
		for _, imp := range imps {
			rel, own := strings.CutPrefix(imp, "kvparity/")
			if !own || pkg == "" || strings.Contains(doc, rel) {
				continue
			}
			if !namesGroup(doc, rel) {
				t.Errorf("package %s imports %s, and its doc comment does not say why", pkg, rel)
			}
		}
	}
}

// namesGroup reports whether doc names a group rel is in ("ui/*" for ui/keys), so adding a
// package to a group does not mean editing the doc of every package that imports the group.
func namesGroup(doc, rel string) bool {
	for i := strings.LastIndex(rel, "/"); i > 0; i = strings.LastIndex(rel[:i], "/") {
		if strings.Contains(doc, rel[:i]+"/*") {
			return true
		}
	}
	return false
}

// packageDoc is the package comment of the package in dir rel ("" the root).
func packageDoc(t *testing.T, rel string) string {
	t.Helper()
	dir := rel
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			doc.WriteString(f.Doc.Text())
		}
	}
	return doc.String()
}
