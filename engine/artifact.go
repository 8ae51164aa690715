package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	armkind "kvparity/engine/arm"
	"kvparity/engine/build"
	"kvparity/engine/instrument"
	"kvparity/internal/atomicfile"
	"kvparity/internal/digest"
	"kvparity/internal/layout"
)

// Protocol stage 1: every artifact is copied into the campaign (artifacts/) and its SHA-256,
// size, .text size, features and revision are recorded in artifacts.json. Runs only ever
// execute the pinned copy; a rebuilt source is pinned again as a new generation.

// A PinnedArtifact is one entry of artifacts.json: an arm's artifact at one generation.
type PinnedArtifact struct {
	Arm      Arm      `json:"arm"`
	Gen      int      `json:"gen"` // 1 for the first pin, +1 per re-pin after a rebuild
	Revision string   `json:"revision"`
	Source   string   `json:"source"` // the path it was copied from ("builtin": the kvparity executable)
	Builtin  bool     `json:"builtin"`
	Path     string   `json:"path"` // relative to the campaign dir
	Variant  string   `json:"variant,omitempty"`
	Features []string `json:"features"`
	SHA256   string   `json:"sha256"`
	Size     int64    `json:"size"`
	TextSize int64    `json:"text_size"` // .text section bytes, 0 when not ELF
	// ShippedSize is the binary without its debug sections, as users ship it (line tables
	// make a release build of Dynamo's bench 15× larger): what the footprint gate compares.
	// 0 when not ELF, and in pins recorded before it was.
	ShippedSize int64     `json:"shipped_size,omitempty"`
	PinnedAt    time.Time `json:"pinned_at"`
	Stale       bool      `json:"stale,omitempty"`
	// Build is how kvparity built it, for an arm named by source (nil for a given binary).
	Build *build.Info `json:"build,omitempty"`
	// SourceDiff is a worktree arm's diff against its base commit (relative to the campaign):
	// exactly the uncommitted change this generation measured.
	SourceDiff string `json:"source_diff,omitempty"`
}

// info converts to the workbench's view (Path made absolute against dir).
func (p PinnedArtifact) info(dir string) ArtifactInfo {
	return ArtifactInfo{Arm: p.Arm, Revision: p.Revision, Source: p.sourceLabel(), Path: filepath.Join(dir, p.Path),
		Variant: p.Variant, Features: slices.Clone(p.Features), SHA256: p.SHA256, Size: p.Size, TextSize: p.TextSize, ShippedSize: p.ShippedSize, Stale: p.Stale,
		Build: p.Build, SourceDiff: p.SourceDiff}
}

// footprint is what the footprint gate compares of the pin.
func (p PinnedArtifact) Footprint() instrument.Binary {
	return instrument.Binary{Size: p.Size, ShippedSize: p.ShippedSize, TextSize: p.TextSize}
}

func (p PinnedArtifact) sourceLabel() string { return armkind.PinSource(p.Builtin, p.Source) }

// pinArtifact copies src into dir/artifacts as arm's generation gen and describes the copy.
// The source is hashed again after the copy: a binary that changes while being pinned is
// refused rather than pinned half old, half new.
func pinArtifact(dir string, arm Arm, gen int, spec ArmSpec, src string) (PinnedArtifact, error) {
	kind := kindOf(spec)
	p := PinnedArtifact{Arm: arm, Gen: gen, Revision: kind.Revision(spec), Source: src, Builtin: kind.Embedded(),
		Variant: spec.Variant, Features: slices.Clone(spec.Features), PinnedAt: time.Now().UTC()}
	if p.Features == nil {
		p.Features = []string{}
	}
	if st, err := os.Stat(src); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
		// Not "EOF" from the ELF reader: say what is wrong with the file.
		return p, fmt.Errorf("pin %s artifact %s: not an executable (0 bytes): the build did not finish or wrote an empty file", arm, src)
	}
	rel := filepath.Join(layout.DirArtifacts, fmt.Sprintf("%s-g%d-%s", arm, gen, filepath.Base(src)))
	dst := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return p, fmt.Errorf("pin %s: %w", arm, err)
	}
	sum, size, err := copyHashed(src, dst)
	if err != nil {
		return p, fmt.Errorf("pin %s artifact %s: %w", arm, src, err)
	}
	again, err := digest.File(src)
	if err != nil {
		return p, fmt.Errorf("pin %s artifact %s: %w", arm, src, err)
	}
	if again != sum {
		os.Remove(dst)
		return p, fmt.Errorf("pin %s artifact %s: the file changed while it was copied; wait for the build to finish", arm, src)
	}
	p.Path, p.SHA256, p.Size = rel, sum, size
	f, err := kind.Footprint(dst, size)
	p.TextSize, p.ShippedSize = f.TextSize, f.ShippedSize
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return p, fmt.Errorf("pin %s artifact %s: not a complete executable (%d bytes, its ELF headers are cut short): the build did not finish", arm, src, size)
	}
	if err != nil {
		return p, fmt.Errorf("pin %s artifact %s: %w", arm, src, err)
	}
	return p, nil
}

// copyHashed copies src to dst (mode 0755, fsync'd) and returns the SHA-256 of the bytes
// written.
func copyHashed(src, dst string) (string, int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", 0, err
	}
	defer in.Close()
	if st, err := in.Stat(); err != nil {
		return "", 0, err
	} else if !st.Mode().IsRegular() {
		return "", 0, errors.New("not a regular file")
	}
	h := sha256.New()
	var n int64
	err = createSynced(dst, 0o755, func(w io.Writer) (copyErr error) {
		n, copyErr = io.Copy(io.MultiWriter(w, h), in)
		return copyErr
	})
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// artifactsFile is artifacts.json: every pin, oldest first (re-pins append).
type artifactsFile struct {
	Artifacts []PinnedArtifact `json:"artifacts"`
}

// WriteJSONFile writes v as an indented JSON file, atomically (refusing a link at path).
func WriteJSONFile(path string, v any) error {
	if err := atomicfile.NoLinkAt(path); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Update(path, append(data, '\n'), 0o644)
}
