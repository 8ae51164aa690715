package build

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// lowerLimits sets the snapshot limits for one test (the package's tests run one at a time).
func lowerLimits(t *testing.T, file, total, diffText int64) {
	t.Helper()
	saved := snapshotLimits
	snapshotLimits.file, snapshotLimits.total, snapshotLimits.diffText = file, total, diffText
	t.Cleanup(func() { snapshotLimits = saved })
}

// sparse makes a file of size bytes that takes no disk (the content is zeros).
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// resolveAndFetch is what Build does with a worktree source: name it by its snapshot, then copy it.
func resolveAndFetch(t *testing.T, repo, dst string) (Spec, Info, error) {
	t.Helper()
	s := Spec{Kind: "worktree", Repo: repo}
	if err := (worktreeKind{}).resolve(context.Background(), &s); err != nil {
		return s, Info{}, err
	}
	var info Info
	err := (worktreeKind{}).fetch(context.Background(), s, "", dst, &info)
	return s, info, err
}

// A large file is hashed and copied in one streaming pass, never held in memory, and the diff
// names it instead of reading it: the heap grows by a small fraction of the file.
func TestWorktreeSnapshotStreams(t *testing.T) {
	c := newCheckout(t, fixtureCopy(t), false)
	const size = 200 << 20
	sparse(t, filepath.Join(c.repo, "lib", "bench", "weights.bin"), size)
	lowerLimits(t, size, size+(64<<20), maxDiffText)
	dst := t.TempDir()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	s, info, err := resolveAndFetch(t, c.repo, dst)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("snapshot and copy of a %d MB file: %v; TotalAlloc +%.1f MB, HeapAlloc %+.1f MB, HeapSys %+.1f MB", size>>20, took.Round(time.Millisecond),
		float64(allocated)/(1<<20), float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), float64(int64(after.HeapSys)-int64(before.HeapSys))/(1<<20))
	if allocated > 8<<20 {
		t.Errorf("snapshotting a %d MB file allocated %.1f MB: it was read into memory", size>>20, float64(allocated)/(1<<20))
	}
	if st, err := os.Stat(filepath.Join(dst, "lib", "bench", "weights.bin")); err != nil || st.Size() != size {
		t.Errorf("the copy of the large file: %v %v", st, err)
	}
	if info.SnapshotSHA256 != s.Snapshot {
		t.Errorf("the copy's digest %s is not the snapshot's %s", info.SnapshotSHA256, s.Snapshot)
	}
	if want := "# file over 1 MiB changed, not printed: lib/bench/weights.bin (200 MiB, sha256 "; !strings.Contains(info.worktreeDiff, want) {
		t.Errorf("the diff does not name the large file as %q:\n%s", want, info.worktreeDiff)
	}
}

// A file over the per-file limit, or a tree over the total, is refused before anything is
// read, naming the file(s) and the limit and how to leave the file out.
func TestWorktreeSnapshotRefusesLargeFiles(t *testing.T) {
	c := newCheckout(t, fixtureCopy(t), false)
	lowerLimits(t, 1<<20, 1<<30, maxDiffText)
	sparse(t, filepath.Join(c.repo, "core.12345"), 3<<20)
	_, _, err := resolveAndFetch(t, c.repo, t.TempDir())
	want := "worktree " + c.repo + ": core.12345 is 3 MiB, over the 1 MiB a worktree snapshot takes of one file"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "it is untracked: add it to .gitignore or .git/info/exclude") {
		t.Errorf("an untracked file over the limit: %v", err)
	}
	// Ignored, it is not the snapshot's concern.
	c.write(".git/info/exclude", "core.*\n")
	if _, _, err := resolveAndFetch(t, c.repo, t.TempDir()); err != nil {
		t.Errorf("an ignored large file was still refused: %v", err)
	}
	// Tracked, ignoring it cannot help: a commit can be built instead.
	sparse(t, filepath.Join(c.repo, "lib", "bench", "model.bin"), 2<<20)
	c.git("add", "lib/bench/model.bin")
	_, _, err = resolveAndFetch(t, c.repo, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "lib/bench/model.bin is 2 MiB, over the 1 MiB") || !strings.Contains(err.Error(), "it is tracked") || !strings.Contains(err.Error(), "git:"+c.repo+"@REF") {
		t.Errorf("a tracked file over the limit: %v", err)
	}
	c.git("rm", "-q", "--cached", "lib/bench/model.bin")
	os.Remove(filepath.Join(c.repo, "lib", "bench", "model.bin"))

	// In all: the files are each under the per-file limit, together over the total.
	lowerLimits(t, 1<<20, 2<<20, maxDiffText)
	for _, name := range []string{"a.bin", "b.bin", "c.bin"} {
		sparse(t, filepath.Join(c.repo, "lib", "bench", name), 900<<10)
	}
	_, _, err = resolveAndFetch(t, c.repo, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "over the 2 MiB a worktree snapshot takes in all") ||
		!strings.Contains(err.Error(), "lib/bench/a.bin (900 KiB), lib/bench/b.bin (900 KiB), lib/bench/c.bin (900 KiB)") {
		t.Errorf("a tree over the total limit: %v", err)
	}
}

