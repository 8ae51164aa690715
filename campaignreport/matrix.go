package campaignreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kvparity/engine"
	"kvparity/engine/instrument"
	"kvparity/engine/matrix"
	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// The matrix report (protocol "Campaign concurrency"): matrix.json and matrix.md in the matrix
// folder. engine/matrix has it written through its Options.Report after every job end and when
// it returns; main's hook builds it (BuildMatrixReport) and writes it (WriteMatrixReport).

// A MatrixReport is the combined report (matrix.json): the worst overall verdict over every
// row and one line per row with its verdicts (the same words as the row's own report.json, in
// the shared schema), digests, placement and links to the row's report.
type MatrixReport struct {
	SchemaVersion int               `json:"schema_version"`
	Kind          string            `json:"kind"`
	Overall       verdict.Outcome   `json:"overall"`
	ExitCode      int               `json:"exit_code"`
	Campaign      string            `json:"campaign"`
	Generated     time.Time         `json:"generated"`
	Rows          []MatrixReportRow `json:"rows"`
}

// A MatrixReportRow is one row of the matrix report: the row's verdict document (from its
// report.json; Undecided while it has none) and where and how far it ran.
type MatrixReportRow struct {
	verdict.Document
	Row             string          `json:"row"`
	RowFile         string          `json:"row_file"`
	Stage           matrix.RowStage `json:"stage"`
	Mode            string          `json:"mode"`
	JobID           string          `json:"job_id,omitempty"`
	JobState        matrix.JobState `json:"job_state,omitempty"`
	Node            string          `json:"node,omitempty"`
	CPUs            string          `json:"cpus,omitempty"`
	NUMA            []int           `json:"numa_nodes,omitempty"`
	Attempts        int             `json:"attempts"`
	BaselineDigest  string          `json:"baseline_digest,omitempty"`
	CandidateDigest string          `json:"candidate_digest,omitempty"`
	Samples         int             `json:"samples"`
	RunExitCode     *int            `json:"run_exit_code,omitempty"` // the row's kvparity run exit status
	Environmental   []string        `json:"environmental,omitempty"`
	ReportMD        string          `json:"report_md,omitempty"` // relative to the matrix folder
	ReportJSON      string          `json:"report_json,omitempty"`
	// Instructions is the row's instruction-count result as its report states it (nil: not
	// counted), a secondary measure that decides nothing; InstructionsFrom is the folder,
	// relative to the row's, of the campaign that counted it when not the row's own (the
	// instruction job of a Slurm matrix); InstructionsJob is that job (nil: the row has none).
	Instructions     *instrument.InstructionResult `json:"instructions"`
	InstructionsFrom string                        `json:"instructions_from,omitempty"`
	InstructionsJob  *matrix.InstructionsJob       `json:"instructions_job,omitempty"`
	// Evidence is the row's trace window and every stage-3 rule per arm, from its report.json
	// (nil while it has none).
	Evidence *MatrixRowEvidence `json:"evidence,omitempty"`
}

// BuildMatrixReport turns the rows' statuses into the report; overall is the matrix's verdict
// (matrix.Result.Overall).
func BuildMatrixReport(dir string, rows []matrix.RowStatus, overall verdict.Outcome) MatrixReport {
	rep := MatrixReport{SchemaVersion: verdict.SchemaVersion, Kind: verdict.KindMatrix, Overall: overall,
		ExitCode: verdict.ExitCode(overall.Verdict), Campaign: dir, Generated: time.Now().UTC(), Rows: []MatrixReportRow{}}
	for _, s := range rows {
		v := verdict.Verdicts{Overall: s.Overall(), ExitCode: verdict.ExitCode(s.Overall().Verdict), Blocked: []string{}}
		if s.Verdicts != nil {
			v = *s.Verdicts
		}
		r := MatrixReportRow{Document: verdict.NewDocument(verdict.KindRow, v), Row: s.Row, RowFile: s.RowFile, Stage: s.Stage, Mode: s.Mode, JobID: s.JobID,
			JobState: s.JobState, Node: s.Node, CPUs: s.CPUs, NUMA: s.NUMASpan, Attempts: s.Attempts,
			BaselineDigest: armDigest(s, engine.Baseline), CandidateDigest: armDigest(s, engine.Candidate),
			Samples: s.Samples, RunExitCode: s.ExitCode, Environmental: s.Environmental, InstructionsJob: s.InstructionsJob}
		r.Instructions, r.InstructionsFrom = rowInstructions(s.Dir)
		r.Evidence = rowEvidence(s.Dir)
		for _, f := range []struct {
			name string
			dst  *string
		}{{layout.FileReportMD, &r.ReportMD}, {layout.FileReportJSON, &r.ReportJSON}} {
			if _, err := os.Stat(filepath.Join(s.Dir, f.name)); err == nil {
				*f.dst = filepath.ToSlash(filepath.Join(s.Row, f.name))
			}
		}
		rep.Rows = append(rep.Rows, r)
	}
	return rep
}

// WriteMatrixReport writes matrix.json and matrix.md into dir.
func WriteMatrixReport(dir string, rep MatrixReport) error {
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("matrix report: %w", err)
	}
	if err := atomicfile.Update(filepath.Join(dir, layout.FileMatrixJSON), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("matrix report: %w", err)
	}
	if err := atomicfile.Update(filepath.Join(dir, layout.FileMatrixMD), rep.markdown(), 0o644); err != nil {
		return fmt.Errorf("matrix report: %w", err)
	}
	return nil
}

