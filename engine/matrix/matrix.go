package matrix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"kvparity/engine/journal"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/internal/atomicfile"
	"kvparity/internal/digest"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// Options configure Run.
type Options struct {
	Dir      string   // the matrix folder (on a filesystem every node sees, for Slurm)
	RowFiles []string // row TOML files, one campaign each

	// Slurm, when set, submits one job per row; nil runs the rows locally one after another.
	Slurm      *Slurm
	Partition  string
	SbatchArgs []string // passed to sbatch before the script (override its #SBATCH lines)
	// AnyNode lets a resubmitted row land on another node. By default a row that already ran
	// is resubmitted to the node it ran on (--nodelist): the protocol keeps a row on one node.
	AnyNode bool
	// Resubmit is how many times a row whose job ended environmentally is resubmitted
	// automatically (0: the matrix ends and a later `kvparity matrix` resubmits it).
	Resubmit int

	// RunArgs are extra `kvparity run` arguments for every row (e.g. the row's CPU binding).
	RunArgs []string
	// SemanticOnly: the rows run `--stage determinism`, so a row's overall verdict is its
	// semantic one (as that row's kvparity run exits).
	SemanticOnly bool
	// Assess computes a finished row's verdicts from its campaign directory (the driver passes
	// campaignreport.Assess, the report's own computation, so the matrix can never disagree
	// with a row's report). Nil: the verdicts are read from the row's report.json.
	Assess func(rowDir string) (verdict.Verdicts, error)
	// Report writes the matrix report into dir (the absolute Dir) from the rows' statuses and
	// the matrix's overall verdict; the driver's hook writes campaignreport's matrix.json and
	// matrix.md. It is called after every job end (a matrix can run for hours) and when Run
	// returns. Nil: no report.
	Report func(dir string, rows []RowStatus, overall verdict.Outcome) error
	// RowReport writes a row's campaign report from its campaign directory (the driver passes
	// campaignreport's writer, which the jobs run as `kvparity report`). It is called when a
	// row's instruction counts, counted in a Slurm job of their own (instructions.go), ended
	// after the row's job: the report that job wrote does not have them. Nil: not rewritten.
	RowReport func(rowDir string) error
	// buildCache is where rows' source arms are built, once, before any job (sources.go):
	// on a filesystem every node sees, for Slurm. "" is build.DefaultCache().
	buildCache string
	// executable is the kvparity binary copied into Dir for the jobs ("" = os.Executable()).
	executable string
	// RunLocal runs one row in this process exactly as `kvparity run ROW --campaign DIR/ROW
	// RunArgs...` would, writing its output to out, and returns its exit status.
	RunLocal func(ctx context.Context, rowFile, rowDir string, out io.Writer) int

	Poll     time.Duration // journal polling period (fsnotify wakes sooner); default 1 s
	JobPoll  time.Duration // Slurm state polling period; default 5 s
	OnUpdate func([]RowStatus)
	Log      io.Writer // one line per scheduling event; nil discards
}

// A Result is the matrix at the end of Run.
type Result struct {
	Dir      string // the matrix folder, absolute
	Rows     []RowStatus
	Overall  verdict.Outcome // the worst overall outcome over the rows (Undecided for a row without its verdicts)
	ExitCode int             // verdict.ExitCode of Overall: ExitPass, ExitFail or ExitInconclusive (a row unfinished)
}

// matrixRow is one row's state inside Run (owned by the Run goroutine).
type matrixRow struct {
	row     *engine.Row
	file    string // absolute
	dir     string // DIR/<row>
	fold    *rowFold
	tail    *journal.Tail[engine.Record, *engine.Record]
	jobs    []JobRecord
	resubs  int  // automatic resubmissions made
	running bool // a job is active (slurm) or the local run is in progress
	// instr is the row's instruction counts in a Slurm job of their own (instructions.go); nil
	// when the row's own run counts them (locally) or nothing counts them.
	instr *instrJob

	semanticOnly bool                                   // Options.SemanticOnly
	assess       func(string) (verdict.Verdicts, error) // Options.Assess
	verdicts     *verdict.Verdicts                      // the last assessment of a finished row
}

// Run runs (or resumes, or follows) every row of the matrix and has the matrix report written
// (Options.Report). It returns when every row has ended or ctx is done (Slurm jobs keep running then: a
// later Run follows them again). An error means bad input or an unusable scheduler.
func Run(ctx context.Context, o Options) (*Result, error) {
	m, err := newMatrix(o)
	if err != nil {
		return nil, err
	}
	return m.run(ctx)
}

