package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"kvparity/engine/journal"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	armkind "kvparity/engine/arm"
	"kvparity/engine/run"
	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
)

// Options configure a campaign beyond its row.
type Options struct {
	// Dir is the campaign directory; "" means ./campaigns/<row>-<UTC timestamp>.
	Dir string
	// RowPath is the row file the campaign was frozen from ("" for a built-in row); watch mode
	// watches it.
	RowPath string
	// BuiltinPath is the kvparity executable that "builtin" arms pin; "" means os.Executable().
	BuiltinPath string
	// CPUs are the CPUs replays may be pinned to; nil means every CPU this process may use.
	CPUs []int
	// Warn receives warnings (a dropped torn journal tail, a different host on resume...).
	Warn func(string)
	// PollInterval is how often running replays' stderr and progress are read (default 100 ms).
	PollInterval time.Duration
	// Settle is how long a watched file must keep its size and mtime before it counts as
	// rebuilt (default 300 ms).
	Settle time.Duration
	// Perf tunes the performance stage (test hooks; zero value = the protocol).
	Perf PerfOptions
	// BuildCache is where arms built from source are kept ("" = build.DefaultCache()).
	BuildCache string
	// BuildProgress receives the progress of building arms from source (creation only).
	BuildProgress func(BuildProgress)
	// Context bounds campaign creation (source builds); nil = context.Background().
	Context context.Context
	// Follow opens a campaign another kvparity is writing read-only and follows its journal
	// live (the workbench's open), instead of refusing it with a *HeldError.
	Follow bool
	// Diagnose names, in words, the likely entropy source of two canonical reports of one
	// revision that differ (paths of the two files): the diff's diagnosis ("id / uuid drift").
	// The engine cannot diff reports itself (diffview sits above it); the command that opens the
	// campaign passes it. An UNSTABLE arm's reason quotes it; nil leaves the cause to the diff.
	Diagnose func(a, b string) (string, error)
}

// A Campaign is one row's campaign directory and the engine working in it: it coordinates (the
// one running stage, the journal, the runner, the events, the arms' pins and the watch), and
// its stages reach it through Host. engine/stages makes it the workbench's Controller; the
// headless CLI and the workbench drive the same methods.
type Campaign struct {
	row     *Row
	dir     string
	opts    Options
	journal *campaignJournal
	ev      *emitter
	runner  *run.Runner
	host    HostInfo
	trace   TraceChecksums
	cpus    []int
	arms    *arms // their pins and added repetitions (arms.go)

	mu     sync.Mutex
	stage  *stageRun
	watch  *watcher
	closed bool
	// readOnly refuses every stage, repetition, watch and append when set: errCleaned (stage 9
	// removed the binaries and trace window) or a *HeldError (another kvparity writes the
	// campaign and this one follows it).
	readOnly error
	lock     *run.Lock // the campaign lock, held while the campaign is open for writing
	follow   *follower // following another kvparity's writes (readOnly is its *run.HeldError)
	stageWG  sync.WaitGroup
	bg       sync.WaitGroup // watchers being stopped
}

type stageRun struct {
	stage  Stage
	cancel context.CancelCauseFunc // the cause is recorded in the stage's end record
	done   chan struct{}
}

// recAddRep records an AddRepetition (Arm, Index = the arm's new repetition count).
const recAddRep RecordType = "add_repetition"

// OpenOrCreate resumes the campaign in opts.Dir when it has a journal (refusing one frozen from
// a different row), and otherwise creates it: freezes the row, records the host, pins the
// trace window and both artifacts.
func OpenOrCreate(row *Row, opts Options) (*Campaign, error) {
	if opts.Dir != "" {
		if _, err := os.Stat(filepath.Join(opts.Dir, layout.FileJournal)); err == nil {
			c, err := Open(opts.Dir, opts)
			if err != nil {
				return nil, err
			}
			if row != nil {
				want, _ := row.Encode()
				got, _ := c.row.Encode()
				if !bytes.Equal(want, got) {
					c.Close()
					return nil, fmt.Errorf("campaign %s was frozen from a different row (%s); start a new campaign with another --campaign", opts.Dir, filepath.Join(opts.Dir, layout.FileRow))
				}
			}
			return c, nil
		}
	}
	return Create(row, opts)
}

