package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// ReadOnly makes dir unwritable for the rest of the test, as a read-only mount (an NFS export,
// a snapshot, a CI artifact) or a folder of another user is, and returns the reason a write
// then fails with. As root, whom permissions do not stop, dir is bind-mounted read-only over
// itself ("read-only file system"); otherwise every folder and file under it loses its write
// permission ("permission denied"). A root that may not mount skips the test, saying so.
func ReadOnly(t testing.TB, dir string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		setWritable(t, dir, false)
		t.Cleanup(func() { setWritable(t, dir, true) }) // so that t.TempDir can remove it
		return "permission denied"
	}
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("root ignores write permissions, so only a read-only mount keeps it from writing %s, and mount is not permitted here: %v", dir, err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	if err := syscall.Mount("", dir, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("root ignores write permissions, so only a read-only mount keeps it from writing %s, and remounting it read-only is not permitted here: %v", dir, err)
	}
	return "read-only file system"
}

// setWritable gives every folder and file under dir its owner's write permission, or takes
// it away (folders keep search permission).
func setWritable(t testing.TB, dir string, on bool) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink != 0 {
			return err
		}
		mode := st.Mode().Perm() &^ 0o222
		if on {
			mode |= 0o200
		}
		return os.Chmod(p, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
}
