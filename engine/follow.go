package engine

import (
	"fmt"
	"kvparity/engine/journal"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"kvparity/engine/run"
	"kvparity/internal/layout"
)

// Following a campaign another kvparity writes. The workbench's open on a campaign whose lock
// is held (a headless perf stage, a CI run) opens it read-only and follows it: every record
// the writer appends is folded and published as the same events the writer's own engine
// publishes, and each running replay's stderr and progress file are tailed as the runner
// tails them, so every pane shows the stage as if this process ran it. Nothing is written.
// fsnotify says when the journal grows; a slow poll covers filesystems that do not tell.

// FollowedWriter: this campaign is read-only because Holder writes it; Ended is set once
// that kvparity has gone (its lock is free or its process is dead), with what the follower saw
// of its end (follow_ended.go): Released says it emptied its lock file, as a writer closing
// the campaign does (otherwise its process is gone while the file still names it), and
// Unfinished lists the runs it started that have no end record. A follower stops none of
// them: the next writer's resume does.
type FollowedWriter struct {
	Holder     run.Holder
	Ended      bool
	Released   bool
	Unfinished []UnfinishedRun
}

func (FollowedWriter) event() {}

// A writerEndedError refuses stages on a follower whose writer has ended: this process opened
// the campaign read-only, and only a fresh open (which takes the lock and checks for strays)
// may write it.
type writerEndedError struct {
	dir    string
	holder run.Holder
}

func (e *writerEndedError) Error() string {
	return fmt.Sprintf("campaign %s was opened read-only to follow kvparity pid %d, which has ended: quit and open it again to run stages here", e.dir, e.holder.PID)
}

// followPoll is how often the journal and the running replays' files are read without a
// file event (running replays' progress files change continually; they are polled).
const followPoll = 250 * time.Millisecond

// A follower follows the journal another kvparity appends to, for its campaign c.
type follower struct {
	c             *Campaign
	done, stopped chan struct{}
}

// stop ends the follower and waits for it (nil-safe: most campaigns follow nothing).
func (f *follower) stop() {
	if f == nil {
		return
	}
	select {
	case <-f.done:
	default:
		close(f.done)
	}
	<-f.stopped
}

// followWriter publishes the writer holding c and follows c's journal from where the replay
// ended, until the follower is stopped.
func followWriter(c *Campaign, holder run.Holder) *follower {
	f := &follower{c: c, done: make(chan struct{}), stopped: make(chan struct{})}
	path := filepath.Join(c.dir, layout.FileJournal)
	tail := journal.NewTail[Record](path)
	h := FoldJournal(c.journal.Records(), c.row) // what the replay published; the tail rereads it and skips it by seq
	c.emit(FollowedWriter{Holder: holder})
	if st, ok := h.openStage(); ok {
		c.emit(f.stageStarted(st.stage))
	}
	go f.loop(tail, h, holder)
	return f
}