// Create makes a new campaign directory for row, in a new or empty folder. A folder left
// without a journal by a creation killed halfway (it carries kvparity's creation marker) is
// created again; any other folder without a journal is refused (claimFolder).
func Create(row *Row, opts Options) (*Campaign, error) {
	if row == nil {
		return nil, errors.New("campaign: no row")
	}
	if err := checkCPUs(opts.CPUs); err != nil {
		return nil, err
	}
	if opts.Dir == "" {
		opts.Dir = filepath.Join("campaigns", row.Name+"-"+time.Now().UTC().Format("20060102T150405Z"))
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	opts.Dir = dir
	if _, err := os.Stat(filepath.Join(dir, layout.FileJournal)); err == nil {
		return nil, fmt.Errorf("campaign %s already exists (it has a journal): resume it instead", dir)
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	lockPath := filepath.Join(dir, layout.FileLock)
	_, lockErr := os.Lstat(lockPath)
	lock, err := run.TryLock(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, layout.FileJournal)); err == nil {
		lock.Release() // another kvparity created it while this one looked
		return nil, fmt.Errorf("campaign %s already exists (it has a journal): resume it instead", dir)
	}
	if err := claimFolder(dir); err != nil {
		lock.Release()
		if os.IsNotExist(lockErr) {
			os.Remove(lockPath) // a refused folder is left as it was found
		}
		return nil, err
	}
	c, err := create(row, dir, opts)
	if err != nil {
		lock.Release()
		if os.IsNotExist(statErr) {
			os.RemoveAll(dir) // this call made the folder: leave no half campaign behind
		}
		return nil, err
	}
	c.lock = lock
	return c, nil
}

// creationFiles are the entries a campaign creation writes before its journal: a folder marked
// as being created by kvparity (layout.FileCreating) may hold these and nothing else.
var creationFiles = []string{layout.FileCreating, layout.FileRow, layout.FileHost, layout.FileArtifacts,
	layout.DirArtifacts, layout.DirPatch, "trace"}

// matrixFiles are what the matrix writes into a row's folder before the row's kvparity run
// creates the campaign there (its jobs, placements, batch script and output): a folder holding
// only these is the matrix's, not a user's. layout.DirInstructions is the campaign of the row's
// instruction counts, whose Slurm job the matrix submits beside the row's (it may start first).
var matrixFiles = []string{layout.FileJobs, layout.FilePlacement, layout.FileJobScript, layout.FileLocalRunOutput, layout.DirInstructions}

func matrixFile(n string) bool {
	return slices.Contains(matrixFiles, n) || strings.HasPrefix(n, "slurm-") && strings.HasSuffix(n, ".out")
}

// claimFolder makes sure a campaign is created only in an empty folder, or in one a killed
// creation left behind (marked with layout.FileCreating and holding only creation files): a
// folder without a journal that holds anything else (a user's own row.toml, the run folders
// of a campaign whose journal was deleted) is refused, naming what is in it, never built over.
func claimFolder(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("campaign: %w", err)
	}
	var names []string
	marked := false
	foreign := false
	for _, e := range entries {
		n := e.Name()
		if n == layout.FileLock {
			continue // the creator's own lock, not content
		}
		names = append(names, n)
		switch {
		case n == layout.FileCreating:
			marked = true
		case slices.Contains(creationFiles, n), strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".tmp"):
		case matrixFile(n):
			continue // not counted: the folder is as empty as the matrix left it
		default:
			foreign = true
		}
	}
	own := 0
	for _, n := range names {
		// A temporary file (kvparity's atomic writes, the matrix's jobs.json among them) is
		// in flight, not content.
		if !matrixFile(n) && !(strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".tmp")) {
			own++
		}
	}
	if own > 0 && (!marked || foreign) {
		shown := names
		if len(shown) > 8 {
			shown = append(slices.Clone(shown[:8]), fmt.Sprintf("… %d more", len(names)-8))
		}
		return fmt.Errorf("campaign folder %s has no journal and is not empty (it holds %s): kvparity creates a campaign only in a new or empty folder and never writes over existing files; give another --campaign, or empty this one if nothing in it is needed",
			dir, strings.Join(shown, ", "))
	}
	if marked {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, layout.FileCreating), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("campaign: %w", err)
	}
	return f.Close()
}

