package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kvparity/internal/atomicfile"
)

// Matrix report files, in the matrix folder.
const (
	MatrixReportMD   = "matrix.md"
	MatrixReportJSON = "matrix.json"
)

// A MatrixReport is the combined report: one line per row with its digests, semantic and
// performance verdicts, placement, and links to the row's own report.
type MatrixReport struct {
	Campaign  string            `json:"campaign"`
	Generated time.Time         `json:"generated"`
	ExitCode  int               `json:"exit_code"`
	Verdict   string            `json:"verdict"` // PASS, FAIL or INCONCLUSIVE over every row
	Rows      []MatrixReportRow `json:"rows"`
}

// A MatrixReportRow is one row of the matrix report.
type MatrixReportRow struct {
	Row                string   `json:"row"`
	RowFile            string   `json:"row_file"`
	Stage              string   `json:"stage"`
	Mode               string   `json:"mode"`
	JobID              string   `json:"job_id,omitempty"`
	JobState           JobState `json:"job_state,omitempty"`
	Node               string   `json:"node,omitempty"`
	CPUs               string   `json:"cpus,omitempty"`
	NUMA               []int    `json:"numa_nodes,omitempty"`
	Attempts           int      `json:"attempts"`
	BaselineDigest     string   `json:"baseline_digest,omitempty"`
	CandidateDigest    string   `json:"candidate_digest,omitempty"`
	BaselineStability  string   `json:"baseline_stability,omitempty"`
	CandidateStability string   `json:"candidate_stability,omitempty"`
	Semantic           string   `json:"semantic,omitempty"`
	Perf               string   `json:"perf,omitempty"`
	Footprint          string   `json:"footprint,omitempty"`
	Blocked            string   `json:"blocked,omitempty"`
	Samples            int      `json:"samples"`
	ExitCode           *int     `json:"exit_code,omitempty"`
	Environmental      []string `json:"environmental,omitempty"`
	ReportMD           string   `json:"report_md,omitempty"` // relative to the matrix folder
	ReportJSON         string   `json:"report_json,omitempty"`
}

// buildMatrixReport turns the final statuses into the report.
func buildMatrixReport(dir string, rows []RowStatus, exit int) MatrixReport {
	rep := MatrixReport{Campaign: dir, Generated: time.Now().UTC(), ExitCode: exit, Verdict: exitVerdict(exit)}
	for _, s := range rows {
		r := MatrixReportRow{Row: s.Row, RowFile: s.RowFile, Stage: s.Stage, Mode: s.Mode, JobID: s.JobID,
			JobState: s.JobState, Node: s.Node, CPUs: s.CPUs, NUMA: s.NUMASpan, Attempts: s.Attempts,
			BaselineDigest: s.Digest(Baseline), CandidateDigest: s.Digest(Candidate),
			BaselineStability: s.Stability[Baseline], CandidateStability: s.Stability[Candidate],
			Semantic: s.Semantic, Perf: s.Perf, Footprint: s.Footprint, Blocked: s.Blocked,
			Samples: s.Samples, ExitCode: s.ExitCode, Environmental: s.Environmental}
		for _, f := range []struct {
			name string
			dst  *string
		}{{"report.md", &r.ReportMD}, {"report.json", &r.ReportJSON}} {
			if _, err := os.Stat(filepath.Join(s.Dir, f.name)); err == nil {
				*f.dst = filepath.ToSlash(filepath.Join(s.Row, f.name))
			}
		}
		rep.Rows = append(rep.Rows, r)
	}
	return rep
}

func exitVerdict(code int) string {
	switch code {
	case 0:
		return "PASS"
	case 1:
		return "FAIL"
	}
	return "INCONCLUSIVE"
}

// WriteMatrixReport writes matrix.json and matrix.md into dir.
func WriteMatrixReport(dir string, rep MatrixReport) error {
	if err := writeJSONFile(filepath.Join(dir, MatrixReportJSON), rep); err != nil {
		return fmt.Errorf("matrix report: %w", err)
	}
	if err := atomicfile.Update(filepath.Join(dir, MatrixReportMD), rep.Markdown(), 0o644); err != nil {
		return fmt.Errorf("matrix report: %w", err)
	}
	return nil
}

// Markdown renders the report: a table with one line per row, then the full digests and every
// environmental job end.
func (rep MatrixReport) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# kvparity matrix\n\n")
	fmt.Fprintf(&b, "Campaign `%s` · %d rows · overall **%s** (exit %d) · generated %s\n\n",
		rep.Campaign, len(rep.Rows), rep.Verdict, rep.ExitCode, rep.Generated.Format(time.RFC3339))
	b.WriteString("| row | node | job | CPUs | NUMA | stage | baseline digest | candidate digest | semantic | performance | report |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Rows {
		job := r.JobID
		if r.Mode == "local" {
			job = "local"
		}
		if r.Attempts > 1 {
			job += fmt.Sprintf(" (%d attempts)", r.Attempts)
		}
		stage := r.Stage
		if r.Blocked != "" {
			stage += ": " + r.Blocked
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			mdCell(r.Row), mdCell(r.Node), mdCell(job), mdCell(r.CPUs), mdCell(intList(r.NUMA)), mdCell(stage),
			mdCell(digestCell(r.BaselineDigest, r.BaselineStability)), mdCell(digestCell(r.CandidateDigest, r.CandidateStability)),
			mdCell(r.Semantic), mdCell(perfCell(r)), reportLinks(r))
	}
	b.WriteString("\n## Digests\n\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "- %s: baseline `%s`, candidate `%s`\n", r.Row, orDash(r.BaselineDigest), orDash(r.CandidateDigest))
	}
	var env []string
	for _, r := range rep.Rows {
		for _, e := range r.Environmental {
			env = append(env, fmt.Sprintf("- %s: %s", r.Row, e))
		}
	}
	if len(env) > 0 {
		b.WriteString("\n## Environmental job ends\n\n")
		b.WriteString("These ends say nothing about the revisions; each row resumed (or resumes) from its journal.\n\n")
		b.WriteString(strings.Join(env, "\n") + "\n")
	}
	return b.Bytes()
}

func digestCell(d, stability string) string {
	if d == "" {
		return "—"
	}
	if len(d) > 16 && !strings.HasPrefix(d, "UNSTABLE") {
		d = d[:16] + "…"
	}
	if stability != "" {
		d += " " + stability
	}
	return d
}

func perfCell(r MatrixReportRow) string {
	p := r.Perf
	if r.Footprint == "FAIL" {
		p = strings.TrimSpace(p + " · footprint FAIL")
	}
	return p
}

func reportLinks(r MatrixReportRow) string {
	var l []string
	if r.ReportMD != "" {
		l = append(l, fmt.Sprintf("[report.md](%s)", r.ReportMD))
	}
	if r.ReportJSON != "" {
		l = append(l, fmt.Sprintf("[report.json](%s)", r.ReportJSON))
	}
	if len(l) == 0 {
		return "—"
	}
	return strings.Join(l, " ")
}

func intList(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// mdCellEscaper keeps a value inside its Markdown table cell; built once, not per cell.
var mdCellEscaper = strings.NewReplacer("|", `\|`, "\n", " ")

// mdCell keeps a value inside its table cell.
func mdCell(s string) string { return mdCellEscaper.Replace(orDash(s)) }
