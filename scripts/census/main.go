// Command census counts, for every package of the module, its non-test lines, its exported
// names, how many of those the module's other packages use, and the ratio of the two (issue
// 28's target: exported ≤ 1.2 × used in every package). Run it from a module root:
//
//	go run ./scripts/census [-v] [DIR]
//
// An exported name is a package-level exported object. The exported methods and fields of a
// package-level named type are its members, counted apart (the members columns: used, with no
// tests); for a member "used" is as below. Four counts of names, each with its ratio, read
// from strict to wide:
//
//   - used: another package of the module names it in a non-test file (a field as a
//     composite-literal key counts). A method is also used when its type satisfies an
//     interface declared in another package (the standard library's included) that has the
//     method (fmt calling String); when another package calls it through an interface of its
//     own package (ui calling engine.Controller's AddRepetition calls Campaign's); or when a
//     generic of another package calls it through a type constraint (engine instantiating
//     journal.File[Record, *Record] hands journal Record's Sequence and Prepare).
//   - used +tests: the same, with other packages' test files as users too (an external test
//     package in the same directory is the package's own). A test-support package has few
//     users or none besides tests (diffview/difftest's one is diffview/internal/benchdiff;
//     engine/build/buildtest and e2e have none).
//   - reached: used, or an exported type that another package works with without naming it:
//     one of its fields or methods is named (a caller reading row.Canonical.Exclusions
//     reaches CanonicalSpec; ui.New's Model reaches tea.NewProgram through its methods), one
//     of its constants is named (journal.RefuseDamage reaches TailMode), or it is in the
//     signature or type of a used name, a used struct's exported fields and a used
//     interface's methods included (journal.Read's TailMode parameter,
//     campaignreport.Report's []ArtifactInfo). A constant of a reached type is reached: go
//     doc lists a type's constants under it, one enumeration. A method that only an interface
//     or a constraint wants reaches no type. Such names must stay exported for the API they
//     are part of to be documented; a name counted by neither is exported for nothing.
//   - reached +tests: reached, with other packages' tests as users too.
//
// -v lists, after the table, per package, the unused names (and those unused by tests too) and
// the unreached ones (and those unreached by tests too).
//
// The module's packages are type-checked from source, in go list's dependency order, so one
// object stands for a name in every package; the rest come from the compiler's export data.
// Test files are checked against the packages' non-test builds.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
)

// listed is the part of `go list -json` the census reads.
type listed struct {
	ImportPath   string
	ForTest      string
	Dir          string
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	Export       string
	Module       *struct{ Main bool }
	ImportMap    map[string]string
	Error        *struct{ Err string }
}

// pkg is one module package, checked: its non-test files, and (apart) its tests.
type pkg struct {
	listed
	types *types.Package
	info  *types.Info
	tests []*types.Info // the internal and the external test package's files
	lines int
}

func main() {
	verbose := flag.Bool("v", false, "list each package's exported names no other package uses, and those no other package reaches")
	flag.Parse()
	dir := "."
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	var lists bytes.Buffer // -v's lists, after the table: a line without tabs would cut its columns
	err := run(dir, *verbose, tw, &lists)
	tw.Flush()
	os.Stdout.Write(lists.Bytes())
	if err != nil {
		fmt.Fprintln(os.Stderr, "census:", err)
		os.Exit(1)
	}
}

func run(dir string, verbose bool, w, lists io.Writer) error {
	all, err := goList(dir)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	exports := map[string]string{}
	for _, l := range all {
		exports[l.ImportPath] = l.Export
	}
	fromExport := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	checked := map[string]*types.Package{}
	var mods []*pkg
	for _, l := range all { // dependencies come first
		if l.Module == nil || !l.Module.Main || l.ForTest != "" || strings.HasSuffix(l.ImportPath, ".test") {
			continue // not the module's, or a test's build of a package
		}
		if l.Error != nil {
			return fmt.Errorf("%s: %s", l.ImportPath, l.Error.Err)
		}
		p := &pkg{listed: l}
		if err := p.check(fset, checked, fromExport); err != nil {
			return err
		}
		checked[l.ImportPath] = p.types
		mods = append(mods, p)
	}
	for _, p := range mods {
		if err := p.checkTests(fset, checked, fromExport); err != nil {
			return err
		}
	}
	ifaces := interfaces(checked)
	sort.Slice(mods, func(i, j int) bool { return mods[i].ImportPath < mods[j].ImportPath })
	fmt.Fprintln(w, "package\tlines\tnames\tused\tratio\t+tests\tratio\treached\tratio\t+tests\tratio\tmembers\tused\tratio\t")
	for _, p := range mods {
		var code, tests []*types.Info // what the other packages' files, and their tests, name
		for _, q := range mods {
			if q != p {
				code = append(code, q.info)
				tests = append(tests, q.tests...)
			}
		}
		c := tally(p, code, ifaces)
		t := tally(p, append(code, tests...), ifaces)
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\t%d\t%s\t%d\t%s\t%d\t%s\t%d\t%d\t%s\t\n", p.ImportPath, p.lines,
			c.names, c.used, ratio(c.names, c.used), t.used, ratio(t.names, t.used),
			c.reached, ratio(c.names, c.reached), t.reached, ratio(t.names, t.reached),
			c.members, c.membersUsed, ratio(c.members, c.membersUsed))
		if verbose {
			fmt.Fprintf(lists, "\n%s\n", p.ImportPath)
			for _, l := range []struct {
				what  string
				names []string
			}{{"unused", c.unused}, {"unused by tests too", t.unused}, {"unreached", c.unreached}, {"unreached by tests too", t.unreached}} {
				if len(l.names) > 0 {
					fmt.Fprintf(lists, "  %s: %s\n", l.what, strings.Join(l.names, " "))
				}
			}
		}
	}
	return nil
}