func create(row *Row, dir string, opts Options) (*Campaign, error) {
	c := newCampaign(row, dir, opts)
	frozen, err := row.Encode()
	if err != nil {
		return nil, fmt.Errorf("campaign: freezing the row: %w", err)
	}
	if err := atomicfile.Update(filepath.Join(dir, layout.FileRow), frozen, 0o644); err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	if err := WriteJSONFile(filepath.Join(dir, layout.FileHost), c.host); err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if c.trace, err = pinTrace(ctx, dir, row.Trace, opts.BuildCache); err != nil {
		return nil, fmt.Errorf("%s: %w", rowFileLabel(opts.RowPath), err)
	}
	patch, err := pinPatch(dir, rowFileLabel(opts.RowPath), row.Determinism)
	if err != nil {
		return nil, err
	}
	// Stage 1 for arms named by source: build (or find in the cache), then pin like any binary.
	builds, err := BuildArms(ctx, row, opts.BuildCache, opts.BuildProgress)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rowFileLabel(opts.RowPath), err)
	}
	if len(builds) > 0 {
		if patch != nil {
			return nil, &RowError{File: rowFileLabel(opts.RowPath), Table: "determinism", Key: "patch",
				Msg: "arms built from source carry kvparity's timing extension as their determinism patch; remove the row's patch"}
		}
		if patch, err = extensionPatch(dir, builds); err != nil {
			return nil, fmt.Errorf("campaign: %w", err)
		}
	}
	for _, arm := range []Arm{Baseline, Candidate} {
		var p PinnedArtifact
		if info, ok := builds[arm]; ok {
			p, err = pinBuilt(dir, arm, 1, row.Arm(arm), info)
		} else {
			p, err = pinArtifact(dir, arm, 1, row.Arm(arm), c.arms.source(arm))
		}
		if err != nil {
			return nil, err
		}
		c.arms.add(p)
	}
	if err := WriteJSONFile(filepath.Join(dir, layout.FileArtifacts), artifactsFile{Artifacts: c.arms.all()}); err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	// The journal comes last, created whole with its founding records: a campaign exists once
	// its journal does.
	founding := []Record{frozenRowRecord(row.Name, frozen)}
	if patch != nil {
		founding = append(founding, patchRecord(patch))
	}
	for _, p := range c.arms.all() {
		founding = append(founding, Record{Type: RecPinned, Arm: p.Arm, Gen: p.Gen, Artifact: ptrInfo(p, dir)})
	}
	if err := journal.Create(filepath.Join(dir, layout.FileJournal), founding); err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	os.Remove(filepath.Join(dir, layout.FileCreating)) // the campaign exists: the folder is no longer being created
	if c.journal, err = journal.Open[Record](filepath.Join(dir, layout.FileJournal), c.warn); err != nil {
		return nil, err
	}
	c.ev = newEmitter()
	c.emit(HistoryReplayed{})
	return c, nil
}

// Open resumes an existing campaign: the frozen row, trace window and pinned artifacts are
// checked against their recorded checksums, and the journal's history is published as events
// (so a UI rebuilds its state from events alone). A source binary that changed since it was
// pinned is announced (ArtifactChanged) and its arm's results are marked stale.
func Open(dir string, opts Options) (*Campaign, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := checkCPUs(opts.CPUs); err != nil {
		return nil, err
	}
	opts.Dir = dir
	// The lock first: nothing of the campaign is read for writing, not even a torn tail
	// dropped, while another kvparity may be appending to it.
	lock, lockErr := run.TryLock(dir)
	var held *run.HeldError
	var unwritable *run.UnwritableError
	var readOnly error // why this open writes nothing
	switch {
	case errors.As(lockErr, &held) && opts.Follow:
		readOnly = held
	case errors.As(lockErr, &unwritable) && opts.Follow:
		// Nobody can write it, so nobody needs keeping out: it is shown read-only, unlocked.
		readOnly = &unwritableError{unwritable}
	case errors.As(lockErr, &unwritable):
		return nil, fmt.Errorf("%w: nothing can be run or recorded there; 'kvparity open %s' shows it read-only", unwritable, dir)
	case lockErr != nil:
		return nil, lockErr
	}
	c, err := open(dir, opts, readOnly)
	if err != nil {
		lock.Release()
		return nil, err
	}
	c.lock = lock
	return c, nil
}

