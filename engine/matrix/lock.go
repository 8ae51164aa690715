package matrix

import (
	"errors"
	"fmt"
	"kvparity/internal/layout"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockMatrix takes the matrix folder's lock (flock, released when the process ends, however it
// ends). On a filesystem without locks it goes on, and says so through warn.
func lockMatrix(dir string, warn func(string)) (*os.File, error) {
	path := filepath.Join(dir, layout.FileMatrixLock)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	switch err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); {
	case err == nil:
	case errors.Is(err, unix.EWOULDBLOCK):
		holder, _ := os.ReadFile(path)
		f.Close()
		return nil, fmt.Errorf("matrix: another kvparity matrix is following %s (%s holds %s); stop it first", dir, holder, path)
	default:
		warn(fmt.Sprintf("%s cannot be locked on this filesystem (%v): run one kvparity matrix per folder", path, err))
	}
	host, _ := os.Hostname()
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d on %s", os.Getpid(), host)
	}
	return f, nil
}
