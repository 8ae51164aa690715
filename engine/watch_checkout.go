package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// watchCheckout starts watching the candidate's checkout (before SetWatch returns, so no
// save made after it is missed); followCheckout then acts on its events until ctx ends.
func (c *Campaign) watchCheckout(ctx context.Context, src build.Spec) (*fsnotify.Watcher, error) {
	var dirs []string
	var err error
	switch src.Kind {
	case "git":
		if src.Ref == src.Commit {
			return nil, fmt.Errorf("the candidate names commit %.12s, which never moves: name a branch or HEAD (git:%s@HEAD) or the working tree (worktree:%s) to follow the checkout", src.Commit, src.Repo, src.Repo)
		}
		dirs, err = gitMetaDirs(src.Repo)
	case "worktree":
		dirs, err = worktreeDirs(ctx, src.Repo)
	}
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
func (c *Campaign) followCheckout(ctx context.Context, fw *fsnotify.Watcher, arm Arm, src build.Spec) {
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
			if ev.Op == fsnotify.Chmod || ignoredPath(src.Repo, ev.Name) {
				continue
			}
			if src.Kind == "worktree" && ev.Op&fsnotify.Create != 0 {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					fw.Add(ev.Name) // a new folder of the tree
				}
			}
			timer.Reset(settle)
		case <-timer.C:
			c.checkoutChanged(ctx, arm, src)
		}
	}
}

// checkoutChanged rebuilds and re-pins arm when its checkout now names another revision.
func (c *Campaign) checkoutChanged(ctx context.Context, arm Arm, src build.Spec) {
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
	c.waitStage()
	info, err := build.Build(ctx, spec, build.Options{Cache: c.opts.BuildCache, Progress: func(p build.Progress) {
		c.Emit(BuildProgress{Arm: arm, Progress: p})
	}})
	if ctx.Err() != nil {
		return // watch mode ended: the pinned generation stays
	}
	if err != nil {
		c.block(StageDeterminism, fmt.Sprintf("rebuilding the %s from %s: %v", arm, spec, err))
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
	c.markStale(arm)
	np, err := pinBuilt(c.dir, arm, old.Gen+1, c.row.Arm(arm), info)
	if err == nil {
		err = c.recordPin(np)
	}
	if err != nil {
		c.block(StageDeterminism, fmt.Sprintf("pinning the rebuilt %s: %v", arm, err))
		return
	}
	c.Emit(ArtifactChanged{Arm: arm, Path: info.Binary, OldSHA256: old.SHA256, NewSHA256: np.SHA256, Repinned: true})
	if err := c.StartDeterminism(); err != nil {
		c.warn("watch: " + err.Error())
	}
}

// gitMetaDirs are the folders of a checkout's git metadata whose changes move a ref: the git
// folder itself (HEAD, packed-refs) and every folder under refs/heads and refs/tags.
func gitMetaDirs(repo string) ([]string, error) {
	gitDir := filepath.Join(repo, ".git")
	if b, err := os.ReadFile(gitDir); err == nil { // a linked worktree: ".git" is a file naming the folder
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			if !filepath.IsAbs(d) {
				d = filepath.Join(repo, d)
			}
			gitDir = d
		}
	}
	dirs := []string{gitDir}
	for _, sub := range []string{"refs/heads", "refs/tags"} {
		filepath.WalkDir(filepath.Join(gitDir, sub), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
	}
	if _, err := os.Stat(gitDir); err != nil {
		return nil, fmt.Errorf("checkout %s: no git folder to follow: %w", repo, err)
	}
	return dirs, nil
}

// worktreeDirs are the checkout's folders a save can land in: all but .git, cargo's target
// folders and what the checkout ignores.
func worktreeDirs(ctx context.Context, repo string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != repo && (d.Name() == ".git" || d.Name() == "target") {
			return filepath.SkipDir
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checkout %s: %w", repo, err)
	}
	return dropIgnored(ctx, repo, dirs), nil
}

// dropIgnored removes the folders git ignores (git check-ignore; on any error, none).
func dropIgnored(ctx context.Context, repo string, dirs []string) []string {
	var in strings.Builder
	for _, d := range dirs[1:] {
		rel, _ := filepath.Rel(repo, d)
		in.WriteString(filepath.ToSlash(rel) + "/\x00")
	}
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "check-ignore", "-z", "--stdin")
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	cmd.Stdin = strings.NewReader(in.String())
	out, _ := cmd.Output() // exit 1: nothing is ignored
	ignored := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			ignored[filepath.Join(repo, filepath.FromSlash(strings.TrimSuffix(p, "/")))] = true
		}
	}
	var keep []string
	for _, d := range dirs {
		skip := false
		for i := d; i != repo && i != "/" && i != "."; i = filepath.Dir(i) {
			if ignored[i] {
				skip = true
				break
			}
		}
		if !skip {
			keep = append(keep, d)
		}
	}
	return keep
}

// ignoredPath says an event's path is one no build reads: inside .git's objects, a target
// folder, or an editor's swap or backup file.
func ignoredPath(repo, p string) bool {
	rel, err := filepath.Rel(repo, p)
	if err != nil {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, part := range parts {
		if part == "target" || (i > 0 && parts[0] == ".git" && (part == "objects" || part == "logs")) {
			return true
		}
	}
	base := parts[len(parts)-1]
	return strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") || strings.HasSuffix(base, ".swx") ||
		strings.HasPrefix(base, ".#") || base == "index.lock" || base == "4913"
}
