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

// rooms is the package picture, and its source of truth (one room each; arrows are the only
// imports allowed): for each room, the kvparity packages its non-test files may import, and
// whether it may import anything outside the standard library. A room "x/*" covers x's
// subpackages. arrowWhy says why each arrow exists, and each package's doc comment says it
// again in its own words (TestPackageDocsSayWhyTheyImport).
var rooms = map[string]struct {
	may     []string
	stdOnly bool
	ext     []string // third-party packages a stdOnly room may still import
}{
	"kvparity":               {may: []string{"*"}},
	"driver":                 {may: []string{"engine", "campaignreport", "verdict", "internal/layout"}, stdOnly: true},                              // the step every driver shares: a campaign run to its report
	"matrix":                 {may: []string{"driver", "engine/matrix", "headless", "campaignreport", "verdict", "internal/layout"}, stdOnly: true}, // a driver: engine/matrix schedules, this wires it to the report
	"headless":               {may: []string{"driver", "engine", "engine/determinism", "engine/fixturestage", "engine/instructions", "engine/investigate", "engine/perf", "engine/stages", "engine/run", "campaignreport", "verdict"}, stdOnly: true},
	"qualify":                {may: []string{"driver", "engine", "engine/qualify", "verdict", "internal/atomicfile", "internal/layout"}, stdOnly: true}, // a driver: stage 3's search run and said for people
	"ui":                     {may: []string{"engine", "diffview", "stats", "report", "verdict", "ui/*", "internal/atomicfile"}},                        // atomicfile: ui-state.json
	"ui/diffpane":            {may: []string{"diffview", "diffview/diagnose", "exceptions", "ui/keys", "ui/pane", "ui/theme", "verdict"}},               // the diff pane: over diffview, beside the other panes
	"ui/qualifyview":         {may: []string{"engine", "engine/qualify", "qualify", "ui/*"}},                                                            // the qualify view: a driver's progress (qualify.Progress)
	"ui/*":                   {may: []string{"engine", "engine/matrix", "bisect", "diffview", "stats", "report", "verdict", "ui/*"}},                    // engine/matrix, bisect: the matrix and bisect views
	"diffview":               {may: []string{"report", "internal/*"}, stdOnly: true, ext: []string{"github.com/sergi/go-diff/diffmatchpatch"}},          // go-diff aligns ordered arrays
	"diffview/diagnose":      {may: []string{"diffview", "verdict", "internal/*"}, stdOnly: true},
	"exceptions":             {may: []string{"diffview", "verdict", "internal/*"}, stdOnly: true},
	"diffview/difftest":      {may: []string{"internal/*"}, stdOnly: true},
	"diffview/internal/*":    {may: []string{"diffview", "diffview/diagnose", "diffview/difftest", "report", "internal/*"}, stdOnly: true},
	"engine":                 {may: []string{"engine/arm", "engine/build", "engine/fixtures", "engine/journal", "engine/instrument", "engine/profile", "engine/run", "report", "stats", "verdict", "internal/*"}},
	"engine/fixtures":        {may: []string{"report", "verdict"}, stdOnly: true}, // stage 6: the fixtures, run through the Host the campaign gives
	"engine/qualify":         {may: []string{"engine", "report"}, stdOnly: true},  // stage 3: the capacity search, through the campaign's probes
	"engine/journal":         {may: []string{"internal/*"}, stdOnly: true},        // the journal file, whatever its records say
	"engine/run":             {may: []string{"report", "internal/*"}},             // the process runner: x/sys/unix for affinity, prctl and rusage
	"engine/instrument":      {may: []string{"engine/run", "verdict"}},            // the perf stage's instruments: x/sys/unix for thread masks
	"engine/arm":             {may: []string{"engine/build", "engine/instrument"}, stdOnly: true},
	"engine/determinism":     {may: []string{"engine", "verdict", "internal/*"}, stdOnly: true},                                                              // stages 2 and 4, through the campaign's StageHost
	"engine/fixturestage":    {may: []string{"engine", "engine/arm", "engine/fixtures", "internal/*"}, stdOnly: true},                                        // stage 6, through the campaign's StageHost
	"engine/investigate":     {may: []string{"engine", "engine/profile", "internal/*"}, stdOnly: true},                                                       // stage 7, through the campaign's StageHost
	"engine/instructions":    {may: []string{"engine", "engine/instrument", "report"}, stdOnly: true},                                                        // the instruction count, through the campaign's StageHost
	"engine/perf":            {may: []string{"engine", "engine/instrument", "engine/run", "report", "stats", "verdict", "internal/*"}, stdOnly: true},        // stage 7's timed pairs, through the campaign's StageHost
	"engine/stages":          {may: []string{"engine", "engine/determinism", "engine/instructions", "engine/investigate", "engine/perf"}, stdOnly: true},     // the campaign with its stages: the workbench's Controller
	"engine/replaytest":      {},                                                                                                                             // the fake replay engine tests run: x/sys/unix for the affinity a variant leaks
	"engine/enginetest":      {may: []string{"engine", "engine/determinism", "engine/journal", "engine/replaytest", "internal/*", "verdict"}, stdOnly: true}, // test campaigns for the stage packages' tests
	"engine/build":           {may: []string{"internal/*"}},
	"engine/build/buildtest": {stdOnly: true}, // the fake Rust toolchain tests build with
	"engine/profile":         {stdOnly: true}, // stage 7's profiles and symbol tables, parsed (engine runs perf and nm)
	"engine/matrix":          {may: []string{"engine", "engine/build", "engine/journal", "engine/run", "verdict", "internal/*"}},
	"bisect":                 {may: []string{"driver", "engine", "engine/determinism", "engine/journal", "engine/instructions", "engine/instrument", "engine/perf", "campaignreport", "diffview", "diffview/diagnose", "exceptions", "verdict", "internal/*"}, stdOnly: true}, // a driver: engine/instrument for the instruction judge's count and its tool
	"campaignreport":         {may: []string{"engine", "engine/fixtures", "engine/journal", "engine/matrix", "engine/instrument", "engine/run", "diffview", "diffview/diagnose", "exceptions", "stats", "report", "verdict", "internal/*"}, stdOnly: true, ext: plotPackages},
	"report":                 {may: []string{"verdict", "internal/*"}, stdOnly: true},
	"stats":                  {may: []string{"verdict"}, stdOnly: true},
	"verdict":                {stdOnly: true},
	"internal/*":             {may: []string{"internal/*"}, stdOnly: true},
	"mocker":                 {may: []string{"report", "internal/*"}},
	"e2e":                    {stdOnly: true},                                                                                                                            // the end-to-end tests' harness: build kvparity once, run it with an argv, wait with deadlines
	"e2e/*":                  {may: []string{"engine"}, stdOnly: true},                                                                                                   // the end-to-end suites (chaos, realrow, consistency): tests, through the harness
	"e2e/consistency":        {may: []string{"campaignreport", "diffview/diagnose", "e2e", "engine", "engine/stages", "exceptions", "internal/layout", "ui", "verdict"}}, // the verdict check both halves of the shipped rows share
	"scripts/*":              {stdOnly: true},                                                                                                                            // tools run by hand (go run ./scripts/census): no arrow into the product
}

