package engine

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"

	"kvparity/engine/build"
)

// Watch mode on a candidate built from a checkout (the desk loop): a commit (HEAD or the
// named branch moving) for a git: arm, a saved file for a worktree: arm, rebuilds the
// candidate in its lineage (only what the change touched recompiles), pins it as the next
// generation, marks the older one stale and reruns the determinism stage; the diff follows
// the new repetitions. The baseline is never rebuilt: it is the reference. Events are
// debounced (a save or a commit touches several files); target/ and ignored paths are not
// watched. BuildProgress events say what the build is doing.

// checkoutSettle is the quiet time after the last event before the checkout is read.
const checkoutSettle = 500 * time.Millisecond

// watchCheckout starts watching the candidate's checkout (before Watch returns, so no
// save made after it is missed); followCheckout then acts on its events until ctx ends.
func watchCheckout(ctx context.Context, src build.Spec) (*fsnotify.Watcher, error) {
	dirs, err := build.Follow(ctx, src)
	if err != nil {
		return nil, err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if err := fw.Add(d); err != nil {
			fw.Close()
			return nil, fmt.Errorf("watching %s: %w", d, err)
		}
	}
	return fw, nil
}

// followCheckout acts on the checkout's events until ctx ends. It looks once at the start
// too: an edit saved before watch mode was turned on is built at once.
func (w *watcher) followCheckout(ctx context.Context, fw *fsnotify.Watcher, arm Arm, src build.Spec) {
	c := w.c
	defer fw.Close()
	settle := c.opts.Settle
	if settle <= 0 {
		settle = checkoutSettle
	}
	timer := time.NewTimer(settle)
	for {
		select {
		case <-ctx.Done():
			return
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			c.warn("watch: " + err.Error())
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod || build.Ignores(src, ev.Name) {
				continue
			}
			if ev.Op&fsnotify.Create != 0 {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					fw.Add(ev.Name) // a new folder (of the tree, or under refs/)
				}
			}
			timer.Reset(settle)
		case <-timer.C:
			w.checkoutChanged(ctx, arm, src)
		}
	}
}

// checkoutChanged rebuilds and re-pins arm when its checkout now names another revision.
func (w *watcher) checkoutChanged(ctx context.Context, arm Arm, src build.Spec) {
	c := w.c
	old := c.Pinned(arm)
	now, err := build.Resolve(ctx, src)
	if err != nil {
		c.warn("watch: " + err.Error())
		return
	}
	if b := old.Build; b != nil && b.Commit == now.Commit && b.SnapshotSHA256 == now.Snapshot {
		return // the same revision (a commit elsewhere, a save that changed nothing)
	}
	spec, err := buildSpec(c.row.Arm(arm))
	if err != nil {
		c.warn("watch: " + err.Error())
		return
	}
	spec.Commit, spec.Snapshot = now.Commit, now.Snapshot
	c.StopStage()
	c.Wait()
	info, err := build.Build(ctx, spec, build.Options{Cache: c.opts.BuildCache, Progress: func(p build.Progress) {
		c.emit(BuildProgress{Arm: arm, Progress: p})
	}})
	if ctx.Err() != nil {
		return // watch mode ended: the pinned generation stays
	}
	if err != nil {
		campaignHost{c}.Block(StageDeterminism, fmt.Sprintf("rebuilding the %s from %s: %v", arm, spec, err))
		return
	}
	if info.BinarySHA256 == old.SHA256 {
		return // rebuilt to the same bytes (a comment, a file the bench does not compile)
	}
	if _, err := c.journal.Append(Record{Type: RecStale, Arm: arm, Gen: old.Gen, OldSHA: old.SHA256, NewSHA: info.BinarySHA256,
		Reason: fmt.Sprintf("%s moved to %s: results of generation %d are stale", spec, info.Revision(), old.Gen)}); err != nil {
		c.warn("watch: " + err.Error())
		return
	}
	c.arms.markStale(arm)
	np, err := pinBuilt(c.dir, arm, old.Gen+1, c.row.Arm(arm), info)
	if err == nil {
		err = c.arms.recordPin(np)
	}
	if err != nil {
		campaignHost{c}.Block(StageDeterminism, fmt.Sprintf("pinning the rebuilt %s: %v", arm, err))
		return
	}
	c.emit(ArtifactChanged{Arm: arm, Path: info.Binary, OldSHA256: old.SHA256, NewSHA256: np.SHA256, Repinned: true, OldGen: old.Gen, NewGen: np.Gen})
	if err := w.rerun(ctx); err != nil {
		c.warn("watch: " + err.Error())
	}
}