// A count is one package's exported names against what other packages' files use of them.
type count struct {
	names, used, reached int
	members, membersUsed int
	unused, unreached    []string // sorted labels
}

// tally counts p's exported names that the files behind infos use or reach.
func tally(p *pkg, infos []*types.Info, ifaces map[string][]*types.TypeName) count {
	used := map[types.Object]bool{}   // named by another package
	wanted := map[types.Object]bool{} // methods a generic calls through a constraint: used, but reach nothing
	for _, info := range infos {
		for _, obj := range info.Uses {
			if obj.Pkg() == p.types {
				used[origin(obj)] = true
			}
		}
		for obj := range constrained(info, p.types) {
			wanted[obj] = true
		}
	}
	for obj := range constrained(p.info, p.types) { // p's own instantiation of another's generic
		wanted[obj] = true
	}
	var c count
	reachedType := map[string]bool{} // a type's name → another package works with it
	names := exportedNames(p.types)
	for _, e := range names {
		n, u := &c.names, &c.used
		if e.member {
			n, u = &c.members, &c.membersUsed
		}
		*n++
		if used[e.obj] || wanted[e.obj] || satisfiesElsewhere(e.obj, p.types, ifaces, used) {
			*u++
			if e.member && used[e.obj] { // a method only an interface or a constraint wants reaches nothing
				reachedType[e.owner] = true
			}
		} else {
			c.unused = append(c.unused, e.label)
		}
	}
	for obj := range used { // a constant's, variable's, field's or function's type; a type's definition
		t := obj.Type()
		if tn, ok := obj.(*types.TypeName); ok && !tn.IsAlias() {
			t = t.Underlying() // the named type itself is counted as used already
		}
		markTypes(t, p.types, reachedType)
	}
	c.reached = c.used
	for _, e := range names {
		if e.member || used[e.obj] {
			continue
		}
		if reachedType[e.label] || enumerates(e.obj, p.types, used, reachedType) {
			c.reached++
		} else {
			c.unreached = append(c.unreached, e.label)
		}
	}
	sort.Strings(c.unused)
	sort.Strings(c.unreached)
	return c
}

// enumerates reports whether obj is a constant of a type of p that another package uses or
// reaches: go doc lists a type's constants under it, as one enumeration, so its values are
// part of the type's documented API even when another package names only some of them.
func enumerates(obj types.Object, p *types.Package, used map[types.Object]bool, reachedType map[string]bool) bool {
	if _, ok := obj.(*types.Const); !ok {
		return false
	}
	n, ok := obj.Type().(*types.Named)
	if !ok || n.Obj().Pkg() != p {
		return false
	}
	return used[n.Obj()] || reachedType[n.Obj().Name()]
}

// constrained is the methods of p's types that a generic of another package calls through its
// type parameters' constraints: engine instantiating journal.File[Record, *Record] hands
// Record's Sequence and Prepare to journal's code, which calls them without naming them.
func constrained(info *types.Info, p *types.Package) map[types.Object]bool {
	methods := map[types.Object]bool{}
	for id, inst := range info.Instances {
		generic := info.Uses[id]
		if generic == nil || generic.Pkg() == p {
			continue
		}
		var params *types.TypeParamList
		switch g := generic.(type) {
		case *types.TypeName:
			if n, ok := g.Type().(*types.Named); ok {
				params = n.TypeParams()
			}
		case *types.Func:
			params = g.Signature().TypeParams()
		}
		for i := range params.Len() {
			if i >= inst.TypeArgs.Len() {
				break
			}
			arg := inst.TypeArgs.At(i)
			it, ok := params.At(i).Constraint().Underlying().(*types.Interface)
			if !ok {
				continue
			}
			for m := range it.Methods() {
				obj, _, _ := types.LookupFieldOrMethod(arg, true, m.Pkg(), m.Name())
				if fn, ok := obj.(*types.Func); ok && fn.Pkg() == p {
					methods[fn.Origin()] = true
				}
			}
		}
	}
	return methods
}

