package engine

import (
	"errors"
	"io/fs"
	"kvparity/engine/journal"
	"os"
	"path/filepath"

	"kvparity/engine/run"
)

// A campaign cleaned by protocol stage 9 (kvparity clean) keeps its journal, row, host and
// checksums but no longer has its pinned binaries or trace window. Open still opens it, read
// only: the history replays as events and Summary works, but no stage can start and nothing is
// appended to the journal (a run would need the deleted files, and re-pinning would mix new
// artifacts into a finished record).

// errCleaned refuses every stage, repetition, watch and journal append on a cleaned campaign.
var errCleaned = errors.New("campaign was cleaned: binaries and trace window removed; start a new campaign from row.toml")

// isCleaned reports whether the trace window and every current pinned copy are gone: what
// stage 9 removes together. A campaign missing only some of them is damaged, not cleaned, and
// Open reports the missing file.
func isCleaned(dir string, trace TraceChecksums, pins map[Arm]PinnedArtifact) bool {
	gone := func(rel string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		return errors.Is(err, fs.ErrNotExist)
	}
	if len(pins) == 0 || !gone(trace.Window) {
		return false
	}
	for _, p := range pins {
		if !gone(p.Path) {
			return false
		}
	}
	return true
}

// An unwritableError refuses every stage, repetition, watch and journal append on a campaign
// whose folder nobody can write (run.TryLock found it so). It opens read-only as a cleaned or
// followed one does, through the same refusal.
type unwritableError struct{ *run.UnwritableError }

func (e *unwritableError) Error() string { return "read-only: " + e.UnwritableError.Error() }

func (e *unwritableError) Unwrap() error { return e.UnwritableError }

// refusal is why nothing may be started or written here (nil when the campaign is writable).
func (c *Campaign) refusal() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readOnly
}

// readOnlyJournal holds recs and refuses every append with why.
func readOnlyJournal(path string, recs []Record, why error) *campaignJournal {
	return journal.ReadOnly[Record](path, recs, why)
}
