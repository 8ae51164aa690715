package build

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// worktreeKind is a checkout's working tree as it is now: tracked files as edited, untracked
// files that are not ignored, deletions applied. It is snapshotted by content (never by
// writing into the tree or its .git), pinned by the digest of that content, and recorded with
// the commit it is based on and its diff against that commit, so a reviewer sees exactly
// what was measured.
type worktreeKind struct{}

func (worktreeKind) checkout() bool { return true }

func (worktreeKind) name(s Spec) string     { return "worktree:" + s.Repo }
func (worktreeKind) identity(s Spec) string { return "worktree:" + s.Repo + "#" + s.Snapshot }
func (worktreeKind) revision(s Spec) string { return "worktree of " + s.Repo }
func (worktreeKind) moves(Spec) bool        { return true }
func (worktreeKind) follow(ctx context.Context, s Spec) ([]string, error) {
	return worktreeDirs(ctx, s.Repo)
}

func (worktreeKind) parse(whole, rest string) (Spec, error) {
	if rest == "" || strings.Contains(rest, "@") {
		return Spec{}, fmt.Errorf("%q: a working tree is worktree:PATH (the checkout as it is on disk; for a commit use git:PATH@REF)", whole)
	}
	return Spec{Kind: "worktree", Repo: rest}, nil
}

func (worktreeKind) resolve(ctx context.Context, s *Spec) error {
	snap, err := snapshotWorktree(ctx, s.Repo)
	if err != nil {
		return err
	}
	s.Commit, s.Snapshot = snap.base, snap.digest
	return nil
}

func (worktreeKind) fetch(ctx context.Context, s Spec, work, dst string, info *Info) error {
	snap, err := snapshotWorktree(ctx, s.Repo)
	if err != nil {
		return err
	}
	if snap.digest != s.Snapshot {
		return fmt.Errorf("worktree %s changed while kvparity was building it (snapshot %.12s, now %.12s): build again once the edit is saved", s.Repo, s.Snapshot, snap.digest)
	}
	info.Commit, info.SnapshotSHA256 = snap.base, snap.digest
	for _, f := range snap.files {
		if err := f.copyTo(s.Repo, dst); err != nil {
			return err
		}
	}
	diff, err := snap.diffAgainstBase(ctx, s.Repo)
	if err != nil {
		return err
	}
	info.worktreeDiff = diff
	return nil
}

// A worktreeSnapshot is the content of a working tree: every file git would commit with
// `git add -A`, by path, mode and SHA-256.
type worktreeSnapshot struct {
	base   string // HEAD's commit ("" in a repository without one)
	files  []snapFile
	digest string
}

type snapFile struct {
	path   string // slash-separated, relative to the checkout
	mode   fs.FileMode
	link   string // a symlink's target
	sha256 string
	blob   string // git's object id of the content (to compare with the base commit)
}

// snapshotWorktree reads repo's working tree. It lists files with git ls-files (tracked and
// untracked-but-not-ignored), reads each one, and refuses what cannot be built from a copy.
func snapshotWorktree(ctx context.Context, repo string) (worktreeSnapshot, error) {
	if err := checkoutDir(repo); err != nil {
		return worktreeSnapshot{}, err
	}
	var snap worktreeSnapshot
	if out, err := run(ctx, repo, gitEnv, "git", "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil {
		snap.base = strings.TrimSpace(string(out))
	}
	out, err := run(ctx, repo, gitEnv, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
	if err != nil {
		return snap, fmt.Errorf("worktree %s: listing its files: %w", repo, err)
	}
	seen := map[string]bool{}
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		full := filepath.Join(repo, filepath.FromSlash(p))
		st, err := os.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree: the snapshot has it deleted
		}
		if err != nil {
			return snap, fmt.Errorf("worktree %s: %w", repo, err)
		}
		f := snapFile{path: p, mode: st.Mode()}
		var content []byte
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			if f.link, err = os.Readlink(full); err != nil {
				return snap, fmt.Errorf("worktree %s: %w", repo, err)
			}
			content = []byte(f.link)
		case st.IsDir():
			return snap, fmt.Errorf("worktree %s: %s is a submodule: kvparity builds a working tree without submodules (name the submodule's own checkout instead)", repo, p)
		case st.Mode().IsRegular():
			if content, err = os.ReadFile(full); err != nil {
				return snap, fmt.Errorf("worktree %s: %w", repo, err)
			}
		default:
			return snap, fmt.Errorf("worktree %s: %s is not a regular file, symlink or folder", repo, p)
		}
		sum := sha256.Sum256(content)
		f.sha256 = hex.EncodeToString(sum[:])
		f.blob = gitBlobID(content)
		snap.files = append(snap.files, f)
	}
	slices.SortFunc(snap.files, func(a, b snapFile) int { return strings.Compare(a.path, b.path) })
	h := sha256.New()
	for _, f := range snap.files {
		fmt.Fprintf(h, "%s %s %s\n", fileKind(f.mode), f.sha256, f.path)
	}
	snap.digest = hex.EncodeToString(h.Sum(nil))
	return snap, nil
}