type matrix struct {
	o    Options
	dir  string
	rows []*matrixRow
	log  io.Writer
}

func newMatrix(o Options) (*matrix, error) {
	if o.Dir == "" {
		return nil, errors.New("matrix: --campaign DIR is required")
	}
	if len(o.RowFiles) == 0 {
		return nil, errors.New("matrix: no row files given")
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if strings.ContainsFunc(dir, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '%' }) {
		return nil, fmt.Errorf("matrix: campaign folder %q: spaces, tabs, newlines and %% cannot appear in Slurm's #SBATCH paths", dir)
	}
	if o.Slurm == nil && o.RunLocal == nil {
		return nil, errors.New("matrix: local mode needs a row runner")
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.JobPoll <= 0 {
		o.JobPoll = 5 * time.Second
	}
	if o.buildCache == "" {
		if o.buildCache, err = build.DefaultCache(); err != nil {
			return nil, err
		}
	}
	if o.buildCache, err = filepath.Abs(o.buildCache); err != nil {
		return nil, err
	}
	m := &matrix{o: o, dir: dir, log: o.Log}
	if m.log == nil {
		m.log = io.Discard
	}
	seen := map[string]string{}
	for _, f := range o.RowFiles {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		row, err := engine.LoadRow(abs)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[row.Name]; dup {
			return nil, fmt.Errorf("%s: name %q is already the name of %s: each row needs its own campaign folder", f, row.Name, prev)
		}
		seen[row.Name] = f
		if row.Name == layout.MatrixBinary {
			return nil, &engine.RowError{File: f, Key: "name", Msg: fmt.Sprintf("%q is the matrix's executable's name; rename the row", row.Name)}
		}
		r := &matrixRow{row: row, file: abs, dir: filepath.Join(dir, row.Name), semanticOnly: o.SemanticOnly, assess: o.Assess}
		r.tail = journal.NewTail[engine.Record](filepath.Join(r.dir, layout.FileJournal))
		mode := "local"
		if o.Slurm != nil {
			mode = "slurm"
		}
		r.fold = newRowFold(RowStatus{Row: row.Name, RowFile: abs, Dir: r.dir, Mode: mode}, row)
		if countsApart(o, row) {
			r.instr = &instrJob{dir: filepath.Join(r.dir, layout.DirInstructions)}
		}
		m.rows = append(m.rows, r)
	}
	return m, nil
}

func (m *matrix) logf(format string, a ...any) {
	fmt.Fprintf(m.log, "matrix: "+format+"\n", a...)
}

func (m *matrix) run(ctx context.Context) (*Result, error) {
	if err := os.MkdirAll(m.dir, 0o755); err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	lock, err := lockMatrix(m.dir, func(s string) { m.logf("%s", s) })
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	var dirs []string
	for _, r := range m.rows {
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			return nil, fmt.Errorf("matrix: %w", err)
		}
		jobs, err := ReadJobs(r.dir)
		if err != nil {
			return nil, fmt.Errorf("matrix: %w", err)
		}
		r.jobs = jobs
		if r.instr != nil {
			if r.instr.jobs, err = ReadJobs(r.instr.dir); err != nil {
				return nil, fmt.Errorf("matrix: %w", err)
			}
		}
		dirs = append(dirs, r.dir)
	}
	if m.o.Slurm != nil {
		if err := m.o.Slurm.Available(ctx); err != nil {
			return nil, err
		}
		if err := m.stageBinary(); err != nil {
			return nil, err
		}
	}
	if err := m.buildSources(ctx); err != nil {
		return nil, err
	}
	m.refresh()

	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	w := newDirWatcher(dirs, m.o.Poll)
	go w.run(wctx)
	if w.notify {
		m.logf("following %d row journals (fsnotify, polling every %s as well)", len(m.rows), w.poll)
	} else {
		m.logf("following %d row journals (polling every %s: fsnotify unavailable here)", len(m.rows), w.poll)
	}

	if m.o.Slurm != nil {
		err = m.runSlurm(ctx, w.wake)
	} else {
		err = m.runLocal(ctx, w.wake)
	}
	m.refresh()
	res := m.result()
	if werr := m.writeReport(res); werr != nil && err == nil {
		err = werr
	}
	return res, err
}

