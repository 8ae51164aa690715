package build

import (
	"cmp"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
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
	snap, err := snapshotWorktree(ctx, s.Repo, "")
	if err != nil {
		return err
	}
	s.Commit, s.Snapshot = snap.base, snap.digest
	return nil
}

func (worktreeKind) fetch(ctx context.Context, s Spec, work, dst string, info *Info) error {
	// One pass: every file streams through its hashes into dst, and the digest of what was
	// copied must be the one resolve took, so the build is exactly the snapshot it is named by.
	snap, err := snapshotWorktree(ctx, s.Repo, dst)
	if err != nil {
		return err
	}
	if snap.digest != s.Snapshot {
		return fmt.Errorf("worktree %s changed while kvparity was building it (snapshot %.12s, now %.12s): build again once the edit is saved", s.Repo, s.Snapshot, snap.digest)
	}
	info.Commit, info.SnapshotSHA256 = snap.base, snap.digest
	diff, err := snap.diffAgainstBase(ctx, s.Repo, dst)
	if err != nil {
		return err
	}
	info.worktreeDiff = diff
	return nil
}

// A snapshot is read on every save of the desk loop (once to name it, once more to hash and
// copy it into the build), so it takes only what source can be: a stray model, core dump or
// captured trace in the checkout would otherwise cost every rebuild its size in time and in
// the cache. Dynamo's sources are small: the checkout scripts/dynamo-checkout.sh makes (1.5.1's
// crates where Dynamo's tree has them) holds 297 files, 5.4 MB in all, the largest the bench
// crate's trace (187 KB), then Cargo.lock (150 KB) and source files under 150 KB. On the
// 2-core machine these were measured on (loaded), the two passes run at about 600 and 240 MB/s.
const (
	// maxSnapshotFile is the largest file a snapshot takes: 350 times the fixture's largest,
	// room for test data such as a real model's tokenizer.json, and under half a second of a
	// save; a model's weights (gigabytes) are refused.
	maxSnapshotFile = 64 << 20
	// maxSnapshotTotal is the most a snapshot takes in all: 400 times the fixture, room for a
	// full Dynamo tree (the repository's whole history, packed, is 0.8 GB), and at most about
	// 12 seconds of a save (the incremental rebuild it precedes takes a minute).
	maxSnapshotTotal = 2 << 30
	// maxDiffText is the largest file the worktree diff prints: a reviewer reads source edits;
	// a larger changed file is named with its sizes and SHA-256, like a binary one, so the
	// diff never holds a large file in memory.
	maxDiffText = 1 << 20
)

// snapshotLimits are the limits snapshots apply: the constants above (tests lower them).
var snapshotLimits = struct{ file, total, diffText int64 }{maxSnapshotFile, maxSnapshotTotal, maxDiffText}

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
	size   int64  // a regular file's size in bytes
	link   string // a symlink's target
	sha256 string
	blob   string // git's object id of the content (to compare with the base commit)
}

// snapshotWorktree reads repo's working tree. It lists files with git ls-files (tracked and
// untracked-but-not-ignored), refuses what cannot be built from a copy and what is over the
// limits before reading anything, then streams each file through its hashes (and into a copy
// under copyTo, unless that is ""): no file is ever held in memory. Symlinks are recorded and
// copied as links, never followed.
func snapshotWorktree(ctx context.Context, repo, copyTo string) (worktreeSnapshot, error) {
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
	var total int64
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
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			if f.link, err = os.Readlink(full); err != nil {
				return snap, fmt.Errorf("worktree %s: %w", repo, err)
			}
		case st.IsDir():
			return snap, fmt.Errorf("worktree %s: %s is a submodule: kvparity builds a working tree without submodules (name the submodule's own checkout instead)", repo, p)
		case st.Mode().IsRegular():
			f.size = st.Size()
			if err := checkFileLimit(ctx, repo, p, f.size); err != nil {
				return snap, err
			}
			total += f.size
		default:
			return snap, fmt.Errorf("worktree %s: %s is not a regular file, symlink or folder", repo, p)
		}
		snap.files = append(snap.files, f)
	}
	if total > snapshotLimits.total {
		return snap, totalLimitError(repo, snap.files, total)
	}
	buf := make([]byte, 256<<10)
	total = 0
	for i := range snap.files {
		if ctx.Err() != nil { // a large tree takes seconds: a cancelled build stops between files
			return snap, fmt.Errorf("worktree %s: snapshot cancelled", repo)
		}
		f := &snap.files[i]
		var target string
		if copyTo != "" {
			target = filepath.Join(copyTo, filepath.FromSlash(f.path))
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return snap, fmt.Errorf("worktree %s: copying %s: %w", repo, f.path, err)
			}
		}
		if f.link != "" {
			f.sha256, f.blob = sha256Hex([]byte(f.link)), gitBlobID([]byte(f.link))
			if target != "" {
				if err := os.Symlink(f.link, target); err != nil {
					return snap, fmt.Errorf("worktree %s: copying %s: %w", repo, f.path, err)
				}
			}
			continue
		}
		if err := f.stream(ctx, repo, target, buf, &total); err != nil {
			return snap, err
		}
	}
	slices.SortFunc(snap.files, func(a, b snapFile) int { return strings.Compare(a.path, b.path) })
	h := sha256.New()
	for _, f := range snap.files {
		fmt.Fprintf(h, "%s %s %s\n", fileKind(f.mode), f.sha256, f.path)
	}
	snap.digest = hex.EncodeToString(h.Sum(nil))
	return snap, nil
}

