package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// createSynced creates path with perm, lets fill write it, and fsyncs and closes it. On any
// error the file is removed: a campaign never keeps a half-written copy, window or record.
func createSynced(path string, perm os.FileMode, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// WriteFileAtomic writes data to path (mode 0644, creating its folder) through a fresh
// temporary file in the same folder that is fsync'd and renamed, so a crash never leaves half a
// file and a reader never sees one; a file already holding exactly data is left alone (its
// mtime too, so rewriting a report that did not change is not a change). The campaign report
// writes its files with it too.
func WriteFileAtomic(path string, data []byte) error { return writeFileAtomicMode(path, data, 0o644) }

// writeFileAtomicMode is WriteFileAtomic with the file's mode given: the matrix writes its job
// scripts and its copy of kvparity executable (0755). A file already holding data is left alone
// only when its mode is perm too.
func writeFileAtomicMode(path string, data []byte, perm os.FileMode) error {
	if st, err := os.Stat(path); err == nil && st.Mode().Perm() == perm {
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
	}
	tmp.Close()
	if err := createSynced(tmp.Name(), perm, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return err
	}
	// CreateTemp made it 0600; campaign files are read by other tools and users.
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// ReadJSONFile decodes the JSON file at path into v. A read error is returned as is (test it
// with errors.Is(err, fs.ErrNotExist)); a decoding error names the file and the byte offset or
// field.
func ReadJSONFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("%s: byte %d: %v", path, se.Offset, err)
		case errors.As(err, &te):
			return fmt.Errorf("%s: field %s: %v", path, te.Field, err)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