// markdown renders the report: a table with one line per row, then the full digests and every
// environmental job end.
func (rep MatrixReport) markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# kvparity matrix\n\n")
	fmt.Fprintf(&b, "Campaign %s · %d rows · overall **%s** (exit %d) · generated %s\n\n",
		mdCode(rep.Campaign), len(rep.Rows), rep.Overall.Verdict, rep.ExitCode, rep.Generated.Format(time.RFC3339))
	if !rep.Overall.Verdict.Passes() {
		fmt.Fprintf(&b, "Why: %s\n\n", mdText(rep.Overall.Reason))
	}
	b.WriteString("| row | node | job | CPUs | NUMA | stage | baseline digest | candidate digest | semantic | performance | footprint | instructions | overall | report |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Rows {
		job := r.JobID
		if r.Mode == "local" {
			job = "local"
		}
		if r.Attempts > 1 {
			job += fmt.Sprintf(" (%d attempts)", r.Attempts)
		}
		stage := string(r.Stage)
		if len(r.Blocked) > 0 {
			stage += ": " + strings.Join(r.Blocked, "; ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			mdCell(r.Row), mdCell(r.Node), mdCell(job), mdCell(r.CPUs), mdCell(intList(r.NUMA)), mdCell(stage),
			mdCell(digestCell(r.BaselineDigest, r.Determinism.Baseline.Verdict)), mdCell(digestCell(r.CandidateDigest, r.Determinism.Candidate.Verdict)),
			r.Semantic.Verdict, r.Performance.Verdict, r.Footprint.Verdict, mdCell(instructionsCell(r)), r.Overall.Verdict, reportLinks(r))
	}
	b.WriteString("\n## Digests\n\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "- %s: baseline %s, candidate %s\n", mdText(r.Row), mdCode(orDash(r.BaselineDigest)), mdCode(orDash(r.CandidateDigest)))
	}
	rep.evidenceMarkdown(&b)
	var jobs []string
	for _, r := range rep.Rows {
		if j := r.InstructionsJob; j != nil && j.JobID != "" {
			jobs = append(jobs, fmt.Sprintf("- %s: job %s%s, %s%s, campaign %s", mdText(r.Row), mdText(j.JobID), mdText(onNodeText(j.Node)),
				j.JobState, jobExit(j.ExitCode), mdCode(filepath.ToSlash(filepath.Join(r.Row, layout.DirInstructions))+"/")))
		}
	}
	if len(jobs) > 0 {
		b.WriteString("\n## Instruction counts in jobs of their own\n\n")
		b.WriteString("On Slurm a row that declares `[perf] instructions_runs` counts them in a second exclusive job, beside the row's (which runs `--no-instructions`), in a campaign of their own; the row's report states them when they counted the row's artifacts. A secondary measure: it decides nothing.\n\n")
		b.WriteString(strings.Join(jobs, "\n") + "\n")
	}
	var env []string
	for _, r := range rep.Rows {
		for _, e := range r.Environmental {
			env = append(env, fmt.Sprintf("- %s: %s", mdText(r.Row), mdText(e)))
		}
		if j := r.InstructionsJob; j != nil {
			for _, e := range j.Environmental {
				env = append(env, fmt.Sprintf("- %s (instruction counts): %s", mdText(r.Row), mdText(e)))
			}
		}
	}
	if len(env) > 0 {
		b.WriteString("\n## Environmental job ends\n\n")
		b.WriteString("These ends say nothing about the revisions; each row resumed (or resumes) from its journal.\n\n")
		b.WriteString(strings.Join(env, "\n") + "\n")
	}
	return b.Bytes()
}

// instructionsCell is the row's instruction-count ratio with its spread ("explain" above the
// threshold, "job of its own" when the row's instruction job counted it), the instruction
// job's state while it has no result, or "not counted".
func instructionsCell(r MatrixReportRow) string {
	if in := r.Instructions; in != nil {
		s := fmt.Sprintf("%.4f ±%.3f%%", in.Ratio, 100*in.Spread)
		if in.Explain {
			s += fmt.Sprintf(" explain (> %.2f)", in.Threshold)
		}
		if r.InstructionsFrom != "" {
			s += " (job of its own)"
		}
		return s
	}
	if j := r.InstructionsJob; j != nil && j.JobID != "" {
		if !j.JobState.Terminal() {
			return fmt.Sprintf("counting: job %s %s", j.JobID, j.JobState)
		}
		return fmt.Sprintf("not counted (job %s %s%s)", j.JobID, j.JobState, jobExit(j.ExitCode))
	}
	return "not counted"
}

func onNodeText(n string) string {
	if n == "" {
		return ""
	}
	return " on " + n
}

func jobExit(code *int) string {
	if code == nil {
		return ""
	}
	return fmt.Sprintf(", exit %d", *code)
}

func digestCell(d string, stability verdict.Word) string {
	if d == "" {
		return "—"
	}
	if len(d) > 16 && !strings.HasPrefix(d, "UNSTABLE") {
		d = d[:16] + "…"
	}
	if stability.Decided() {
		d += " " + stability.String()
	}
	return d
}

func reportLinks(r MatrixReportRow) string {
	var l []string
	if r.ReportMD != "" {
		l = append(l, fmt.Sprintf("[report.md](%s)", mdURL(r.ReportMD)))
	}
	if r.ReportJSON != "" {
		l = append(l, fmt.Sprintf("[report.json](%s)", mdURL(r.ReportJSON)))
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

// mdCell is a value as the text of its table cell, a dash standing for an empty one.
func mdCell(s string) string { return cell(mdText(orDash(s))) }

// armDigest is an arm's digest as the matrix report shows it: the one digest, "UNSTABLE (n
// digests)" when the repetitions disagreed, or "" before any.
func armDigest(s matrix.RowStatus, a engine.Arm) string {
	switch d := s.Digests[a]; len(d) {
	case 0:
		return ""
	case 1:
		return d[0]
	default:
		return fmt.Sprintf("UNSTABLE (%d digests)", len(d))
	}
}
