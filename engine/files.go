package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"kvparity/internal/atomicfile"
)

// createSynced creates path with perm, lets fill write it, and fsyncs and closes it. On any
// error the file is removed: a campaign never keeps a half-written copy, window or record.
func createSynced(path string, perm os.FileMode, fill func(io.Writer) error) error {
	if err := atomicfile.NoLinkAt(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := atomicfile.OpenNoFollow(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
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
