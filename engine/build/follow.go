package build

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"kvparity/internal/procgroup"
)

// What a source names can move without the row changing: a ref gets commits, a working tree
// gets saves. Watch mode follows the folders where that shows (Follow), and a matrix, which
// builds once and runs hours later, refuses such a source (Spec.Moves).

// Follow names the folders whose changes can move what s names: a checkout's git metadata
// for a ref, the tree's folders for a working tree. A source that cannot move is an error
// saying what to name instead.
func Follow(ctx context.Context, s Spec) ([]string, error) {
	k, err := kindOf(s)
	if err != nil {
		return nil, err
	}
	return k.follow(ctx, s)
}

// Moves says what s names can change without the row changing (a branch, HEAD, a working
// tree); a published version and a full commit cannot.
func (s Spec) Moves() bool {
	k, ok := kinds[s.Kind]
	return ok && k.moves(s)
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
	cmd := procgroup.Command(ctx, "git", "-C", repo, "check-ignore", "-z", "--stdin")
	cmd.Env = append(os.Environ(), gitEnv...)
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

// Ignores says a changed path cannot change s's build: inside .git's objects or logs, a target
// folder, or an editor's swap or backup file. Watch mode drops such events.
func Ignores(s Spec, p string) bool {
	repo := s.Repo
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