func (f *follower) loop(tail *journal.Tail[Record, *Record], h *History, holder run.Holder) {
	c := f.c
	defer close(f.stopped)
	w, err := fsnotify.NewWatcher()
	var events chan fsnotify.Event
	var watchErrs chan error
	if err == nil {
		defer w.Close()
		if w.Add(c.dir) == nil {
			events, watchErrs = w.Events, w.Errors
		}
	}
	tick := time.NewTicker(followPoll)
	defer tick.Stop()
	runs := map[RunID]*run.Tailer{} // the replays running now, tailed like the runner's own
	for _, r := range h.openRuns() {
		runs[r.Run] = f.runTailer(r)
	}
	ended := false
	for {
		select {
		case <-f.done:
			return
		case ev := <-events:
			if !strings.HasSuffix(ev.Name, layout.FileJournal) && !strings.HasSuffix(ev.Name, layout.FileLock) {
				continue
			}
		case <-watchErrs: // an overflowed event queue: the poll catches up
		case <-tick.C:
		}
		f.records(tail, h, runs)
		for _, t := range runs {
			t.Poll(false)
		}
		now := run.ReadHolder(c.dir)
		switch gone := now.PID == 0 || !now.Alive(); {
		case gone && !ended:
			ended = true
			// What it appended between the read above and its end is all there is: read it
			// before saying which of its stages and runs have no end record.
			f.records(tail, h, runs)
			if st, ok := h.openStage(); ok {
				// Its kvparity died mid-stage (a SIGKILL records no end): the stage is not running.
				c.emit(StageStopped{Stage: st.stage, Cancelled: true, WriterGone: true})
			}
			runs = map[RunID]*run.Tailer{}
			c.mu.Lock()
			c.readOnly = &writerEndedError{dir: c.dir, holder: holder}
			c.mu.Unlock()
			c.emit(FollowedWriter{Holder: holder, Ended: true, Released: now.PID == 0, Unfinished: f.unfinishedRuns(h, holder)})
		case !gone && (ended || now.PID != holder.PID || now.Start != holder.Start):
			ended, holder = false, now // another kvparity took the campaign over
			c.mu.Lock()
			c.readOnly = run.NewHeldError(c.dir, holder)
			c.mu.Unlock()
			c.emit(FollowedWriter{Holder: holder})
		}
	}
}

// records folds and publishes the records the writer appended since the last read, and
// starts or ends the tailing of its runs accordingly.
func (f *follower) records(tail *journal.Tail[Record, *Record], h *History, runs map[RunID]*run.Tailer) {
	c := f.c
	recs, _, _ := tail.Read()
	for _, r := range recs {
		if r.Seq <= c.journal.LastSeq() {
			continue // the writer truncated a torn tail on resume: the tail reread the file
		}
		c.journal.Followed(r)
		h.add(r).replay(c, h)
		switch r.Type {
		case RecPinned:
			// The writer re-pinned a rebuilt arm (watch mode): this process's pins follow.
			if r.Artifact != nil {
				old := c.Pinned(r.Arm)
				p := pinFromRecord(r)
				c.arms.add(p)
				c.emit(ArtifactChanged{Arm: r.Arm, Path: p.Source, OldSHA256: old.SHA256, NewSHA256: p.SHA256, Repinned: true, OldGen: old.Gen, NewGen: p.Gen})
			}
		case RecRunStart:
			runs[r.Run] = f.runTailer(r)
		case RecRunEnd:
			if t := runs[r.Run]; t != nil {
				t.Poll(true)
				delete(runs, r.Run)
			}
			if r.Kind == KindWarmup && r.Error == "" {
				// The writer announces a finished warmup live; its journal has only the run's end.
				c.emit(SampleDone{Run: r.Run, Arm: r.Arm, Warmup: true, Index: r.Index, Attempt: r.Attempt, Ms: r.ElapsedMs})
			}
		case recStageStart:
			c.emit(f.stageStarted(r.Stage))
		case RecStageEnd:
			c.emit(StageStopped{Stage: r.Stage, Cancelled: r.Reason != "", Reason: r.Reason})
		}
	}
}

// stageStarted is the event of a stage starting, with the repetitions it runs.
func (f *follower) stageStarted(st Stage) StageStarted {
	c := f.c
	ev := StageStarted{Stage: st}
	if st == StageDeterminism {
		ev.Repetitions = map[Arm]int{Baseline: c.arms.repetitions(Baseline), Candidate: c.arms.repetitions(Candidate)}
	}
	return ev
}

// runTailer tails a followed run's stderr and progress file as the runner does.
func (f *follower) runTailer(start Record) *run.Tailer {
	c := f.c
	dir := filepath.Join(c.dir, layout.DirRuns, filepath.FromSlash(string(start.Run)))
	progress := kindOf(c.row.Arm(start.Arm)).Outputs(dir).Progress
	return run.NewTailer(string(start.Run), runEvents(c.emit), filepath.Join(dir, "stderr"), progress, start.At)
}
