package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"kvparity/internal/digest"
	"kvparity/internal/layout"
)

// Never reuse a binary after its source changed (protocol stage 1): before a stage runs, and
// whenever watch mode sees a rebuild, each path arm's source is hashed; a changed source marks
// the arm's results stale (journal) and is pinned again as a new generation. An arm whose kind
// is not repinnable (the builtin kind) has no source to rebuild: its pinned copy is the artifact.

// checkSource compares an arm's source binary with its pinned copy. When it differs it records
// the arm stale and announces ArtifactChanged; with repin it then pins the new build. It
// returns whether the source changed.
func (a *arms) checkSource(arm Arm, repin bool) (bool, error) {
	p := a.pinned(arm)
	if !kindOf(a.row.Arm(arm)).Repinnable() {
		return false, nil
	}
	sum, err := digest.File(p.Source)
	if errors.Is(err, fs.ErrNotExist) {
		if p.Stale {
			return true, fmt.Errorf("the %s source %s changed after pinning and is now gone: its stale copy is never run again; rebuild it or start a new campaign", arm, p.Source)
		}
		// The checkout went back to its branch or was cleaned (protocol stage 1 step 7): the
		// pinned copy is the artifact, and nothing was rebuilt.
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s source binary %s: %w", arm, p.Source, err)
	}
	if sum == p.SHA256 && !p.Stale {
		return false, nil
	}
	if sum != p.SHA256 && !p.Stale {
		if err := a.record(Record{Type: RecStale, Arm: arm, Gen: p.Gen, OldSHA: p.SHA256, NewSHA: sum,
			Reason: fmt.Sprintf("%s changed after it was pinned: results of generation %d are stale", p.Source, p.Gen)}); err != nil {
			return true, err
		}
		a.markStale(arm)
	}
	if !repin {
		a.emit(ArtifactChanged{Arm: arm, Path: p.Source, OldSHA256: p.SHA256, NewSHA256: sum, OldGen: p.Gen})
		return true, nil
	}
	np, err := a.repin(arm)
	if err != nil {
		return true, err
	}
	a.emit(ArtifactChanged{Arm: arm, Path: p.Source, OldSHA256: p.SHA256, NewSHA256: np.SHA256, Repinned: true, OldGen: p.Gen, NewGen: np.Gen})
	return true, nil
}

// repin pins an arm's source again as the next generation and records it.
func (a *arms) repin(arm Arm) (PinnedArtifact, error) {
	old := a.pinned(arm)
	np, err := pinArtifact(a.dir, arm, old.Gen+1, a.row.Arm(arm), old.Source)
	if err != nil {
		return np, err
	}
	return np, a.recordPin(np)
}

// recordPin adds a new generation to the campaign: artifacts.json and the journal.
func (a *arms) recordPin(np PinnedArtifact) error {
	a.add(np)
	if err := WriteJSONFile(filepath.Join(a.dir, layout.FileArtifacts), artifactsFile{Artifacts: a.all()}); err != nil {
		return err
	}
	return a.record(Record{Type: RecPinned, Arm: np.Arm, Gen: np.Gen, Artifact: ptrInfo(np, a.dir)})
}

// prepare re-pins any arm whose source changed and verifies every pinned copy and the
// trace window before a stage runs.
func (a *arms) prepare() error {
	for _, arm := range []Arm{Baseline, Candidate} {
		if _, err := a.checkSource(arm, true); err != nil {
			return err
		}
	}
	return a.verify()
}