// stageBinary copies the kvparity executable into the matrix folder unless the same bytes are
// already there. Once a row's campaign exists the copy is never replaced: its builtin arms pinned
// it, and a resumed row must run the binary it started with (a different one would re-pin the
// arms and rerun them).
func (m *matrix) stageBinary() error {
	src := m.o.executable
	if src == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("matrix: locating the kvparity executable: %w", err)
		}
		src = exe
	}
	dst := filepath.Join(m.dir, layout.MatrixBinary)
	want, err := digest.File(src)
	if err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	if got, err := digest.File(dst); err == nil {
		if got == want {
			return nil
		}
		for _, r := range m.rows {
			if _, err := os.Stat(filepath.Join(r.dir, layout.FileJournal)); err == nil {
				m.logf("keeping %s (sha256 %s): row %s started with it; this kvparity differs (sha256 %s)", dst, got[:12], r.row.Name, want[:12])
				return nil
			}
		}
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	if err := atomicfile.Update(dst, data, 0o755); err != nil {
		return fmt.Errorf("matrix: copying kvparity into %s: %w", m.dir, err)
	}
	m.logf("copied %s to %s (sha256 %s)", src, dst, want[:12])
	return nil
}

// refresh reads every row's journal, placements and jobs and publishes the statuses when
// anything changed.
func (m *matrix) refresh() {
	changed := false
	for _, r := range m.rows {
		recs, reset, err := r.tail.Read()
		if err != nil {
			m.logf("%s: reading %s: %v", r.row.Name, r.tail.Path(), err)
		}
		if reset {
			r.fold.reset()
			changed = true
		}
		for _, rec := range recs {
			r.fold.add(rec)
			changed = true
		}
		if r.applyJobs() {
			changed = true
		}
		if r.applyInstr() {
			changed = true
		}
	}
	if changed && m.o.OnUpdate != nil {
		m.o.OnUpdate(m.statuses())
	}
}

// applyJobs copies the job and placement view into the row's status; it reports a change.
func (r *matrixRow) applyJobs() bool {
	s := &r.fold.st
	before := fmt.Sprint(s.JobID, s.JobState, s.JobNote, s.Node, s.CPUs, s.NUMASpan, s.Attempts, s.Environmental, s.ExitCode != nil)
	s.Attempts = len(r.jobs)
	s.Environmental = s.Environmental[:0]
	for _, j := range r.jobs {
		if j.Environmental {
			s.Environmental = append(s.Environmental, j.describe())
		}
	}
	if n := len(r.jobs); n > 0 {
		j := r.jobs[n-1]
		s.JobID, s.JobState, s.JobNote, s.ExitCode = j.JobID, j.State, j.Reason, j.ExitCode
		if j.Node != "" {
			s.Node = j.Node
		}
	}
	if ps, err := ReadPlacements(r.dir); err == nil && len(ps) > 0 {
		p := ps[len(ps)-1]
		s.Node, s.CPUs, s.NUMASpan = p.Node, p.AllowedCPUs, p.NUMASpan
	}
	after := fmt.Sprint(s.JobID, s.JobState, s.JobNote, s.Node, s.CPUs, s.NUMASpan, s.Attempts, s.Environmental, s.ExitCode != nil)
	return before != after
}

// status is the row's line: the journal's stage, corrected by what the job says.
func (r *matrixRow) status() RowStatus {
	s := r.fold.status()
	var last *JobRecord
	if n := len(r.jobs); n > 0 {
		last = &r.jobs[n-1]
	}
	switch {
	case s.Stage == RowStageBlocked:
	case last == nil:
	case last.State == JobPending:
		s.Stage = RowStageQueued
	case !last.State.Terminal() && s.Stage == RowStageWaiting:
		s.Stage = RowStageStarting // the job runs; kvparity run has not created the campaign yet
	case last.Verdict():
		s.Stage, s.Running = RowStageDone, ""
	case last.Environmental:
		s.Stage, s.Running = RowStageInterrupted, ""
	case last.State.Terminal():
		s.Stage, s.Running = RowStageFailedJob, ""
		if last.ExitCode != nil && *last.ExitCode == verdict.ExitUsage {
			s.Stage, s.Blocked = RowStageBlocked, "kvparity run refused the row (exit 3): see "+r.outputName(*last)
		}
	}
	s.InstructionsJob = r.instrStatus()
	// A run that ended with a verdict wrote its report, a run whose stage blocked too (exit 2):
	// the row's verdicts are that report's, so the matrix says what report.json says.
	if last != nil && last.Verdict() {
		if r.verdicts == nil {
			r.assessRow()
		}
		s.Verdicts = r.verdicts
	}
	return s
}

