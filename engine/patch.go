package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"kvparity/internal/layout"
	"os"
	"path/filepath"
)

// Protocol stage 1.3: a temporary determinism correction is applied identically to both
// revisions, kept out of the measured semantic delta, and its patch checksum recorded. kvparity
// does not apply it (the builds are the developer's); the row declares it under
// [determinism] (patch = a file, copied into the campaign and hashed; patch_sha256 = its
// declared checksum, verified against the file when both are given), and the campaign records
// it in the journal so the report states it even after cleanup deleted the copy.

// recPatch records the row's declared determinism patch (Data: DeterminismPatch).
const recPatch RecordType = "determinism_patch"

func init() {
	defineRecord(recPatch, func(h *History, r *Record, p *DeterminismPatch) { h.Patch = p }, nil)
}

// A DeterminismPatch is the determinism correction both revisions were built with.
type DeterminismPatch struct {
	Source string `json:"source,omitempty"` // the row's patch file ("" when only its checksum is declared)
	Path   string `json:"path,omitempty"`   // its copy, relative to the campaign ("" when not copied)
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes,omitempty"`
	// Declared: the row gave patch_sha256 (checked against the file when it gave one too).
	Declared bool `json:"declared_sha256"`
}

// patched reports whether the row declares a determinism patch.
func (d DeterminismSpec) patched() bool { return d.Patch != "" || d.PatchSHA256 != "" }

// pinPatch copies and hashes the row's determinism patch into dir/patch (nil when the row
// declares none). Errors name the row file and key.
func pinPatch(dir, rowFile string, d DeterminismSpec) (*DeterminismPatch, error) {
	if !d.patched() {
		return nil, nil
	}
	p := &DeterminismPatch{Source: d.Patch, SHA256: d.PatchSHA256, Declared: d.PatchSHA256 != ""}
	if d.Patch == "" {
		return p, nil
	}
	bad := func(key, format string, a ...any) error {
		return &RowError{File: rowFile, Table: "determinism", Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	info, err := os.Stat(d.Patch)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, bad("patch", "%s does not exist", d.Patch)
	case err != nil:
		return nil, bad("patch", "%v", err)
	case !info.Mode().IsRegular():
		return nil, bad("patch", "%s is not a regular file", d.Patch)
	case info.Size() == 0:
		return nil, bad("patch", "%s is empty: a determinism patch that changes nothing need not be declared", d.Patch)
	}
	rel := filepath.Join(layout.DirPatch, filepath.Base(d.Patch))
	if err := os.MkdirAll(filepath.Join(dir, layout.DirPatch), 0o755); err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	sum, size, err := copyHashed(d.Patch, filepath.Join(dir, rel))
	if err != nil {
		return nil, bad("patch", "copying %s: %v", d.Patch, err)
	}
	if d.PatchSHA256 != "" && sum != d.PatchSHA256 {
		os.Remove(filepath.Join(dir, rel))
		return nil, bad("patch_sha256", "%s has SHA-256 %s, the row declares %s: both revisions must be built with the declared patch", d.Patch, sum, d.PatchSHA256)
	}
	p.Path, p.SHA256, p.Bytes = filepath.ToSlash(rel), sum, size
	return p, nil
}

// patchRecord is the founding journal record of a declared patch.
func patchRecord(p *DeterminismPatch) Record {
	return Record{Type: recPatch, Data: MarshalData(p)}
}
