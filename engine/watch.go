package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"kvparity/engine/build"
	"kvparity/internal/digest"
)

// Watch mode (issue 7): fsnotify on each path arm's source binary and on the row file. A
// rebuild is acted on once the file has stopped changing (size and mtime stable for Settle),
// then the arm is marked stale, re-pinned as a new generation and its repetitions rerun.
// Folders are watched rather than files because builds usually replace a binary by rename.

// A watcher is watch mode on campaign c: its file events, and what it does on a rebuild.
type watcher struct {
	c        *Campaign
	fs       *fsnotify.Watcher
	cancel   context.CancelFunc
	done     chan struct{}
	checkout sync.WaitGroup                  // the candidate's checkout follower (watch_checkout.go)
	rerun    func(ctx context.Context) error // starts the stages on a re-pinned artifact (ctx: the watch's)
}

// Watching reports whether watch mode is on.
func (c *Campaign) Watching() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watch != nil
}

// Watch turns watch mode on or off. rerun starts the stages after a re-pin, ctx being the
// watch's (done when it stops): the caller's (engine/stages starts engine/determinism and then
// engine/instructions' count after it), as the core never starts a stage package.
func (c *Campaign) Watch(on bool, rerun func(ctx context.Context) error) error {
	c.mu.Lock()
	cur := c.watch
	closed := c.closed
	c.mu.Unlock()
	if !on {
		if cur != nil {
			c.mu.Lock()
			c.watch = nil
			c.mu.Unlock()
			// A watch-triggered re-pin may be copying a binary: finish it off the caller's
			// goroutine (Controller methods never block); Close waits for it.
			c.bg.Add(1)
			go func() {
				defer c.bg.Done()
				cur.stop()
			}()
		}
		return nil
	}
	if cur != nil {
		return nil
	}
	if closed {
		return errors.New("campaign is closed")
	}
	if err := c.refusal(); err != nil {
		return err
	}
	targets := map[string]Arm{} // absolute path -> arm ("" for the row file)
	var checkout *build.Spec    // the candidate's checkout, followed instead of its binary
	for _, arm := range []Arm{Baseline, Candidate} {
		spec := c.row.Arm(arm)
		if spec.FromSource() {
			// A built arm's binary lives in the build cache and never changes: the candidate's
			// checkout is what moves; a published crate and the baseline stay as pinned.
			if src, err := buildSpec(spec); err == nil && arm == Candidate && src.Checkout() {
				checkout = &src
			}
			continue
		}
		if kindOf(c.row.Arm(arm)).Repinnable() {
			targets[c.Pinned(arm).Source] = arm
		}
	}
	if c.opts.RowPath != "" {
		if abs, err := filepath.Abs(c.opts.RowPath); err == nil {
			targets[abs] = ""
		}
	}
	var checkoutWatch *fsnotify.Watcher
	if checkout != nil {
		var err error
		if checkoutWatch, err = watchCheckout(context.Background(), *checkout); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		if checkoutWatch != nil {
			checkoutWatch.Close()
		}
		return err
	}
	dirs := map[string]bool{}
	for path := range targets {
		dirs[filepath.Dir(path)] = true
	}
	for d := range dirs {
		if err := fw.Add(d); err != nil {
			fw.Close()
			return err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{c: c, fs: fw, cancel: cancel, done: make(chan struct{}), rerun: rerun}
	c.mu.Lock()
	c.watch = w
	c.mu.Unlock()
	rowSum := "" // taken now, so an edit right after Watch returns is seen as a change
	if c.opts.RowPath != "" {
		rowSum, _ = digest.File(c.opts.RowPath)
	}
	go w.loop(ctx, targets, rowSum)
	if checkout != nil {
		w.checkout.Add(1)
		go func() {
			defer w.checkout.Done()
			w.followCheckout(ctx, checkoutWatch, Candidate, *checkout)
		}()
	}
	return nil
}

func (w *watcher) stop() {
	w.cancel()
	w.fs.Close()
	<-w.done
	w.checkout.Wait()
}

// loop debounces file events per target and acts on each settled change.
func (w *watcher) loop(ctx context.Context, targets map[string]Arm, rowSum string) {
	c := w.c
	defer close(w.done)
	var mu sync.Mutex
	settling := map[string]bool{}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			c.warn("watch: " + err.Error())
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			path := filepath.Clean(ev.Name)
			arm, watched := targets[path]
			if !watched || ev.Op == fsnotify.Chmod {
				continue
			}
			mu.Lock()
			busy := settling[path]
			settling[path] = true
			mu.Unlock()
			if busy {
				continue // the settle loop already follows this file
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok := w.settle(ctx, path)
				mu.Lock()
				delete(settling, path)
				mu.Unlock()
				if !ok {
					return
				}
				if arm == "" {
					sum, err := digest.File(path)
					if err == nil && sum != rowSum {
						c.emit(ArtifactChanged{Path: path, OldSHA256: rowSum, NewSHA256: sum})
						c.warn("row file " + path + " changed: the campaign keeps its frozen row; start a new campaign to use the new one")
						rowSum = sum
					}
					return
				}
				w.onRebuilt(ctx, arm)
			}()
		}
	}
}

// settle waits until path keeps the same size and mtime for the settle window (a build still
// writing it keeps moving them). It returns false when cancelled.
func (w *watcher) settle(ctx context.Context, path string) bool {
	c := w.c
	window := c.opts.Settle
	if window <= 0 {
		window = 300 * time.Millisecond
	}
	last, lastErr := os.Stat(path)
	stableSince := time.Now()
	tick := time.NewTicker(window / 5)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
		st, err := os.Stat(path)
		same := err == nil && lastErr == nil && st.Size() == last.Size() && st.ModTime().Equal(last.ModTime())
		if !same {
			last, lastErr, stableSince = st, err, time.Now()
			continue
		}
		if time.Since(stableSince) >= window {
			return true
		}
	}
}

// onRebuilt marks an arm stale, stops the running stage, re-pins and reruns the stages.
func (w *watcher) onRebuilt(ctx context.Context, arm Arm) {
	c := w.c
	p := c.Pinned(arm)
	sum, err := digest.File(p.Source)
	if err != nil || sum == p.SHA256 {
		return // gone mid-build, or rebuilt to the same bytes
	}
	c.StopStage()
	c.Wait()
	if ctx.Err() != nil {
		return
	}
	if _, err := c.arms.checkSource(arm, true); err != nil {
		campaignHost{c}.Block(StageDeterminism, err.Error())
		return
	}
	if err := w.rerun(ctx); err != nil {
		c.warn("watch: " + err.Error())
	}
}