// stream reads the regular file once, through its SHA-256 and git blob id and into target
// (unless ""), with buf. It is opened without following a link (a file replaced by one since
// it was listed is refused, not read through) and its size taken from the open file, checked
// against the limits again: a file that grew since it was listed is held to them too. A file
// whose length changes while it is read is refused, as its hashes would name no content.
func (f *snapFile) stream(ctx context.Context, repo, target string, buf []byte, total *int64) error {
	full := filepath.Join(repo, filepath.FromSlash(f.path))
	in, err := os.OpenFile(full, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP) { // removed, or now a link
		return fmt.Errorf("worktree %s: %s changed while kvparity was reading the tree: build again once the edit is saved", repo, f.path)
	}
	if err != nil {
		return fmt.Errorf("worktree %s: %s: %w", repo, f.path, err)
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return fmt.Errorf("worktree %s: %s: %w", repo, f.path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("worktree %s: %s changed while kvparity was reading the tree: build again once the edit is saved", repo, f.path)
	}
	f.size = st.Size()
	if err := checkFileLimit(ctx, repo, f.path, f.size); err != nil {
		return err
	}
	if *total += f.size; *total > snapshotLimits.total { // files grew since they were listed
		return fmt.Errorf("worktree %s: its files grew past the %s a worktree snapshot takes in all while kvparity read them (%s by %s): build again once the files stop changing", repo, sizeText(snapshotLimits.total), sizeText(*total), f.path)
	}
	sum, blob := sha256.New(), sha1.New()
	fmt.Fprintf(blob, "blob %d\x00", f.size)
	w := io.MultiWriter(sum, blob)
	var out *os.File
	if target != "" {
		if out, err = os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, f.mode.Perm()|0o600); err != nil {
			return fmt.Errorf("worktree %s: copying %s: %w", repo, f.path, err)
		}
		defer out.Close()
		w = io.MultiWriter(out, sum, blob)
	}
	// LimitReader hides the file's WriteTo, so CopyBuffer uses buf; one byte more than the
	// size shows a file still growing.
	n, err := io.CopyBuffer(w, io.LimitReader(in, f.size+1), buf)
	if err != nil {
		return fmt.Errorf("worktree %s: %s: %w", repo, f.path, err)
	}
	if n != f.size {
		return fmt.Errorf("worktree %s: %s changed while kvparity was reading it: build again once the edit is saved", repo, f.path)
	}
	if out != nil {
		if err := out.Close(); err != nil {
			return fmt.Errorf("worktree %s: copying %s: %w", repo, f.path, err)
		}
	}
	f.sha256, f.blob = hex.EncodeToString(sum.Sum(nil)), hex.EncodeToString(blob.Sum(nil))
	return nil
}

// checkFileLimit refuses a file over the per-file limit, saying how to leave it out: an
// untracked one is ignored or moved, a tracked one is part of the commit.
func checkFileLimit(ctx context.Context, repo, path string, size int64) error {
	if size <= snapshotLimits.file {
		return nil
	}
	how := "it is untracked: add it to .gitignore or .git/info/exclude, or move it out of the checkout"
	if out, err := run(ctx, repo, gitEnv, "git", "ls-files", "-z", "--cached", "--", ":(literal)"+path); err == nil && len(out) > 0 {
		how = "it is tracked, so this working tree cannot be snapshotted: build a commit instead (git:" + repo + "@REF), which git reads without this limit"
	}
	return fmt.Errorf("worktree %s: %s is %s, over the %s a worktree snapshot takes of one file (every save reads and copies the whole tree); %s", repo, path, sizeText(size), sizeText(snapshotLimits.file), how)
}