// goList lists every package the module's packages and their tests need, dependencies first,
// with the compiler's export data built for them.
func goList(dir string) ([]listed, error) {
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-test", "-json", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %v: %s", dir, err, stderr.String())
	}
	var all []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var l listed
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("go list output: %v", err)
		}
		all = append(all, l)
	}
	return all, nil
}

// check parses and type-checks p's non-test files; module packages it imports are the ones
// already checked.
func (p *pkg) check(fset *token.FileSet, checked map[string]*types.Package, fromExport types.Importer) error {
	files, lines, err := parse(fset, p.Dir, append(append([]string{}, p.GoFiles...), p.CgoFiles...))
	if err != nil {
		return err
	}
	p.lines = lines
	p.info = newInfo()
	conf := types.Config{Importer: p.importer(checked, fromExport)}
	t, err := conf.Check(p.ImportPath, fset, files, p.info)
	if err != nil {
		return fmt.Errorf("type-checking %s: %v", p.ImportPath, err)
	}
	p.types = t
	return nil
}

// checkTests type-checks p's internal test package (its files and its tests) and its external
// one, for what they name of the other module packages. An external test naming a helper of
// export_test.go is an error here, since p stands for its non-test build; the rest of the
// file is still read.
func (p *pkg) checkTests(fset *token.FileSet, checked map[string]*types.Package, fromExport types.Importer) error {
	for _, t := range []struct {
		path  string
		files []string
	}{
		{p.ImportPath, append(append(append([]string{}, p.GoFiles...), p.CgoFiles...), p.TestGoFiles...)},
		{p.ImportPath + "_test", p.XTestGoFiles},
	} {
		if len(t.files) == 0 || (t.path == p.ImportPath && len(p.TestGoFiles) == 0) {
			continue
		}
		files, _, err := parse(fset, p.Dir, t.files)
		if err != nil {
			return err
		}
		info := newInfo()
		conf := types.Config{Importer: p.importer(checked, fromExport), Error: func(error) {}}
		conf.Check(t.path, fset, files, info) //nolint:errcheck // tolerated, see above
		p.tests = append(p.tests, info)
	}
	return nil
}

func newInfo() *types.Info {
	return &types.Info{Uses: map[*ast.Ident]types.Object{}, Instances: map[*ast.Ident]types.Instance{}}
}

// parse reads dir's named files, and counts their lines.
func parse(fset *token.FileSet, dir string, names []string) ([]*ast.File, int, error) {
	var files []*ast.File
	lines := 0
	for _, name := range names {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, 0, err
		}
		lines += bytes.Count(src, []byte("\n"))
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, 0, err
		}
		files = append(files, f)
	}
	return files, lines, nil
}

