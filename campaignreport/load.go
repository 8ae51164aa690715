package campaignreport

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"kvparity/engine"
	"kvparity/engine/journal"
	"kvparity/exceptions"
	"kvparity/internal/layout"
	"kvparity/report"
)

// campaign is a campaign directory as recorded: nothing here is recomputed.
type campaign struct {
	dir        string
	row        *engine.Row
	rowSHA     string
	rowTOML    string
	host       engine.HostInfo
	pins       []engine.PinnedArtifact // artifacts.json, oldest first
	trace      engine.TraceChecksums
	hist       *engine.History     // the journal folded by the engine's own rules; its Records are the journal
	perf       engine.PerfProgress // the current artifacts' perf series
	exceptions []exceptions.ExceptionRecord
	warnings   []string // what the report ignored (a torn journal tail), for stderr
}

// load reads a campaign directory. Every error names the file it comes from.
func load(dir string) (*campaign, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	c := &campaign{dir: abs}
	if _, err := os.Stat(filepath.Join(abs, layout.FileJournal)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a campaign directory: it has no %s", dir, layout.FileJournal)
		}
		return nil, err
	}
	journalPath := filepath.Join(abs, layout.FileJournal)
	recs, torn, err := journal.Read[engine.Record](journalPath, journal.RefuseDamage)
	if err != nil {
		return nil, err
	}
	if torn > 0 {
		// Read only: the tail is left in the file (the next resume quarantines it), but said.
		c.warnings = append(c.warnings, fmt.Sprintf("journal %s: ignored a torn last record (%d bytes, no newline: never acknowledged); the journal was not modified, the next resume moves it aside", journalPath, torn))
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: the journal is empty", filepath.Join(abs, layout.FileJournal))
	}
	rowPath := filepath.Join(abs, layout.FileRow)
	rowBytes, err := os.ReadFile(rowPath)
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	// The report states the row the verdicts used: an edited row.toml is said, and the
	// frozen text the journal's founding record holds is read instead.
	var edited *engine.RowEditedError
	if err := engine.CheckFrozenRow(abs, recs); errors.As(err, &edited) {
		frozen, _ := engine.FrozenRowText(recs)
		rowBytes = []byte(frozen)
		c.warnings = append(c.warnings, edited.Error()+"; this report reads the frozen row from the journal")
	} else if err != nil {
		return nil, err
	}
	if c.row, err = engine.ParseRow(rowBytes, rowPath); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(rowBytes)
	c.rowSHA, c.rowTOML = hex.EncodeToString(sum[:]), string(rowBytes)
	if err := engine.ReadJSONFile(filepath.Join(abs, layout.FileHost), &c.host); err != nil {
		return nil, err
	}
	var af struct {
		Artifacts []engine.PinnedArtifact `json:"artifacts"`
	}
	if err := engine.ReadJSONFile(filepath.Join(abs, layout.FileArtifacts), &af); err != nil {
		return nil, err
	}
	c.pins = af.Artifacts
	if err := engine.ReadJSONFile(filepath.Join(abs, filepath.FromSlash(layout.FileTraceSums)), &c.trace); err != nil {
		return nil, err
	}
	if c.exceptions, err = exceptions.LoadExceptions(abs); err != nil {
		return nil, err
	}
	c.hist = engine.FoldJournal(recs, c.row)
	if err := c.hist.CheckArtifacts(filepath.Join(c.dir, layout.FileArtifacts), c.pins); err != nil {
		return nil, err
	}
	c.perf = c.hist.Perf()
	return c, nil
}

// evidence reads a repetition's lifecycle evidence file (nil, nil when it is gone).
func (c *campaign) evidence(rel string) (*report.Evidence, error) {
	if rel == "" {
		return nil, nil
	}
	var ev report.Evidence
	err := engine.ReadJSONFile(filepath.Join(c.dir, filepath.FromSlash(rel)), &ev)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &ev, nil
}

// exists reports whether a campaign-relative path exists.
func (c *campaign) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(c.dir, filepath.FromSlash(rel)))
	return err == nil
}