// open resumes the campaign in dir; readOnly is why it writes nothing when it is opened
// read-only: the other kvparity's lock (this one follows it) or a folder nobody can write.
func open(dir string, opts Options, readOnly error) (*Campaign, error) {
	row, err := LoadRow(filepath.Join(dir, layout.FileRow))
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	c := newCampaign(row, dir, opts)
	var frozenHost HostInfo
	if err := ReadJSONFile(filepath.Join(dir, layout.FileHost), &frozenHost); err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	if readOnly == nil && (frozenHost.CPUModel != c.host.CPUModel || frozenHost.Cores != c.host.Cores || frozenHost.Hostname != c.host.Hostname) {
		c.warn(fmt.Sprintf("campaign %s was frozen on %s (%s, %d cores) and resumes on %s (%s, %d cores): keep one row on one node",
			dir, frozenHost.Hostname, frozenHost.CPUModel, frozenHost.Cores, c.host.Hostname, c.host.CPUModel, c.host.Cores))
	}
	c.host = frozenHost
	if err := ReadJSONFile(filepath.Join(dir, filepath.FromSlash(layout.FileTraceSums)), &c.trace); err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	journalPath := filepath.Join(dir, layout.FileJournal)
	recs, _, err := journal.Read[Record](journalPath, journal.RefuseDamage)
	if err != nil {
		return nil, err
	}
	if err := CheckFrozenRow(dir, recs); err != nil {
		return nil, err
	}
	switch h := FoldJournal(recs, row); {
	case readOnly != nil:
		// Following (the other kvparity owns every write, the drop of a torn tail included),
		// or nobody can write the folder.
		c.readOnly = readOnly
		c.journal = readOnlyJournal(journalPath, recs, readOnly)
	case isCleaned(dir, c.trace, h.Current):
		// Read only: nothing may be appended, not even the drop of a torn tail.
		c.readOnly = errCleaned
		c.journal = readOnlyJournal(journalPath, recs, fmt.Errorf("campaign %s: %w", dir, errCleaned))
		c.warn(fmt.Sprintf("campaign %s: %v; opened read-only (its history replays, no stage can start)", dir, errCleaned))
	default:
		if err := verifyTrace(dir, c.trace); err != nil {
			return nil, fmt.Errorf("campaign %s: %w", dir, err)
		}
		if c.journal, err = journal.Open[Record](journalPath, c.warn); err != nil {
			return nil, err
		}
		os.Remove(filepath.Join(dir, layout.FileCreating)) // a creation killed after its journal was written
	}
	h := FoldJournal(c.journal.Records(), row)
	if c.readOnly == nil {
		run.KillStrays(dir, strays(h.openRuns()), c.warn)
		undoRecordedIsolation(h, c.warn)
	}
	c.arms.restore(h.pins, h.Current, h.Added)
	if len(h.Current) != 2 {
		c.journal.Close()
		return nil, fmt.Errorf("campaign %s: journal records no pinned artifact for both arms", dir)
	}
	if c.readOnly == nil {
		if err := c.arms.verify(); err != nil {
			c.journal.Close()
			return nil, fmt.Errorf("campaign %s: %w", dir, err)
		}
	}
	c.ev = newEmitter()
	c.replayHistory()
	if c.readOnly == nil {
		for _, arm := range []Arm{Baseline, Candidate} {
			c.arms.checkSource(arm, false)
		}
	}
	var held *run.HeldError
	if errors.As(readOnly, &held) {
		c.follow = followWriter(c, held.Holder)
	}
	return c, nil
}

