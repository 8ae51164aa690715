package exceptions

import (
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

	"kvparity/diffview"
	"kvparity/internal/atomicfile"
)

// exceptionsFile is the name of the exception records file inside a campaign directory.
const exceptionsFile = "exceptions.jsonl"

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

	// Broad records that the record's author confirmed it as broad when saving it (the pane
	// asks first). It is never read as whether the record is broad: the pane and the campaign
	// report compute that every time from the patterns and the coverage (BroadReason), so a
	// record written by hand with "broad": false, or one that became broad against a later
	// diff, is flagged BROAD all the same. Kept so existing files read and the confirmation
	// stays on record.
	Broad bool `json:"broad,omitempty"`

	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// A FieldError names the record field that failed validation.
type FieldError struct {
	Field string // JSON name, e.g. "baseline"
	msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.msg }

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
		if err := diffview.ValidatePattern(strings.TrimSpace(p)); err != nil {
			return &FieldError{"pointers", err.Error()}
		}
		n++
	}
	if n == 0 {
		return &FieldError{"pointers", "a record must cover at least one pointer pattern"}
	}
	return nil
}

// rootPattern reports whether a pointer pattern names a root: "/**", any pattern whose first
// segment is "**", a top-level "/<key>/**", or one made of wildcards only ("/*", "/*/**").
// Such a pattern covers whole sections of the report, whatever differs in them.
func rootPattern(p string) bool {
	p = strings.TrimSpace(p)
	if p == "" || p[0] != '/' {
		return false
	}
	segs := strings.Split(p[1:], "/")
	if segs[0] == "**" || len(segs) == 2 && segs[1] == "**" {
		return true
	}
	for _, s := range segs {
		if strings.Trim(s, "*") != "" {
			return false
		}
	}
	return true
}

// BroadReason says why a record with these patterns, covering covered of differing pointers,
// is broad, or "" when it is not: it names a root pattern, or it covers more than half of the
// differences. It is the one test of broadness: every reader of a record calls it with the
// coverage at hand, never trusting the stored Broad (which only records a confirmation).
func BroadReason(patterns []string, covered, differing int) string {
	var roots []string
	for _, p := range patterns {
		if rootPattern(p) {
			roots = append(roots, strings.TrimSpace(p))
		}
	}
	var why []string
	if len(roots) > 0 {
		why = append(why, "names a root pattern ("+strings.Join(roots, ", ")+")")
	}
	if differing > 0 && 2*covered > differing {
		why = append(why, fmt.Sprintf("covers %d of %d differing pointers (%d%%, more than half)", covered, differing, 100*covered/differing))
	}
	return strings.Join(why, " and ")
}

// LoadExceptions reads <campaignDir>/exceptions.jsonl strictly (see parseExceptions). A
// missing file is no records. Every bad line is an error naming the file, the line and the key
// or field. Reading takes no lock: a save replaces the file whole (atomicfile), so a reader
// sees the old records or the new ones.
func LoadExceptions(campaignDir string) ([]ExceptionRecord, error) {
	path := filepath.Join(campaignDir, exceptionsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseExceptions(path, data)
}

// saveExceptions replaces <campaignDir>/exceptions.jsonl with recs, crash-safe: the new
// content goes to a temporary file in the same directory, is fsynced, renamed over the old
// file, and the directory is fsynced. A crash leaves either the old or the new file.
func saveExceptions(campaignDir string, recs []ExceptionRecord) error {
	data, err := encodeExceptions(recs)
	if err != nil {
		return err
	}
	// 0600, as the file has always been written.
	return atomicfile.WriteIn(campaignDir, filepath.Join(campaignDir, exceptionsFile), data, 0o600)
}

// encodeExceptions is the content of an exceptions.jsonl holding recs: one line per record.
func encodeExceptions(recs []ExceptionRecord) ([]byte, error) {
	var buf bytes.Buffer
	for i := range recs {
		if err := recs[i].Validate(); err != nil {
			return nil, fmt.Errorf("record %s: %w", recs[i].ID, err)
		}
		b, err := json.Marshal(&recs[i])
		if err != nil {
			return nil, err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// PutException adds rec (new ID) or replaces the record with the same ID, and saves.
// It returns the stored record (ID and timestamps filled in). The load, the change and the
// save hold the campaign's exceptions lock, so a concurrent save in another kvparity loses
// nothing; a file that does not parse whole is never rewritten (the parse error is returned).
func PutException(campaignDir string, rec ExceptionRecord) (ExceptionRecord, error) {
	if err := rec.Validate(); err != nil {
		return rec, err
	}
	unlock, err := lockExceptions(campaignDir)
	if err != nil {
		return rec, err
	}
	defer unlock()
	recs, err := loadForChange(campaignDir)
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

// DeleteException removes the record with id and saves; unknown ids are an error. Like
// PutException it holds the exceptions lock throughout and never rewrites a file that does not
// parse whole.
func DeleteException(campaignDir, id string) error {
	unlock, err := lockExceptions(campaignDir)
	if err != nil {
		return err
	}
	defer unlock()
	recs, err := loadForChange(campaignDir)
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
		return fmt.Errorf("%s: no exception record with id %q", filepath.Join(campaignDir, exceptionsFile), id)
	}
	return saveExceptions(campaignDir, out)
}

// loadForChange loads the records a change rewrites. A save rewrites the whole file from them,
// so a file that does not parse whole is refused and left byte for byte as it is: the records
// of the lines that did not parse would be lost.
func loadForChange(campaignDir string) ([]ExceptionRecord, error) {
	recs, err := LoadExceptions(campaignDir)
	if err != nil {
		return nil, fmt.Errorf("%w (nothing saved: the file is left as it is until that line is fixed, since a save rewrites every record)", err)
	}
	return recs, nil
}

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "exc-" + hex.EncodeToString(b[:])
}