// A symlink is recorded and copied as a link, never followed: its target (here a file outside
// the checkout, over the per-file limit) is not read, and the diff shows the link's text.
func TestWorktreeSnapshotKeepsSymlinks(t *testing.T) {
	c := newCheckout(t, fixtureCopy(t), false)
	lowerLimits(t, 1<<20, 1<<30, maxDiffText)
	outside := filepath.Join(t.TempDir(), "huge.bin")
	sparse(t, outside, 5<<20)
	if err := os.Symlink(outside, filepath.Join(c.repo, "lib", "bench", "data")); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	s, info, err := resolveAndFetch(t, c.repo, dst)
	if err != nil {
		t.Fatalf("a link to a large file outside the checkout: %v", err)
	}
	if got, err := os.Readlink(filepath.Join(dst, "lib", "bench", "data")); err != nil || got != outside {
		t.Errorf("the copy is not the link (%q, %v)", got, err)
	}
	if !strings.Contains(info.worktreeDiff, "+++ b/lib/bench/data") || !strings.Contains(info.worktreeDiff, "+"+outside) {
		t.Errorf("the diff does not show the link's target:\n%s", info.worktreeDiff)
	}
	// The link's text is its content: pointing it elsewhere is another snapshot.
	os.Remove(filepath.Join(c.repo, "lib", "bench", "data"))
	os.Symlink(outside+".other", filepath.Join(c.repo, "lib", "bench", "data"))
	if again, _, err := resolveAndFetch(t, c.repo, t.TempDir()); err != nil || again.Snapshot == s.Snapshot {
		t.Errorf("a link pointed elsewhere: snapshot %s (was %s), %v", again.Snapshot, s.Snapshot, err)
	}
}

// Changed files over the diff's size limit are named with their sizes, never read for the
// diff; smaller edits are printed as before.
func TestWorktreeDiffNamesLargeFiles(t *testing.T) {
	c := newCheckout(t, fixtureCopy(t), false)
	big := strings.Repeat("a line of tracked data\n", 100)
	c.write("lib/bench/data.txt", big)
	c.git("add", "lib/bench/data.txt")
	c.git("commit", "-qm", "data")
	lowerLimits(t, maxSnapshotFile, maxSnapshotTotal, 1<<10)
	c.write("lib/bench/data.txt", big+"one more\n")
	c.write("lib/bench/NOTES.md", "small\n")
	_, info, err := resolveAndFetch(t, c.repo, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# file over 1 KiB changed, not printed: lib/bench/data.txt (2.2 KiB, now 2.3 KiB, sha256 ", "+++ b/lib/bench/NOTES.md", "+small"} {
		if !strings.Contains(info.worktreeDiff, want) {
			t.Errorf("the diff lacks %q:\n%s", want, info.worktreeDiff)
		}
	}
	if strings.Contains(info.worktreeDiff, "+one more") {
		t.Errorf("a file over the diff's limit was printed:\n%s", info.worktreeDiff)
	}
	os.Remove(filepath.Join(c.repo, "lib", "bench", "data.txt"))
	if _, info, err = resolveAndFetch(t, c.repo, t.TempDir()); err != nil || !strings.Contains(info.worktreeDiff, "lib/bench/data.txt (2.2 KiB, deleted)") {
		t.Errorf("a deleted large file: %v\n%s", err, info.worktreeDiff)
	}
}
