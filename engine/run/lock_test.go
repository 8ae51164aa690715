package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"kvparity/internal/layout"
)

// Issue 42: a campaign folder that cannot be written (a read-only mount, no write permission)
// is told apart where the lock is taken: its lock file cannot be opened to write. TryLock says
// so as an *UnwritableError naming the folder and why, so that a viewer opens it read-only;
// any other failure stays a lock error naming the file. The failure is injected (root is not
// stopped by permissions; engine's tests mount a read-only folder for real).
func TestTryLockTellsAnUnwritableFolder(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		errno syscall.Errno
		why   string
	}{{syscall.EROFS, "read-only file system"}, {syscall.EACCES, "permission denied"}, {syscall.EPERM, "permission denied"}, {syscall.ENOSPC, ""}} {
		t.Run(tc.errno.Error(), func(t *testing.T) {
			saved := openLock
			t.Cleanup(func() { openLock = saved })
			openLock = func(path string) (*os.File, error) {
				return nil, &os.PathError{Op: "open", Path: path, Err: tc.errno}
			}
			l, err := TryLock(dir)
			if l != nil {
				t.Fatal("TryLock returned a lock whose file could not be opened")
			}
			var unwritable *UnwritableError
			if tc.why == "" {
				if errors.As(err, &unwritable) || err == nil || !strings.Contains(err.Error(), filepath.Join(dir, layout.FileLock)) {
					t.Errorf("%v: TryLock %v, want a lock error naming the lock file", tc.errno, err)
				}
				return
			}
			if !errors.As(err, &unwritable) || unwritable.dir != dir || unwritable.why != tc.why {
				t.Fatalf("%v: TryLock %#v, want an *UnwritableError for %s (%s)", tc.errno, err, dir, tc.why)
			}
			if want := "campaign folder " + dir + " cannot be written (" + tc.why + ")"; err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
		})
	}
}
