package campaignreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"kvparity/engine"
	"kvparity/engine/run"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// Protocol stage 9: delete temporary full reports, trace windows, copied binaries and run
// outputs once their evidence is recorded; keep full outputs for unresolved mismatches and
// performance investigations. Clean never follows a symbolic link and never removes anything
// outside the campaign directory or anything kvparity did not write.

// An entry is one file Clean removed or kept.
type entry struct {
	Path  string `json:"path"` // campaign-relative, slash-separated
	Bytes int64  `json:"bytes"`
	Why   string `json:"why"`
}

// A Plan is what Clean removed (or, in a dry run, would remove) and kept, and why.
type Plan struct {
	Dir     string  `json:"dir"`
	DryRun  bool    `json:"dry_run"`
	Removed []entry `json:"removed"`
	Kept    []entry `json:"kept"`
	Freed   int64   `json:"freed_bytes"`
	// Unresolved says why outputs beyond the evidence were kept (empty when nothing is open).
	Unresolved []string `json:"unresolved"`
	// ReportRewritten: report.md/json were written again after the removal so that they say
	// which files are gone.
	ReportRewritten bool `json:"report_rewritten"`
}

// Reasons Clean gives, one per kind of file.
const (
	whyEvidence    = "campaign evidence the protocol retains"
	whyRunOutput   = "run output whose digest, timing and status are recorded in the journal"
	whyEvFile      = "lifecycle evidence of a repetition (read by the report)"
	whyMetricsFile = "product metrics of a repetition (read by the report's summary and plots)"
	whyBinary      = "copied binary: its SHA-256, size and .text size are recorded"
	whyWindow      = "trace window: its SHA-256 and slice are recorded"
	whyPatch       = "copied determinism patch: its SHA-256 is recorded"
	whyForeign     = "not written by kvparity: left alone"
	whyLink        = "symbolic link: left alone (never followed)"
)

// Clean applies stage 9 to the campaign in dir (dryRun: only says what it would do). It refuses
// when report.json is missing or no longer matches the campaign, since only recorded evidence
// may justify a deletion. After a real cleanup it writes the report again.
func Clean(dir string, dryRun bool) (Plan, error) {
	// DIR itself may be a link to the campaign; everything below it is never followed.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if !dryRun {
		// Never while another kvparity writes the campaign: it may be running the binaries.
		release, err := run.LockCampaign(dir)
		if err != nil {
			return Plan{}, fmt.Errorf("clean: %w", err)
		}
		defer release()
	}
	c, err := load(dir)
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{Dir: c.dir, DryRun: dryRun, Removed: []entry{}, Kept: []entry{}, Unresolved: []string{}}
	r, err := c.checkReportCurrent()
	if err != nil {
		return plan, err
	}
	pol := c.policy(r)
	plan.Unresolved = pol.unresolved
	var remove []string
	err = filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(c.dir, p)
		if err != nil || rel == "." {
			return err
		}
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("clean: %s is outside the campaign %s", p, c.dir) // never: WalkDir stays inside
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{Path: filepath.ToSlash(rel), Bytes: info.Size()}
		del := false
		if d.Type()&fs.ModeSymlink != 0 {
			e.Why = whyLink
		} else if !d.Type().IsRegular() {
			e.Why = whyForeign
		} else {
			del, e.Why = pol.decide(e.Path)
		}
		if del {
			plan.Removed = append(plan.Removed, e)
			plan.Freed += e.Bytes
			remove = append(remove, p)
		} else {
			plan.Kept = append(plan.Kept, e)
		}
		return nil
	})
	if err != nil {
		return plan, fmt.Errorf("clean %s: %w", c.dir, err)
	}
	if dryRun {
		return plan, nil
	}
	for _, p := range remove {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return plan, fmt.Errorf("clean: %w", err)
		}
	}
	removeEmptyDirs(c.dir, remove)
	if len(remove) > 0 {
		if _, err := WriteReport(c.dir); err != nil {
			return plan, fmt.Errorf("clean: rewriting the report after the removal: %w", err)
		}
		plan.ReportRewritten = true
	}
	return plan, nil
}