// importer resolves p's imports: a module package to its checked non-test build, the rest
// from export data.
func (p *pkg) importer(checked map[string]*types.Package, fromExport types.Importer) types.Importer {
	return importerFunc(func(path string) (*types.Package, error) {
		if mapped, ok := p.ImportMap[path]; ok && checked[path] == nil {
			path = mapped
		}
		if t, ok := checked[path]; ok {
			return t, nil
		}
		return fromExport.Import(path)
	})
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// An exported is one exported name and how -v writes it (Name, Type.Method, Type.Field).
type exported struct {
	obj    types.Object
	label  string
	member bool   // a method or a field
	owner  string // a member's type
}

// exportedNames is p's exported package-level objects, and the exported methods and fields of
// its exported named types.
func exportedNames(p *types.Package) []exported {
	var names []exported
	scope := p.Scope()
	for _, n := range scope.Names() {
		obj := scope.Lookup(n)
		if !obj.Exported() {
			continue
		}
		names = append(names, exported{obj, n, false, ""})
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		for m := range named.Methods() {
			if m.Exported() {
				names = append(names, exported{m, n + "." + m.Name(), true, n})
			}
		}
		if s, ok := named.Underlying().(*types.Struct); ok {
			for f := range s.Fields() {
				if f.Exported() && !f.Embedded() {
					names = append(names, exported{f, n + "." + f.Name(), true, n})
				}
			}
		}
	}
	return names
}

// markTypes marks, in reached, every named type of p that t is built from: t itself, what it
// points to or holds, a signature's parameters, results and type parameters' constraints, a
// generic type's arguments, a struct's exported fields, an interface's methods. The walk stops
// at named types: a used type's own definition is walked once, from tally, so the fields of a
// type that is only reached count only when used.
func markTypes(t types.Type, p *types.Package, reached map[string]bool) {
	seen := map[types.Type]bool{}
	var walk func(types.Type)
	walk = func(t types.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Named:
			if obj := t.Obj(); obj.Pkg() == p {
				reached[obj.Name()] = true
			}
			for a := range t.TypeArgs().Types() {
				walk(a)
			}
		case *types.Alias:
			if obj := t.Obj(); obj.Pkg() == p {
				reached[obj.Name()] = true
			}
			walk(types.Unalias(t))
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Signature:
			for v := range t.Params().Variables() {
				walk(v.Type())
			}
			for v := range t.Results().Variables() {
				walk(v.Type())
			}
			for tp := range t.TypeParams().TypeParams() {
				walk(tp.Constraint())
			}
		case *types.TypeParam:
			walk(t.Constraint())
		case *types.Struct: // a used struct type's exported fields are documented with it
			for f := range t.Fields() {
				if f.Exported() {
					walk(f.Type())
				}
			}
		case *types.Interface: // a used interface's methods are documented with it
			for i := range t.NumEmbeddeds() {
				walk(t.EmbeddedType(i))
			}
			for m := range t.ExplicitMethods() {
				walk(m.Type())
			}
		case *types.Union:
			for i := range t.Len() {
				walk(t.Term(i).Type())
			}
		}
	}
	walk(t)
}

// origin is the declared object behind a use of a generic type's method or field.
func origin(obj types.Object) types.Object {
	switch o := obj.(type) {
	case *types.Func:
		return o.Origin()
	case *types.Var:
		return o.Origin()
	}
	return obj
}

// interfaces is every named interface of the checked packages and of everything they import,
// by method name, plus error.
func interfaces(checked map[string]*types.Package) map[string][]*types.TypeName {
	byMethod := map[string][]*types.TypeName{}
	seen := map[*types.Package]bool{}
	var walk func(*types.Package)
	walk = func(p *types.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, n := range p.Scope().Names() {
			tn, ok := p.Scope().Lookup(n).(*types.TypeName)
			if !ok {
				continue
			}
			if it, ok := tn.Type().Underlying().(*types.Interface); ok && !isGeneric(tn) {
				for m := range it.Methods() {
					byMethod[m.Name()] = append(byMethod[m.Name()], tn)
				}
			}
		}
		for _, imp := range p.Imports() {
			walk(imp)
		}
	}
	for _, p := range checked {
		walk(p)
	}
	errType := types.Universe.Lookup("error").(*types.TypeName)
	byMethod["Error"] = append(byMethod["Error"], errType)
	return byMethod
}

func isGeneric(tn *types.TypeName) bool {
	n, ok := tn.Type().(*types.Named)
	return ok && n.TypeParams().Len() > 0
}

// satisfiesElsewhere reports whether obj is a method its type needs to satisfy an interface
// declared outside p (so it is called through that interface without being named), or an
// interface of p whose method another package calls (ui calling engine.Controller's
// AddRepetition calls Campaign's).
func satisfiesElsewhere(obj types.Object, p *types.Package, ifaces map[string][]*types.TypeName, used map[types.Object]bool) bool {
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	recv := fn.Signature().Recv()
	if recv == nil {
		return false
	}
	t := recv.Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if n, ok := t.(*types.Named); !ok || n.TypeParams().Len() > 0 {
		return false // a generic type satisfies an interface only once instantiated
	}
	for _, tn := range ifaces[fn.Name()] {
		it := tn.Type().Underlying().(*types.Interface)
		if tn.Pkg() == p && !calledThrough(it, fn.Name(), used) {
			continue
		}
		if types.Implements(t, it) || types.Implements(types.NewPointer(t), it) {
			return true
		}
	}
	return false
}

// calledThrough reports whether another package calls its method name through it.
func calledThrough(it *types.Interface, name string, used map[types.Object]bool) bool {
	for m := range it.Methods() {
		if m.Name() == name && used[m] {
			return true
		}
	}
	return false
}

// ratio is exported/used, marked when above the target of 1.2.
func ratio(exported, used int) string {
	switch {
	case exported == 0:
		return "-"
	case used == 0:
		return "∞ >1.2"
	}
	r := float64(exported) / float64(used)
	if r > 1.2 {
		return fmt.Sprintf("%.2f >1.2", r)
	}
	return fmt.Sprintf("%.2f", r)
}