// arrowWhy is why each arrow of rooms exists, "room -> target": what the room takes from the
// room it imports. An arrow without a reason, or a reason without an arrow, fails
// TestEveryArrowSaysWhy.
var arrowWhy = map[string]string{
	"kvparity -> *": "the commands wire the rooms together: each cmd_*.go parses flags and calls the room that does the work",

	"driver -> engine":          "opens the campaign, runs the driver's stages on it, hands over its events and closes it",
	"driver -> campaignreport":  "a campaign's verdicts are its report's (Assess), or the report written once and read (WriteReport)",
	"driver -> verdict":         "the verdicts a run ends with",
	"driver -> internal/layout": "a campaign without a journal has no report to write",

	"matrix -> driver":          "a row file is loaded as every driver loads one (driver.LoadRow)",
	"matrix -> engine/matrix":   "the scheduler (the rows here or as Slurm jobs, followed through their journals) and the rows' statuses it prints",
	"matrix -> headless":        "a local row is kvparity run's run (headless.Run), with typed options",
	"matrix -> campaignreport":  "the rows' verdicts (Assess), the matrix report's writer and a row's report written again",
	"matrix -> verdict":         "the words of the matrix line and the exit statuses",
	"matrix -> internal/layout": "matrix.md's name in the line that ends the matrix",

	"qualify -> driver":              "the qualification's campaign is run by the shared step (driver.Run); builds print with its BuildPrinter",
	"qualify -> engine":              "the campaign's stage slot and its probe processes' RunStarted",
	"qualify -> engine/qualify":      "stage 3's search, its probes and the frozen row (Freeze)",
	"qualify -> verdict":             "the exit statuses",
	"qualify -> internal/atomicfile": "qualify/result.json and the frozen row are written whole or not at all",
	"qualify -> internal/layout":     "the qualification's file names in the campaign",

	"headless -> driver":               "each run is the shared step (driver.Run); builds print with its BuildPrinter",
	"headless -> engine":               "runs the campaign's stages and prints their events as progress",
	"headless -> campaignreport":       "the verdicts a run prints and exits with are the report's (Assess), as on every surface",
	"headless -> verdict":              "the run's document and exit statuses",
	"ui/qualifyview -> engine":         "a probe process starting is the engine's RunStarted",
	"ui/qualifyview -> engine/qualify": "the probes, their classes and the outcome it draws",
	"ui/qualifyview -> qualify":        "the qualification's progress as the driver publishes it (Progress)",
	"ui/qualifyview -> ui/*":           "keys, the feed, text fitting and the palette",
	"headless -> engine/investigate":   "kvparity investigate runs stage 7 with the campaign as its host and prints its findings",
	"headless -> engine/determinism":   "kvparity run runs stages 2 and 4 with the campaign as their host",
	"headless -> engine/fixturestage":  "kvparity run --stage fixtures runs stage 6 with the campaign as its host",
	"headless -> engine/perf":          "kvparity run --stage perf runs stage 7's timed pairs with the campaign as their host",
	"headless -> engine/stages":        "--watch: the watch mode reruns the determinism stage after a rebuild, as the workbench's does",
	"engine/qualify -> engine":         "the row, and each probe run and journaled by the campaign (its StageHost: RunProbe)",
	"engine/qualify -> report":         "a probe's lifecycle evidence: its pressure count and the rules that make it a flood",
	"headless -> engine/run":           "the CPU sets its progress lines name (FormatCPUList)",

	"ui -> engine":              "the workbench drives an engine Campaign (the Controller seam) and shows its events",
	"ui -> diffview":            "the diff slot names the sides and ids of the diff the pane shows",
	"ui -> stats":               "allowed for the perf figures; the panes under ui/* use it today",
	"ui -> report":              "allowed for lifecycle evidence; the panes under ui/* use it today",
	"ui -> verdict":             "the header's and status line's words and tones",
	"ui -> ui/*":                "the panes, keys, theme and text helpers the workbench composes",
	"ui -> internal/atomicfile": "ui-state.json is written atomically",

	"ui/diffpane -> diffview":          "the diff pane shows a diffview.Diff: its groups, field patterns and the changes a pattern selects",
	"ui/diffpane -> diffview/diagnose": "the diff it opens is diagnosed, and its diagnosis is shown cause by cause",
	"ui/diffpane -> exceptions":        "it drafts, saves and deletes the campaign's exception records and shows what they cover",
	"ui/diffpane -> ui/keys":           "its bindings are the workbench's",
	"ui/diffpane -> ui/pane":           "it embeds the common pane Base (box, focus, styles)",
	"ui/diffpane -> ui/theme":          "the workbench's palette",
	"ui/diffpane -> verdict":           "the semantic verdict of the diff it shows",

	"ui/* -> engine":        "a pane shows engine events and records (runs, stages, artifacts, progress)",
	"ui/* -> engine/matrix": "ui/matrixview shows matrix.RowStatus",
	"ui/* -> bisect":        "ui/bisectview folds the bisect driver's Progress and shows its Result",
	"ui/* -> diffview":      "ui/pressure names the sides of a diff; ui/bisectview shows a bisect's diagnosis",
	"ui/* -> stats":         "ui/perf shows the gate's bounds and battery",
	"ui/* -> report":        "ui/lifecycle and ui/pressure show a run's lifecycle evidence",
	"ui/* -> verdict":       "words and their tones",
	"ui/* -> ui/*":          "a pane embeds ui/pane and uses ui/keys, ui/theme and ui/text",

	"diffview -> report":     "the canonical profile (exclusions, unordered arrays) the diff applies",
	"diffview -> internal/*": "jsonscan tapes, JSON pointers",

	"diffview/diagnose -> diffview":   "the lenses read a diff: its changes, the two documents and the events the changes were placed at",
	"diffview/diagnose -> verdict":    "the verdict word of kvparity diff's semantic section (JSONSemantic)",
	"diffview/diagnose -> internal/*": "jsonscan tapes of the reports it reads, JSON pointers",

	"exceptions -> diffview":   "records are drafted from a diff's changes, name its pointers in its pattern language and judge it",
	"exceptions -> verdict":    "the semantic verdict of a diff against the records",
	"exceptions -> internal/*": "the strict reading of exceptions.jsonl (jsonscan, pointer), the campaign's file names, atomic writes",

	"diffview/difftest -> internal/*": "edits fixtures by JSON pointer",

	"diffview/internal/* -> diffview":          "releasetable reads release replays' pairs of files (ReleaseRun)",
	"diffview/internal/* -> diffview/diagnose": "the corpus scores the diagnosis and releasetable tabulates it",
	"diffview/internal/* -> diffview/difftest": "benchdiff perturbs reports with the fixtures' pointer edits",
	"diffview/internal/* -> report":            "the corpus canonicalises the reports it mutates",
	"diffview/internal/* -> internal/*":        "JSON pointers",

	"engine -> engine/arm":      "each arm's kind: how its table is checked, its artifact built and pinned, the argv of its runs, their outputs and its footprint",
	"engine -> engine/build":    "builds the arms that name a source (stage 1)",
	"engine -> engine/profile":  "parses stage 7's profiles and symbol tables",
	"engine -> engine/fixtures": "stage 6's fixtures (traces, flags, lifecycle assertions): the validated row names them and the fold keeps their results",

	"engine/fixturestage -> engine":          "the campaign as its host (StageHost) and stage 6's vocabulary: its stage, run kind, record and event",
	"engine/fixturestage -> engine/arm":      "a fixture's process (its own trace and args) and the arm kind's label, help argv and canonical report",
	"engine/fixturestage -> engine/fixtures": "the fixtures themselves and their runner (fixtures.Run over the stage's fixtures.Host)",
	"engine/fixturestage -> internal/*":      "the runs folder's name (layout)",

	"engine/investigate -> engine":         "the campaign as its host (StageHost) and the investigation's vocabulary: its stage, run kind, record, document and event",
	"engine/perf -> engine":                "the campaign as its host (StageHost), the perf series as History answers, and stage 7's vocabulary: its records, samples, pairs, result and events",
	"engine/perf -> engine/instrument":     "the measures: a sample's monitor, telemetry and invalidation rules, its timing record, the load preflight, CPU isolation, the footprint gate",
	"engine/perf -> engine/run":            "the runner's affinity refusal at a sample's start (ErrAffinity) is environmental; the CPUs a forced violation moves a sample to",
	"engine/perf -> report":                "a timed sample's work fingerprint, checked against its arm's canonical run's evidence",
	"engine/perf -> stats":                 "the balanced schedule and the paired analysis (Analyze, its battery)",
	"engine/perf -> verdict":               "the stage decides in the verdict words",
	"engine/perf -> internal/*":            "the exports written atomically (atomicfile) and the campaign's file names (layout)",
	"engine/investigate -> engine/profile": "perf's samples and nm's symbol tables parsed and compared",
	"engine/investigate -> internal/*":     "a linked investigation folder refused (atomicfile), perf and nm run in their own process groups (procgroup)",

	"engine/instructions -> engine":            "the campaign as its host (StageHost) and the instrument's vocabulary: its stage, run kind, records, their fold and its event",
	"engine/instructions -> engine/instrument": "callgrind: finding it, its argv over the arm's timed region, reading its count; the decision over the counts",
	"engine/instructions -> report":            "a counted run's work fingerprint, so counts of different work are never one figure",

	"engine/stages -> engine/instructions": "the watch's rerun counts a rebuilt generation's instructions after its determinism stage (AfterDeterminism)",
	"headless -> engine/instructions":      "kvparity run --stage instructions (and all, for a row that declares instructions_runs) counts with the campaign as its host",
	"bisect -> engine/instructions":        "a probe's instruction judge counts with the probe's campaign as its host",

	"engine/stages -> engine":             "the campaign it makes the workbench's Controller",
	"engine/stages -> engine/investigate": "StartInvestigation calls stage 7 with the campaign as its host",
	"engine/stages -> engine/perf":        "StartPerf calls stage 7's timed pairs with the campaign as their host",
	"engine/stages -> engine/determinism": "StartDeterminism, RerunRepetition, AddRepetition and the watch's rerun call stages 2 and 4 with the campaign as their host",

	"engine/determinism -> engine":     "the campaign as its host (StageHost) and the stages' vocabulary: run kinds, records, ArmResult, the fold's judgement",
	"engine/determinism -> verdict":    "the words it decides in",
	"engine/determinism -> internal/*": "the preflight's trace head written inside the campaign only (atomicfile)",

	"engine/enginetest -> engine":             "the test campaigns it opens and the events it drains",
	"engine/enginetest -> engine/replaytest":  "a test binary plays the fake replay its campaigns run",
	"engine/enginetest -> engine/determinism": "RunDeterminism: the determinism stage a later stage's test needs first",
	"engine/enginetest -> engine/journal":     "SemanticExit reads the campaign's journal, refusing damage",
	"engine/enginetest -> internal/*":         "the campaign's file names (layout)",
	"engine/enginetest -> verdict":            "SemanticExit: stage 8's rules over the folded journal",

	"engine/fixtures -> report":   "a fixture's canonical record read as lifecycle evidence (ExtractEvidence)",
	"engine/fixtures -> verdict":  "a fixture's result is decided in the verdict words (PASS, FAIL, BLOCKED)",
	"engine -> engine/journal":    "the campaign's journal file: its appends, the one reader and the follower of another kvparity's appends",
	"engine -> engine/instrument": "the perf stage's instruments: a sample's monitor and invalidation rules, its timing record, the load preflight, CPU isolation, the footprint gate",
	"engine -> engine/run":        "every replay process (pinned, in its own process group, reaped), the campaign lock and its holder, the CPU sets",

	"engine/run -> report":     "the pressure records a running replay announces on its side channel",
	"engine/run -> internal/*": "run folders opened without following links, process groups, the lock file's name",
	"engine -> report":         "canonicalises a run's report and reads its lifecycle evidence and trace window",
	"engine -> stats":          "the paired performance gate's schedule and analysis",
	"engine -> verdict":        "the words every stage decides in",
	"engine -> internal/*":     "atomic files, digests, the campaign's file names, pointers, process groups",

	"engine/instrument -> engine/run": "CPU sets and masks, and a process's parent read from /proc (isolation keeps kvparity's descendants)",
	"engine/instrument -> verdict":    "the footprint gate decides in the verdict words",

	"engine/journal -> internal/*": "the journal opened without following links; a new journal and a torn tail's quarantine written atomically",

	"engine/build -> internal/*": "atomic cache entries, digests, cargo and git run in their own process groups",

	"engine/arm -> engine/build":      "the source-built kinds obtain and build their source with engine/build (its source kinds, Cargo, the cache)",
	"engine/arm -> engine/instrument": "a kind's footprint is in the perf stage's measures: the sizes the footprint gate compares, the region the instruction count reads",

	"engine/matrix -> engine":         "rows, and each row's records folded by engine.History",
	"engine/matrix -> engine/journal": "each row's journal followed as it is written; a job's records appended",
	"engine/matrix -> verdict":        "the rows' verdicts combined into the matrix's",
	"engine/matrix -> engine/run":     "the node's CPUs and NUMA nodes for the placement record; a job's campaign lock",
	"engine/matrix -> engine/build":   "rows' source arms built once, before any job, and the toolchain recorded in the cache the jobs read",
	"engine/matrix -> internal/*":     "atomic files, digests, file names, local rows in their own process groups",

	"bisect -> driver":             "each probe's campaign is run to its report by the shared step (driver.Run); builds print with its BuildPrinter",
	"bisect -> engine":             "rows, probe campaigns, the builds of the probed commits, and the record type and payload decoding of the bisect's journal",
	"bisect -> campaignreport":     "the first bad commit's focused diff is read from its probe campaign's report (Build); the driver sits above the report",
	"bisect -> engine/determinism": "a probe's determinism stage, run with its campaign as the host",
	"bisect -> engine/journal":     "the bisect's own journal (bisect.jsonl) in the campaign journal's format",
	"bisect -> engine/instrument":  "the instruction judge's count (InstructionResult) and finding valgrind before the first probe",
	"bisect -> engine/perf":        "a probe's perf judge runs stage 7's timed pairs with the probe's campaign as their host",
	"bisect -> diffview":           "the first divergence of the first bad commit's focused diff (JSONFirst)",
	"bisect -> diffview/diagnose":  "the causes of the first bad commit's focused diff (Signature)",
	"bisect -> exceptions":         "the exception records copied into every probe are validated first",
	"bisect -> verdict":            "the words a probe is judged by, the document's schema version and the exit codes",
	"bisect -> internal/*":         "the campaign's file names, the copied exception records written atomically",

	"campaignreport -> engine":            "everything the campaign recorded: its records and their history, summary, artifacts",
	"campaignreport -> engine/journal":    "the journal read once for the report, refusing damage",
	"campaignreport -> engine/matrix":     "the matrix report's rows",
	"campaignreport -> engine/fixtures":   "stage 6's fixture results the report lists",
	"campaignreport -> engine/instrument": "the footprint gate's figures the report prints",
	"campaignreport -> engine/run":        "the CPU sets and NUMA nodes the report names; clean takes the campaign lock",
	"campaignreport -> diffview":          "the focused diff's changes, first divergence and field patterns",
	"campaignreport -> diffview/diagnose": "the focused diff's diagnosis, kept in diffs/ as kvparity diff --json writes it",
	"campaignreport -> exceptions":        "the campaign's exception records and their coverage of the semantic verdict",
	"campaignreport -> stats":             "the perf figures and their method",
	"campaignreport -> report":            "lifecycle evidence and product metrics of the kept reports",
	"campaignreport -> verdict":           "Decide: stage 8's one computation of the verdicts",
	"campaignreport -> internal/*":        "atomic writes of the report files, the campaign's file names",

	"report -> verdict":    "allowed; not used today",
	"report -> internal/*": "jsonscan reads reports, pointer names their fields",

	"stats -> verdict": "the gate decides in the verdict words",

	"internal/* -> internal/*": "jsonscan names positions with pointer",

	"e2e/* -> engine": "realrow's NeedBuilds asks which arms of a real row are not built yet (LoadRow, UnbuiltArms)",

	"e2e/consistency -> campaignreport":    "Assess, the report's verdicts, and matrix.json's document",
	"e2e/consistency -> diffview/diagnose": "diff --campaign's JSON document",
	"e2e/consistency -> e2e":               "builds kvparity once and runs it with an argv and a deadline",
	"e2e/consistency -> engine":            "rows, journal record types, and the campaign the workbench opens",
	"e2e/consistency -> engine/stages":     "the Controller the real workbench model drives",
	"e2e/consistency -> exceptions":        "the records that cover fifo-preemption's change",
	"e2e/consistency -> internal/layout":   "the campaign's file names",
	"e2e/consistency -> ui":                "the real workbench model whose header is one of the surfaces",
	"e2e/consistency -> verdict":           "the verdict words every surface says",

	"mocker -> report":     "reads the Mooncake trace and writes JSON strings as the canonical profile does",
	"mocker -> internal/*": "allowed; not used today",
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

// TestEveryArrowSaysWhy: the rooms table is the picture's source of truth, so every arrow in it
// says why it exists.
func TestEveryArrowSaysWhy(t *testing.T) {
	arrows := map[string]bool{}
	for r, rule := range rooms {
		for _, to := range rule.may {
			a := r + " -> " + to
			arrows[a] = true
			if strings.TrimSpace(arrowWhy[a]) == "" {
				t.Errorf("arrow %s has no reason in arrowWhy", a)
			}
		}
	}
	for a := range arrowWhy {
		if !arrows[a] {
			t.Errorf("arrowWhy explains %s, which is not an arrow of rooms", a)
		}
	}
}

// TestImportsFollowTheRooms holds the rooms' arrows: no package imports a room it may not, and the
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
		"engine -> ui (room engine may import engine/arm, engine/build, engine/fixtures, engine/journal, engine/instrument, engine/profile, engine/run, report, stats, verdict, internal/*)",
		`package "newroom" has no room in DESIGN's picture`,
		"verdict -> github.com/BurntSushi/toml (room verdict is standard library only)",
	}
	if !slices.Equal(bad, want) {
		t.Errorf("violations\n%s\nwant\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
}
