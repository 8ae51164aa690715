package diffview

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
)

// An ExceptionRecord is one semantic exception (protocol stage 5): a reviewed explanation of
// why some differing pointers are an intended, more faithful change and not leaked entropy.
// The seven stage-5 fields are Differs (with Pointers, Requests, Events), Baseline,
// Candidate, Cause, RegressionTest, Impact and Disposition.
type ExceptionRecord struct {
	ID string `json:"id"`
	// 1. the exact fields, requests or lifecycle events that differ
	Differs  string   `json:"differs"`
	Pointers []string `json:"pointers"` // pointer patterns this record covers (see pattern.go)
	Requests []string `json:"requests,omitempty"`
	Events   []string `json:"events,omitempty"`
	// 2. the baseline behaviour and why it is incorrect or less faithful
	Baseline string `json:"baseline"`
	// 3. the candidate behaviour and the semantic source of truth supporting it
	Candidate string `json:"candidate"`
	// 4. why the intended change, not leaked entropy, causes the difference
	Cause string `json:"cause"`
	// 5. the focused regression test that fails on the old behaviour
	RegressionTest string `json:"regression_test"`
	// 6. downstream report or API compatibility impact
	Impact string `json:"impact"`
	// 7. the reviewer-visible disposition
	Disposition string `json:"disposition"`

	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// A FieldError names the record field that failed validation.
type FieldError struct {
	Field string // JSON name, e.g. "baseline"
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// requiredText are the free-text fields that must not be empty, with their JSON names.
func (r *ExceptionRecord) requiredText() []struct {
	name string
	val  string
} {
	return []struct {
		name string
		val  string
	}{
		{"differs", r.Differs}, {"baseline", r.Baseline}, {"candidate", r.Candidate},
		{"cause", r.Cause}, {"regression_test", r.RegressionTest}, {"impact", r.Impact},
		{"disposition", r.Disposition},
	}
}

// Validate checks that no required field is empty and that the record covers at least one
// valid pointer pattern. The error is a *FieldError naming the first bad field.
func (r *ExceptionRecord) Validate() error {
	for _, f := range r.requiredText() {
		if strings.TrimSpace(f.val) == "" {
			return &FieldError{f.name, "required, empty"}
		}
	}
	n := 0
	for _, p := range r.Pointers {
		if strings.TrimSpace(p) == "" {
			continue
		}
		if err := validatePattern(strings.TrimSpace(p)); err != nil {
			return &FieldError{"pointers", err.Error()}
		}
		n++
	}
	if n == 0 {
		return &FieldError{"pointers", "a record must cover at least one pointer pattern"}
	}
	return nil
}

// covers reports whether one of the record's patterns matches ptr.
func (r *ExceptionRecord) covers(ptr string) bool {
	for _, p := range r.Pointers {
		if MatchPattern(strings.TrimSpace(p), ptr) {
			return true
		}
	}
	return false
}

// LoadExceptions reads <campaignDir>/exceptions.jsonl. A missing file is no records. Every
// bad line is an error naming the file, the line and the field.
func LoadExceptions(campaignDir string) ([]ExceptionRecord, error) {
	path := filepath.Join(campaignDir, layout.FileExceptions)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []ExceptionRecord
	ids := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var r ExceptionRecord
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if r.ID == "" {
			return nil, fmt.Errorf("%s:%d: id: required, empty", path, line)
		}
		if prev, dup := ids[r.ID]; dup {
			return nil, fmt.Errorf("%s:%d: id: %q already used on line %d", path, line, r.ID, prev)
		}
		ids[r.ID] = line
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: record %s: %v", path, line, r.ID, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	return recs, nil
}

// saveExceptions replaces <campaignDir>/exceptions.jsonl with recs, crash-safe: the new
// content goes to a temporary file in the same directory, is fsynced, renamed over the old
// file, and the directory is fsynced. A crash leaves either the old or the new file.
func saveExceptions(campaignDir string, recs []ExceptionRecord) error {
	var buf bytes.Buffer
	for i := range recs {
		if err := recs[i].Validate(); err != nil {
			return fmt.Errorf("record %s: %w", recs[i].ID, err)
		}
		b, err := json.Marshal(&recs[i])
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	// 0600, as the file has always been written.
	return atomicfile.Write(filepath.Join(campaignDir, layout.FileExceptions), buf.Bytes(), 0o600)
}

// PutException adds rec (new ID) or replaces the record with the same ID, and saves.
// It returns the stored record (ID and timestamps filled in).
func PutException(campaignDir string, rec ExceptionRecord) (ExceptionRecord, error) {
	if err := rec.Validate(); err != nil {
		return rec, err
	}
	recs, err := LoadExceptions(campaignDir)
	if err != nil {
		return rec, err
	}
	now := time.Now().UTC().Truncate(time.Second)
	rec.Updated = now
	found := false
	if rec.ID != "" {
		for i := range recs {
			if recs[i].ID == rec.ID {
				rec.Created = recs[i].Created
				recs[i] = rec
				found = true
			}
		}
	}
	if !found {
		if rec.ID == "" {
			rec.ID = newID()
		}
		if rec.Created.IsZero() {
			rec.Created = now
		}
		recs = append(recs, rec)
	}
	return rec, saveExceptions(campaignDir, recs)
}

// DeleteException removes the record with id and saves; unknown ids are an error.
func DeleteException(campaignDir, id string) error {
	recs, err := LoadExceptions(campaignDir)
	if err != nil {
		return err
	}
	out := recs[:0]
	for _, r := range recs {
		if r.ID != id {
			out = append(out, r)
		}
	}
	if len(out) == len(recs) {
		return fmt.Errorf("%s: no exception record with id %q", filepath.Join(campaignDir, layout.FileExceptions), id)
	}
	return saveExceptions(campaignDir, out)
}

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "exc-" + hex.EncodeToString(b[:])
}