// fileKind is what git records of a mode: a link, an executable or a plain file.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "120000"
	case m&0o111 != 0:
		return "100755"
	}
	return "100644"
}

// gitBlobID is git's SHA-1 object id of content (what `git hash-object` prints, without
// writing the object).
func gitBlobID(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// copyTo copies the file into dst, checking it still has the content the snapshot digested.
func (f snapFile) copyTo(repo, dst string) error {
	target := filepath.Join(dst, filepath.FromSlash(f.path))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	src := filepath.Join(repo, filepath.FromSlash(f.path))
	if f.link != "" {
		return os.Symlink(f.link, target)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("worktree %s: %w", repo, err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.sha256 {
		return fmt.Errorf("worktree %s: %s changed while kvparity was copying it: build again once the edit is saved", repo, f.path)
	}
	return os.WriteFile(target, b, f.mode.Perm()|0o600)
}

// diffAgainstBase is the working tree's change against its base commit as a unified diff:
// what a reviewer needs to know was measured. Binary files are named, not printed.
func (snap worktreeSnapshot) diffAgainstBase(ctx context.Context, repo string) (string, error) {
	base := map[string]string{} // path → blob id
	if snap.base != "" {
		out, err := run(ctx, repo, gitEnv, "git", "ls-tree", "-r", "-z", "--full-tree", snap.base)
		if err != nil {
			return "", fmt.Errorf("worktree %s: reading its base commit %s: %w", repo, snap.base, err)
		}
		for _, e := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			meta, path, ok := strings.Cut(e, "\t")
			if fields := strings.Fields(meta); ok && len(fields) == 3 && fields[1] == "blob" {
				base[path] = fields[2]
			}
		}
	}
	blob := func(id string) (string, error) {
		out, err := run(ctx, repo, gitEnv, "git", "cat-file", "blob", id)
		return string(out), err
	}
	var changed []applied
	var binary []string
	now := map[string]bool{}
	for _, f := range snap.files {
		now[f.path] = true
		id, had := base[f.path]
		if had && id == f.blob {
			continue
		}
		before := ""
		if had {
			var err error
			if before, err = blob(id); err != nil {
				return "", err
			}
		}
		after := f.link
		if f.link == "" {
			b, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(f.path)))
			if err != nil {
				return "", err
			}
			after = string(b)
		}
		if isBinary(before) || isBinary(after) {
			binary = append(binary, f.path)
			continue
		}
		changed = append(changed, applied{file: f.path, before: before, after: after})
	}
	for path, id := range base {
		if !now[path] {
			before, err := blob(id)
			if err != nil {
				return "", err
			}
			changed = append(changed, applied{file: path, before: before})
		}
	}
	slices.SortFunc(changed, func(a, b applied) int { return strings.Compare(a.file, b.file) })
	var b strings.Builder
	fmt.Fprintf(&b, "# kvparity worktree snapshot sha256 %s\n# base commit %s\n", snap.digest, orNone(snap.base))
	slices.Sort(binary)
	for _, p := range binary {
		fmt.Fprintf(&b, "# binary file changed: %s\n", p)
	}
	b.WriteString(unifiedPatch("", changed))
	return b.String(), nil
}

// isBinary is git's rule of thumb: a NUL byte, or text that is not UTF-8.
func isBinary(s string) bool {
	return bytes.IndexByte([]byte(s), 0) >= 0 || !utf8.ValidString(s)
}