// totalLimitError refuses a tree over the total limit, naming its largest files.
func totalLimitError(repo string, files []snapFile, total int64) error {
	largest := slices.Clone(files)
	slices.SortFunc(largest, func(a, b snapFile) int { return cmp.Compare(b.size, a.size) })
	var names []string
	for _, f := range largest[:min(3, len(largest))] {
		names = append(names, fmt.Sprintf("%s (%s)", f.path, sizeText(f.size)))
	}
	return fmt.Errorf("worktree %s: its files total %s, over the %s a worktree snapshot takes in all (every save reads and copies the whole tree); the largest: %s: ignore what is not source (.gitignore or .git/info/exclude) or move it out of the checkout",
		repo, sizeText(total), sizeText(snapshotLimits.total), strings.Join(names, ", "))
}

// sizeText is a size in binary units ("64 MiB", "2.8 GiB").
func sizeText(n int64) string {
	v, unit := float64(n), 0
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	for v >= 1024 && unit < len(units)-1 {
		v, unit = v/1024, unit+1
	}
	if unit == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + units[unit]
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
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

// diffAgainstBase is the working tree's change against its base commit as a unified diff:
// what a reviewer needs to know was measured. Binary files are named, not printed, and so
// are files over the diff's size limit (by size and SHA-256): sizes come from git ls-tree and
// the snapshot, so a large file is never read for the diff. The new content is read from the
// copy (what is built), which fetch checked has the snapshot's digest.
func (snap worktreeSnapshot) diffAgainstBase(ctx context.Context, repo, copyDir string) (string, error) {
	type baseFile struct {
		blob string
		size int64
	}
	base := map[string]baseFile{}
	if snap.base != "" {
		out, err := run(ctx, repo, gitEnv, "git", "ls-tree", "-r", "-z", "-l", "--full-tree", snap.base)
		if err != nil {
			return "", fmt.Errorf("worktree %s: reading its base commit %s: %w", repo, snap.base, err)
		}
		for _, e := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			meta, path, ok := strings.Cut(e, "\t")
			if fields := strings.Fields(meta); ok && len(fields) == 4 && fields[1] == "blob" {
				size, err := strconv.ParseInt(fields[3], 10, 64)
				if err != nil {
					return "", fmt.Errorf("worktree %s: base commit %s: %s has no size in git ls-tree (%q)", repo, snap.base, path, meta)
				}
				base[path] = baseFile{fields[2], size}
			}
		}
	}
	blob := func(path, id string) (string, error) {
		out, err := run(ctx, repo, gitEnv, "git", "cat-file", "blob", id)
		if err != nil {
			return "", fmt.Errorf("worktree %s: reading %s at its base commit: %w", repo, path, err)
		}
		return string(out), nil
	}
	limit := snapshotLimits.diffText
	var changed []applied
	var binary, large []string
	now := map[string]bool{}
	for _, f := range snap.files {
		now[f.path] = true
		was, had := base[f.path]
		if had && was.blob == f.blob {
			continue
		}
		if f.size > limit || (had && was.size > limit) {
			what := fmt.Sprintf("%s (%s, sha256 %s)", f.path, sizeText(f.size), f.sha256)
			if had {
				what = fmt.Sprintf("%s (%s, now %s, sha256 %s)", f.path, sizeText(was.size), sizeText(f.size), f.sha256)
			}
			large = append(large, what)
			continue
		}
		before := ""
		if had {
			var err error
			if before, err = blob(f.path, was.blob); err != nil {
				return "", err
			}
		}
		after := f.link
		if f.link == "" {
			b, err := os.ReadFile(filepath.Join(copyDir, filepath.FromSlash(f.path)))
			if err != nil {
				return "", fmt.Errorf("worktree %s: reading the copy of %s for its diff: %w", repo, f.path, err)
			}
			after = string(b)
		}
		if isBinary(before) || isBinary(after) {
			binary = append(binary, f.path)
			continue
		}
		changed = append(changed, applied{file: f.path, before: before, after: after})
	}
	for path, was := range base {
		if now[path] {
			continue
		}
		if was.size > limit {
			large = append(large, fmt.Sprintf("%s (%s, deleted)", path, sizeText(was.size)))
			continue
		}
		before, err := blob(path, was.blob)
		if err != nil {
			return "", err
		}
		changed = append(changed, applied{file: path, before: before})
	}
	slices.SortFunc(changed, func(a, b applied) int { return strings.Compare(a.file, b.file) })
	var b strings.Builder
	fmt.Fprintf(&b, "# kvparity worktree snapshot sha256 %s\n# base commit %s\n", snap.digest, orNone(snap.base))
	slices.Sort(binary)
	for _, p := range binary {
		fmt.Fprintf(&b, "# binary file changed: %s\n", p)
	}
	slices.Sort(large)
	for _, p := range large {
		fmt.Fprintf(&b, "# file over %s changed, not printed: %s\n", sizeText(limit), p)
	}
	b.WriteString(unifiedPatch("", changed))
	return b.String(), nil
}

// isBinary is git's rule of thumb: a NUL byte, or text that is not UTF-8.
func isBinary(s string) bool {
	return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
}
