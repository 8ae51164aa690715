package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	armkind "kvparity/engine/arm"
	"kvparity/internal/digest"
)

// arms are the campaign's two arms as it holds them: every pinned generation of each
// (artifacts.json, oldest first), the current one, and the repetitions added to each
// (AddRepetition); and the work of keeping the pins true (repin.go). They keep their own lock:
// the campaign's guards the one running stage, the watch and the read-only state.
type arms struct {
	dir     string
	row     *Row
	builtin string             // Options.BuiltinPath: the kvparity executable builtin arms pin
	trace   *TraceChecksums    // the campaign's trace window, verified with the pinned copies
	record  func(Record) error // appends to the campaign's journal
	emit    func(Event)

	mu      sync.Mutex
	current map[Arm]PinnedArtifact // the current generation of each arm
	pins    []PinnedArtifact       // every pin, oldest first (artifacts.json)
	extra   map[Arm]int            // repetitions added with AddRepetition, per arm
}

// pinned is an arm's current pinned artifact.
func (a *arms) pinned(arm Arm) PinnedArtifact {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.current[arm]
}

// all is every pin, oldest first.
func (a *arms) all() []PinnedArtifact {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]PinnedArtifact(nil), a.pins...)
}

// restore takes the pins and added repetitions a reopened campaign's journal folds to.
func (a *arms) restore(pins []PinnedArtifact, current map[Arm]PinnedArtifact, extra map[Arm]int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pins, a.current, a.extra = pins, current, extra
}

func (a *arms) add(p PinnedArtifact) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pins = append(a.pins, p)
	if cur, ok := a.current[p.Arm]; !ok || p.Gen >= cur.Gen {
		a.current[p.Arm] = p
	}
}

func (a *arms) markStale(arm Arm) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p, ok := a.current[arm]; ok {
		p.Stale = true
		a.current[arm] = p
	}
}

// repetitions returns the repetition count of an arm (the row's plus AddRepetition's).
func (a *arms) repetitions(arm Arm) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.row.Determinism.Repetitions + a.extra[arm]
}

// addRepetition counts one more repetition of arm (its record is the caller's).
func (a *arms) addRepetition(arm Arm) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.extra[arm]++
}

// source is the file an arm that is not built from source pins: the row's binary, or the
// kvparity executable (its kind says which).
func (a *arms) source(arm Arm) string {
	b, _ := kindOf(a.row.Arm(arm)).Build(context.Background(), a.row.Arm(arm), armkind.BuildOptions{Executable: a.builtin})
	return b.File
}

// verify re-hashes every current pinned copy against artifacts.json: a copy that changed in
// the campaign is never run (the perf stage calls it again before its warmups).
func (a *arms) verify() error {
	for _, arm := range []Arm{Baseline, Candidate} {
		p := a.pinned(arm)
		sum, err := digest.File(filepath.Join(a.dir, p.Path))
		if err != nil {
			return fmt.Errorf("pinned %s artifact: %w", arm, err)
		}
		if sum != p.SHA256 {
			return fmt.Errorf("pinned %s artifact %s was modified after pinning (SHA-256 %s, pinned %s)", arm, p.Path, sum, p.SHA256)
		}
	}
	return verifyTrace(a.dir, *a.trace)
}