// checkCPUs refuses CPUs this process may not run on: pinning a replay there would fail on
// every run.
func checkCPUs(cpus []int) error {
	allowed := run.AllowedCPUs()
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			return fmt.Errorf("CPU %d is not available to this process (allowed: %s)", c, run.FormatCPUList(allowed))
		}
	}
	return nil
}

func newCampaign(row *Row, dir string, opts Options) *Campaign {
	c := &Campaign{row: row, dir: dir, opts: opts, host: ReadHost(), cpus: opts.CPUs}
	c.arms = &arms{dir: dir, row: row, builtin: opts.BuiltinPath, trace: &c.trace, emit: c.emit,
		record:  func(r Record) error { _, err := c.journal.Append(r); return err },
		current: map[Arm]PinnedArtifact{}, extra: map[Arm]int{}}
	if len(c.cpus) == 0 {
		c.cpus = run.AllowedCPUs()
	}
	c.runner = &run.Runner{Observer: runEvents(c.emit), PollInterval: opts.PollInterval}
	return c
}

func (c *Campaign) warn(msg string) {
	if c.opts.Warn != nil {
		c.opts.Warn(msg)
	}
}

func ptrInfo(p PinnedArtifact, dir string) *ArtifactInfo {
	info := p.info(dir)
	info.Path = p.Path // relative in the journal: the campaign can move
	return &info
}

// pinFromRecord rebuilds a pin from its journal record.
func pinFromRecord(rec Record) PinnedArtifact {
	a := rec.Artifact
	p := PinnedArtifact{Arm: rec.Arm, Gen: rec.Gen, Revision: a.Revision, Source: a.Source, Builtin: armkind.EmbeddedSource(a.Source),
		Path: a.Path, Variant: a.Variant, Features: a.Features, SHA256: a.SHA256, Size: a.Size, TextSize: a.TextSize, ShippedSize: a.ShippedSize, PinnedAt: rec.At,
		Build: a.Build, SourceDiff: a.SourceDiff}
	return p
}

// Pinned returns an arm's current pinned artifact.
func (c *Campaign) Pinned(arm Arm) PinnedArtifact { return c.arms.pinned(arm) }

// Row returns the frozen row.
func (c *Campaign) Row() *Row { return c.row }

// CPUs returns the CPUs replays may be pinned to.
func (c *Campaign) CPUs() []int { return append([]int(nil), c.cpus...) }

// emit publishes an event on the campaign's channel (never blocks).
func (c *Campaign) emit(ev Event) { c.ev.Emit(ev) }

// Events is the campaign's single event channel; it closes after Close.
func (c *Campaign) Events() <-chan Event { return c.ev.out }

// Dir is the campaign directory.
func (c *Campaign) Dir() string { return c.dir }

// Info describes the row, window, artifacts and host.
func (c *Campaign) Info() CampaignInfo {
	r := c.row
	info := CampaignInfo{
		Row: r.Name, Dir: c.dir,
		TraceSpec:   fmt.Sprintf("%s[%d:%d]", r.Trace.Path, r.Trace.Offset, r.Trace.Offset+r.Trace.Count),
		TraceSHA256: c.trace.compared(c.row),
		Window:      fmt.Sprintf("offset %d · %d requests", r.Trace.Offset, r.Trace.Count),
		Host:        c.host, Artifacts: map[Arm]ArtifactInfo{},
		Repetitions: r.Determinism.Repetitions, Pairs: r.Perf.Pairs, Warmups: r.Perf.WarmupsPerArm,
		Threshold: r.Perf.Threshold, TimingField: r.Perf.TimingField, timingProxy: r.Perf.TimingProxy, DeskBuild: r.DeskBuild(),
		exclusions: append([]string(nil), r.Canonical.Exclusions...), args: append([]string(nil), r.Replay.Args...),
	}
	if err := c.refusal(); err != nil {
		info.ReadOnly = err.Error()
	}
	var unwritable *run.UnwritableError
	if errors.As(c.refusal(), &unwritable) {
		info.Unwritable = unwritable.Error()
	}
	for _, arm := range []Arm{Baseline, Candidate} {
		info.Artifacts[arm] = c.Pinned(arm).info(c.dir)
	}
	return info
}

