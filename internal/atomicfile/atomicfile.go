// Package atomicfile is kvparity's one crash-safe file writer. The new content goes to a
// temporary file in the target's directory, which is fsynced, given its mode and renamed over
// the target; then the directory itself is fsynced, so the rename is durable too. A crash
// leaves either the old file or the new one, never half of one, and a reader never sees a
// partial file. On any error the temporary file is removed and the target is untouched.
package atomicfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Write replaces path with data, crash-safe, with mode perm (exactly: the umask does not
// apply). path's directory must exist.
func Write(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+"-*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		// CreateTemp made it 0600; campaign files are read by other tools and users.
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return syncDir(dir)
}

// Update makes path hold data with mode perm: it creates path's missing directories (0755),
// leaves a file that already holds exactly data with mode perm alone (its mtime too, so
// rewriting a report that did not change is not a change), and otherwise Writes.
func Update(path string, data []byte, perm fs.FileMode) error {
	if st, err := os.Stat(path); err == nil && st.Mode().Perm() == perm {
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return Write(path, data, perm)
}

// syncDir fsyncs a directory so that a rename into it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// OpenNoFollow is os.OpenFile refusing a symbolic link as path's last component (O_NOFOLLOW):
// a campaign file replaced by a symlink is an error naming it, never a write outside.
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &os.PathError{Op: "open", Path: path, Err: errSymlink}
	}
	return f, err
}

// errSymlink is the error of a write refused because its target is a symbolic link.
var errSymlink = errors.New("is a symbolic link: kvparity never writes through one")

// InsideNoLinks checks that path lies inside root and that no component between them (path
// itself included, when it exists) is a symbolic link: a campaign folder (a run folder, the
// journal, a report) replaced by a link would make a write land outside the campaign.
func InsideNoLinks(root, path string) error {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return &os.PathError{Op: "write", Path: path, Err: errors.New("is outside the campaign folder " + root)}
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // the rest is created by kvparity
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return &os.PathError{Op: "write", Path: cur, Err: errSymlink}
		}
	}
	return nil
}

// WriteIn is Update for a file inside root, refusing any symbolic link on the way (InsideNoLinks).
func WriteIn(root, path string, data []byte, perm fs.FileMode) error {
	if err := InsideNoLinks(root, path); err != nil {
		return err
	}
	return Update(path, data, perm)
}

// NoLinkAt refuses a write to path when path or its folder is a symbolic link (the checks a
// writer can make without knowing the campaign root; InsideNoLinks checks every component).
func NoLinkAt(path string) error {
	for _, p := range []string{filepath.Dir(path), path} {
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return &os.PathError{Op: "write", Path: p, Err: errSymlink}
		}
	}
	return nil
}

// Unwritable says why err means its folder cannot be written at all: "read-only file system"
// (a read-only mount: an NFS export, a snapshot, a CI artifact) or "permission denied" (no
// write permission, an immutable file); "" for any other error. The campaign lock decides
// with it that a campaign opens read-only; the exception records and the report say with it
// that they cannot be written there.
func Unwritable(err error) string {
	switch {
	case errors.Is(err, syscall.EROFS):
		return syscall.EROFS.Error()
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return syscall.EACCES.Error()
	}
	return ""
}
