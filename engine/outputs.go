package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
	"kvparity/report"
)

// A RepOutput is what one repetition's outputs proved, once canonicalized.
type RepOutput struct {
	Digest      string
	FixedPoint  string // "" when the harness's own output was already canonical
	ReportRel   string // canonical report, relative to the campaign dir
	EvidenceRel string
	Evidence    *report.Evidence
}

// errIO marks a campaign write failure (a full disk): it stops the stage rather than blaming
// the replay.
type errIO struct{ err error }

func (e errIO) Error() string { return e.err.Error() }
func (e errIO) Unwrap() error { return e.err }

// profile is the row's canonicalization profile.
func (r *Row) profile() report.Profile {
	p := report.Profile{Exclusions: append([]string(nil), r.Canonical.Exclusions...), Unordered: map[string]string{}}
	for k, v := range r.Canonical.Unordered {
		p.Unordered[k] = v
	}
	return p
}

// ReadRepetition checks a finished repetition's canonical report file (exactly one record for
// --iterations 1), canonicalizes and digests it, checks the fixed point and replay_bench, and
// extracts the lifecycle evidence. The canonical bytes are kept as report.json; the harness's
// raw file is removed when it was already canonical (it holds the same bytes). A product
// failure (malformed report) is returned as is; a failure to write the campaign as errIO.
func (h campaignHost) ReadRepetition(spec RunSpec) (RepOutput, error) {
	c := h.c
	var out RepOutput
	raw := spec.Outputs().Canonical
	data, err := os.ReadFile(raw)
	if err != nil {
		return out, fmt.Errorf("%s: malformed report: the replay wrote no canonical report (%v)", spec.id, err)
	}
	record, err := singleRecord(data)
	if err != nil {
		return out, fmt.Errorf("%s: malformed report %s: %v", spec.id, raw, err)
	}
	prof := c.row.profile()
	canon, digest, fixedPoint, err := report.CanonicalizeAndDigest(record, prof)
	if err != nil {
		if ptr, ok := report.ProfileMismatch(err); ok {
			// The row's profile does not fit what the harness writes: every later run would be
			// spent and fail the same way, so the stage blocks naming the row, not the report.
			return out, &RowError{File: h.rowFile(), Table: "canonical", Key: "unordered",
				Msg: fmt.Sprintf("does not fit the report (%s, first seen in %s at %q): name arrays of objects and a string member of each element", err, raw, ptr)}
		}
		return out, fmt.Errorf("%s: malformed report %s: %w", spec.id, raw, err)
	}
	out.Digest, out.FixedPoint = digest, fixedPoint
	if err := report.CheckReplayBench(canon); err != nil {
		return out, fmt.Errorf("%s: %s: %w", spec.id, raw, err)
	}
	out.Evidence, err = report.ExtractEvidence(canon, report.EvidenceOptions{QueueThresholdSet: c.row.queueThresholdSet(), PressureBand: c.row.declaredBand()})
	if err != nil {
		return out, fmt.Errorf("%s: lifecycle evidence of %s: %w", spec.id, raw, err)
	}
	reportPath := filepath.Join(spec.Dir, "report.json")
	if err := atomicfile.Update(reportPath, canon, 0o644); err != nil {
		return out, errIO{fmt.Errorf("%s: writing %s: %w", spec.id, reportPath, err)}
	}
	if out.FixedPoint == "" {
		os.Remove(raw)
	}
	out.ReportRel, _ = filepath.Rel(c.dir, reportPath)
	if spec.kind == KindPerturbed {
		out.Evidence = nil // stage 3's evidence is the plain repetitions'; a perturbed run adds its digest
		return out, nil
	}
	evPath := filepath.Join(spec.Dir, layout.FileRunEvidence)
	if err := WriteJSONFile(evPath, out.Evidence); err != nil {
		return out, errIO{fmt.Errorf("%s: writing %s: %w", spec.id, evPath, err)}
	}
	out.EvidenceRel, _ = filepath.Rel(c.dir, evPath)
	// The product metrics beside the evidence: the full report is deleted once it matches, and
	// the campaign report's table of what changed and its latency plots read them from here.
	metrics, err := report.ExtractMetrics(canon)
	if err != nil {
		return out, fmt.Errorf("%s: %s: %w", spec.id, raw, err)
	}
	mPath := filepath.Join(spec.Dir, layout.FileRunMetrics)
	if err := WriteJSONFile(mPath, metrics); err != nil {
		return out, errIO{fmt.Errorf("%s: writing %s: %w", spec.id, mPath, err)}
	}
	return out, nil
}

// rowFile names the campaign's row in errors: the row file it was created from, or the frozen
// copy in the campaign.
func (h campaignHost) rowFile() string {
	c := h.c
	if c.opts.RowPath != "" {
		return c.opts.RowPath
	}
	return filepath.Join(c.dir, layout.FileRow)
}

// singleRecord returns the one canonical record of a --iterations 1 report file (including
// its newline, as the harness wrote it).
func singleRecord(data []byte) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the file is empty")
	}
	if data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("truncated: the last record has no newline (%d bytes)", len(data))
	}
	if n := bytes.Count(data, []byte{'\n'}); n != 1 {
		return nil, fmt.Errorf("%d records, expected exactly 1 (--iterations 1)", n)
	}
	return data, nil
}

// LoadEvidence reads a repetition's evidence file back (for history replay).
func LoadEvidence(path string) *report.Evidence {
	var ev report.Evidence
	if ReadJSONFile(path, &ev) != nil {
		return nil
	}
	return &ev
}