// checkReportCurrent builds the report and requires report.json to hold exactly those bytes.
func (c *campaign) checkReportCurrent() (*Report, error) {
	r, _, err := c.assemble()
	if err != nil {
		return nil, err
	}
	want, err := encodeJSON(r)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(c.dir, layout.FileReportJSON)
	have, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist: write the report first (kvparity report %s); cleanup only deletes what a written report has recorded", path, c.dir)
	case err != nil:
		return nil, err
	case !bytes.Equal(have, want):
		var old struct {
			Journal journalInfo `json:"journal"`
		}
		json.Unmarshal(have, &old)
		return nil, fmt.Errorf("%s is out of date (it describes journal seq %d, the journal is at seq %d, or the exception records or outputs changed since): write it again first (kvparity report %s)",
			path, old.Journal.LastSeq, r.Journal.LastSeq, c.dir)
	}
	return r, nil
}

// removeEmptyDirs removes the folders the removal emptied (deepest first), never dir itself.
func removeEmptyDirs(dir string, removed []string) {
	seen := map[string]bool{}
	var dirs []string
	for _, p := range removed {
		for d := filepath.Dir(p); d != dir && strings.HasPrefix(d, dir+string(filepath.Separator)); d = filepath.Dir(d) {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	slices.SortFunc(dirs, func(a, b string) int {
		return strings.Count(b, string(filepath.Separator)) - strings.Count(a, string(filepath.Separator))
	})
	for _, d := range dirs {
		os.Remove(d) // fails, harmlessly, when something is still inside
	}
}

// policy is what the campaign's state lets Clean delete.
type policy struct {
	keepRuns   map[engine.RunID]string // run -> why its outputs stay
	keepPins   string                  // why binaries and the trace window stay ("" = delete them)
	knownRuns  map[engine.RunID]bool   // runs with a recorded end
	unresolved []string
}

func (c *campaign) policy(r *Report) *policy {
	p := &policy{keepRuns: map[engine.RunID]string{}, knownRuns: map[engine.RunID]bool{}}
	ends := map[engine.RunID]engine.RecordedRun{}
	for _, run := range c.hist.Runs() {
		if run.End != nil {
			ends[run.End.Run] = run
			p.knownRuns[run.End.Run] = true
		}
	}
	for id, run := range ends {
		if run.Failed() {
			p.keepRuns[id] = "a failed run: its outputs are the evidence of the failure"
		}
	}
	for _, a := range r.Arms {
		if a.Verdict != verdict.Unstable {
			continue
		}
		why := fmt.Sprintf("unresolved mismatch: %s is UNSTABLE; every output of its repetitions is kept for the diagnosis", a.Arm)
		p.unresolved = append(p.unresolved, why)
		for _, ri := range a.Runs {
			p.keepRuns[ri.Run] = why
		}
	}
	s := r.Semantic
	if s.Verdict == verdict.Fail && s.Diff != nil && s.UncoveredN > 0 {
		why := fmt.Sprintf("unresolved mismatch: %d differing pointers are covered by no exception record; both full reports are kept", s.UncoveredN)
		p.unresolved = append(p.unresolved, why)
		for _, side := range []string{s.Diff.A, s.Diff.B} {
			if id, ok := runOfReport(side); ok {
				p.keepRuns[id] = why
			}
		}
	}
	if r.Coverage.Verdict == verdict.Fail {
		p.unresolved = append(p.unresolved, "missing lifecycle evidence: "+r.Coverage.Reason)
	}
	if r.Performance.Verdict == verdict.Fail {
		why := "performance investigation: the gate failed; sample outputs are kept for profiling"
		p.unresolved = append(p.unresolved, why)
		if res := r.Performance.Result; res != nil {
			for _, smp := range res.Samples {
				p.keepRuns[smp.Run] = why
			}
		}
	}
	switch {
	case len(p.unresolved) > 0:
		p.keepPins = "kept while something is unresolved: the campaign must stay resumable (" + p.unresolved[0] + ")"
	case !r.Semantic.Verdict.Decided() || r.Performance.Status == "in progress" || r.Performance.Status == "blocked":
		// A stage that blocked before its result (a changed copy, an unfit node) is resumed
		// once its cause is fixed: it needs its pins as much as one still running.
		p.keepPins = "kept: the campaign is not finished and must stay resumable"
	}
	return p
}

// runOfReport maps runs/<kind>/<name>/report.json to its run id.
func runOfReport(rel string) (engine.RunID, bool) {
	rest, ok := strings.CutPrefix(rel, layout.DirRuns+"/")
	if !ok {
		return "", false
	}
	return engine.RunID(path.Dir(rest)), true
}

// decide says whether one campaign file goes, and why.
func (p *policy) decide(rel string) (remove bool, why string) {
	switch rel {
	case layout.FileJournal, layout.FileRow, layout.FileHost, layout.FileArtifacts, layout.FileSchedule, layout.FileExceptions, layout.FileReportMD, layout.FileReportJSON, layout.FileSummaryMD, layout.FileTraceSums, layout.FileLock:
		return false, whyEvidence
	case layout.FileExceptionsLock:
		return false, "the exception records' lock (held only while a record is saved; it names the last saver)"
	case layout.FileWindow:
		if p.keepPins != "" {
			return false, p.keepPins
		}
		return true, whyWindow
	}
	if base := path.Base(rel); strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".tmp") && strings.Contains(base, "-") {
		// internal/atomicfile's temporary name (".<file>-<random>.tmp"): a write kvparity was
		// killed in; the file it was replacing is intact.
		return true, "an unfinished write by kvparity (killed mid-write); the file it replaced is intact"
	}
	if strings.HasPrefix(rel, layout.FileJournal+".torn-") {
		return false, "a torn journal tail kvparity moved aside on resume (never acknowledged): kept for audit"
	}
	top, rest, _ := strings.Cut(rel, "/")
	if top == path.Dir(engine.FileInvestigation) || top == layout.DirRuns && strings.HasPrefix(rest, "investigate/") {
		return false, "a performance investigation's profile (stage 7): kept with its findings"
	}
	switch top {
	case layout.DirInstructions:
		return false, "the instruction counts' own campaign (kvparity matrix on Slurm counts them there): left alone; clean it as a campaign of its own (kvparity clean " + layout.DirInstructions + ")"
	case layout.DirDiffs:
		return false, "focused diff of a mismatch (stage 4 retains it)"
	case layout.DirPlots:
		return false, "the report's plots (written with it from the journal)"
	case layout.DirPerf:
		return false, "performance exports: every sample, ratio and bound"
	case layout.DirArtifacts:
		if p.keepPins != "" {
			return false, p.keepPins
		}
		return true, whyBinary
	case layout.DirPatch:
		if p.keepPins != "" {
			return false, p.keepPins
		}
		return true, whyPatch
	case layout.DirRuns:
		id := engine.RunID(path.Dir(rest))
		if strings.Count(rest, "/") != 2 {
			return false, whyForeign
		}
		if why, ok := p.keepRuns[id]; ok {
			return false, why
		}
		if !p.knownRuns[id] {
			return false, "no end is recorded for this run (in flight or interrupted): nothing proves its evidence is recorded"
		}
		if path.Base(rest) == layout.FileRunEvidence {
			return false, whyEvFile
		}
		if path.Base(rest) == layout.FileRunMetrics {
			return false, whyMetricsFile
		}
		return true, whyRunOutput
	}
	return false, whyForeign
}