// outputName is the file holding an attempt's kvparity run output.
func (r *matrixRow) outputName(j JobRecord) string {
	if j.Mode == "slurm" {
		return filepath.Join(r.dir, "slurm-"+j.JobID+".out")
	}
	return filepath.Join(r.dir, layout.FileLocalRunOutput)
}

func (m *matrix) statuses() []RowStatus {
	out := make([]RowStatus, len(m.rows))
	for i, r := range m.rows {
		out[i] = r.status()
	}
	return out
}

// needsRun reports whether a row has no verdict yet (its last attempt did not end with one).
func (r *matrixRow) needsRun() bool {
	n := len(r.jobs)
	return n == 0 || !r.jobs[n-1].Verdict()
}

// result builds the final statuses, overall outcome and exit code.
func (m *matrix) result() *Result {
	for _, r := range m.rows {
		if !r.needsRun() {
			r.assessRow()
		}
	}
	res := &Result{Dir: m.dir, Rows: m.statuses()}
	res.Overall = matrixOverall(res.Rows)
	res.ExitCode = verdict.ExitCode(res.Overall.Verdict)
	return res
}

// writeReport hands the result to the report hook.
func (m *matrix) writeReport(res *Result) error {
	if m.o.Report == nil {
		return nil
	}
	return m.o.Report(m.dir, res.Rows, res.Overall)
}

// assessRow computes a finished row's verdicts again (after its job ended, and for the final
// report: exception records may have been added since).
func (r *matrixRow) assessRow() {
	if r.assess == nil {
		r.verdicts = readRowVerdicts(r.dir, r.semanticOnly)
		return
	}
	v, err := r.assess(r.dir)
	if err != nil {
		r.verdicts = nil
		return
	}
	if r.semanticOnly {
		v = v.SemanticOnly()
	}
	r.verdicts = &v
}

// readRowVerdicts reads the verdicts of a row's report.json (written when its run ended), nil
// when it has none or it is not of this schema.
func readRowVerdicts(dir string, semanticOnly bool) *verdict.Verdicts {
	var d verdict.Document
	if engine.ReadJSONFile(filepath.Join(dir, layout.FileReportJSON), &d) != nil || d.SchemaVersion != verdict.SchemaVersion {
		return nil
	}
	if semanticOnly {
		d.Verdicts = d.Verdicts.SemanticOnly()
	}
	return &d.Verdicts
}

// matrixOverall is the worst overall outcome over all rows, a row without its report's
// verdicts being Undecided.
func matrixOverall(rows []RowStatus) verdict.Outcome {
	vs := make([]verdict.Verdicts, len(rows))
	for i, s := range rows {
		o := s.Overall()
		o.Reason = s.Row + ": " + o.Reason
		vs[i] = verdict.Verdicts{Overall: o}
	}
	return verdict.Combine(vs)
}

// appendJob records a new attempt and persists the row's jobs.
func (r *matrixRow) appendJob(j JobRecord) error {
	r.jobs = append(r.jobs, j)
	return writeJobs(r.dir, r.jobs)
}

// endJob records how the row's last attempt ended (jobs.json and the row's journal), with the
// placement the attempt recorded, so the journal holds every job's id, node, CPUs and NUMA.
func (m *matrix) endJob(r *matrixRow, j JobRecord) {
	j = withPlacement(r.dir, j)
	r.jobs[len(r.jobs)-1] = j
	if err := writeJobs(r.dir, r.jobs); err != nil {
		m.logf("%s: %v", r.row.Name, err)
	}
	if err := appendJobRecord(r.dir, j); err != nil {
		m.logf("%s: recording the job end in the journal: %v", r.row.Name, err)
	}
	m.logf("%s: %s", r.row.Name, j.describe())
	r.verdicts = nil // assessed again now that its run ended
	// The matrix report is kept current after every job end: a matrix can run for hours.
	m.refresh()
	if err := m.writeReport(m.result()); err != nil {
		m.logf("%v", err)
	}
}
