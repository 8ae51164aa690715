package campaignreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// Write writes report.md, report.json, summary.md (the report sized for a pull request) and
// the plots under plots/ into the campaign directory dir (and the focused diffs under diffs/
// when canonical reports disagree). It reads only what the campaign recorded, so writing it
// twice on an unchanged campaign gives the same bytes. The workbench's save key
// and `kvparity report DIR` both call it.
func Write(dir string) error {
	_, err := WriteReport(dir)
	return err
}

// Build returns the report of a campaign without writing anything (for tests and tools that
// want the figures).
func Build(dir string) (*Report, error) {
	c, err := load(dir)
	if err != nil {
		return nil, err
	}
	r, _, err := c.assemble()
	return r, err
}

// assemble is build with what the report derives from the figures it built: both arms' product
// metrics and the names of the plots drawn from them (drawn only when the report is written).
func (c *campaign) assemble() (*Report, map[string][]byte, error) {
	r, files, err := c.build()
	if err != nil {
		return nil, nil, err
	}
	if r.Metrics, err = c.armMetrics(r.Arms); err != nil {
		return nil, nil, err
	}
	r.Plots = plotNames(r)
	r.LoadPreflight = c.loadPreflight()
	r.dir = c.dir
	return r, files, nil
}

// Assess is the campaign's verdicts: exactly what its report would say, computed by the same
// build (the journal's fold, the exception coverage of a byte mismatch, verdict.Decide), with
// nothing written. The headless run, diff --campaign, the workbench header and the matrix all
// read their words from it, so no surface can disagree with report.json.
func Assess(dir string) (verdict.Verdicts, error) {
	c, err := load(dir)
	if err != nil {
		return verdict.Verdicts{}, err
	}
	r, _, err := c.build() // the verdicts never read the metrics or the plots
	if err != nil {
		return verdict.Verdicts{}, err
	}
	return r.Verdicts(), nil
}

// WriteReport is Write returning the report it wrote.
func WriteReport(dir string) (*Report, error) { return WriteReportWith(dir, Options{}) }

// WriteReportWith is WriteReport with the report command's options (an image base URL for
// summary.md), checked before anything is read or written.
func WriteReportWith(dir string, o Options) (*Report, error) {
	base, err := imageBase(o.ImageBaseURL)
	if err != nil {
		return nil, fmt.Errorf("campaign report: %w", err)
	}
	c, err := load(dir)
	if err != nil {
		return nil, err
	}
	r, files, err := c.assemble()
	if err != nil {
		return nil, err
	}
	r.Warnings = c.warnings
	images, err := renderPlots(r)
	if err != nil {
		return nil, fmt.Errorf("campaign report: %w", err)
	}
	for n, b := range images {
		files[n] = b
	}
	files[layout.FileSummaryMD] = summary(r, base)
	js, err := encodeJSON(r)
	if err != nil {
		return nil, err
	}
	files[layout.FileReportJSON] = js
	files[layout.FileReportMD] = markdown(r)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	// report.json last: it is the record readers trust (clean checks its journal seq), so a kill
	// between two renames leaves an old report.json that says it is stale, never a new
	// report.json beside an old report.md.
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == layout.FileReportJSON) != (names[j] == layout.FileReportJSON) {
			return names[j] == layout.FileReportJSON
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		// Never through a symbolic link: the report stays inside the campaign.
		path := filepath.Join(c.dir, filepath.FromSlash(n))
		if err := atomicfile.WriteIn(c.dir, path, files[n], 0o644); err != nil {
			if why := atomicfile.Unwritable(err); why != "" {
				return nil, fmt.Errorf("campaign report: %s: the report cannot be written: campaign folder %s cannot be written (%s)", path, c.dir, why)
			}
			return nil, fmt.Errorf("campaign report: %w", err)
		}
	}
	return r, nil
}

func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