// RepetitionID names a determinism run: det/<arm>-<rep>[-g<gen>][-a<attempt>].
func RepetitionID(arm Arm, rep, gen, attempt int) RunID {
	id := "det/" + string(arm) + "-" + strconv.Itoa(rep)
	if gen > 1 {
		id += "-g" + strconv.Itoa(gen)
	}
	if attempt > 1 {
		id += "-a" + strconv.Itoa(attempt)
	}
	return RunID(id)
}

// Running reports whether a stage runs.
func (c *Campaign) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stage != nil
}

// StopStage cancels the running stage (its children are killed by process group) and returns
// at once; StageStopped follows on the channel.
func (c *Campaign) StopStage() { c.Interrupt(errStoppedByUser) }

var (
	errStoppedByUser = errors.New("stopped by the user")
	errClosed        = errors.New("kvparity closed the campaign while the stage ran")
)

// Interrupt stops the running stage like StopStage, recording why in the stage's end record
// (a signal: "hangup signal received").
func (c *Campaign) Interrupt(why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stage != nil {
		c.stage.cancel(why)
	}
}

// Wait blocks until the running stage (if any) has finished; the headless CLI uses it.
func (c *Campaign) Wait() {
	c.mu.Lock()
	s := c.stage
	c.mu.Unlock()
	if s != nil {
		<-s.done
	}
}

// WaitContext is Wait until ctx is done; then it stops the running stage with ctx's cause
// (Interrupt: finished runs are kept and the campaign resumes from them), waits for it to end
// and returns that cause. Headless runs and bisect probes wait this way on a signal.
func (c *Campaign) WaitContext(ctx context.Context) error {
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		c.Interrupt(context.Cause(ctx))
		<-done
		return context.Cause(ctx)
	}
}

// startStage runs fn on a goroutine as the one running stage.
func (c *Campaign) startStage(st Stage, fn func(ctx context.Context) (cancelled bool)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("campaign is closed")
	}
	if c.readOnly != nil {
		return c.readOnly
	}
	if c.stage != nil {
		return fmt.Errorf("the %s stage is running; stop it first", c.stage.stage)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &stageRun{stage: st, cancel: cancel, done: make(chan struct{})}
	c.stage = s
	c.stageWG.Add(1)
	go func() {
		defer c.stageWG.Done()
		started := StageStarted{Stage: st}
		if st == StageDeterminism {
			started.Repetitions = map[Arm]int{Baseline: c.arms.repetitions(Baseline), Candidate: c.arms.repetitions(Candidate)}
		}
		c.journal.Append(Record{Type: recStageStart, Stage: st})
		c.emit(started)
		cancelled := fn(ctx)
		cancel(nil)
		end := Record{Type: RecStageEnd, Stage: st}
		if cancelled {
			end.Reason = "stopped"
			if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				end.Reason = cause.Error()
			}
		}
		c.journal.Append(end) // after a write error the journal refuses it, and says so elsewhere
		c.mu.Lock()
		c.stage = nil
		c.mu.Unlock()
		c.emit(StageStopped{Stage: st, Cancelled: cancelled, Reason: end.Reason})
		close(s.done)
	}()
	return nil
}

// Close stops the stage and the watcher, closes the journal and then the event channel.
func (c *Campaign) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.stage != nil {
		c.stage.cancel(errClosed)
	}
	w := c.watch
	c.watch = nil
	c.mu.Unlock()
	if w != nil {
		w.stop()
	}
	c.follow.stop()
	c.bg.Wait()
	c.stageWG.Wait()
	err := c.journal.Close()
	c.lock.Release() // after the last append: the next writer starts from a whole journal
	c.ev.close()
	return err
}

func rowFileLabel(path string) string {
	if path == "" {
		return "row"
	}
	return path
}

// strays are the runs whose run_start has no run_end (History.openRuns), as engine/run kills
// what survives of them.
func strays(open []Record) []run.Stray {
	out := make([]run.Stray, len(open))
	for i, r := range open {
		out[i] = run.Stray{Run: string(r.Run), PGID: r.PGID, PID: r.PID, Owner: r.Owner}
	}
	return out
}
