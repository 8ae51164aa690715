package matrix

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"kvparity/engine"
	"kvparity/engine/journal"
	"kvparity/engine/run"
	"kvparity/internal/layout"
	"kvparity/verdict"
	"os"
	"path/filepath"
	"time"
)

// RecMatrixJob is the journal record the matrix appends when one of the row's jobs ended
// (after the job's processes are gone, so it never races the engine's own appends). Note says
// what happened in words; Data holds the JobRecord.
const RecMatrixJob engine.RecordType = "matrix_job"

// A JobRecord is one attempt at a row: a Slurm job or a local run.
type JobRecord struct {
	Mode          string    `json:"mode"` // "slurm" or "local"
	JobID         string    `json:"job_id,omitempty"`
	Submitted     time.Time `json:"submitted"`
	Command       []string  `json:"command"` // the sbatch (or kvparity run) argument vector
	State         JobState  `json:"state"`
	Reason        string    `json:"reason,omitempty"`
	Node          string    `json:"node,omitempty"`
	ExitCode      *int      `json:"exit_code,omitempty"` // kvparity run's status; nil while running or when killed
	Signal        int       `json:"signal,omitempty"`
	Environmental bool      `json:"environmental,omitempty"`
	Ended         time.Time `json:"ended,omitzero"`
	// Placement is where the attempt ran, as the job recorded it (nil when it never started).
	Placement *JobPlacement `json:"placement,omitempty"`
}

// Verdict reports whether the attempt ended with kvparity run's verdict (verdict.ExitPass,
// ExitFail or ExitInconclusive): the row is finished and is not resubmitted.
func (j JobRecord) Verdict() bool {
	return j.ExitCode != nil && *j.ExitCode >= verdict.ExitPass && *j.ExitCode <= verdict.ExitInconclusive && !j.Environmental &&
		(j.State == JobCompleted || j.State == JobFailed)
}

// describe says in words how the attempt ended.
func (j JobRecord) describe() string {
	who := "local run"
	if j.Mode == "slurm" {
		who = "job " + j.JobID
	}
	if j.Node != "" {
		who += " on " + j.Node
	}
	s := fmt.Sprintf("%s: %s", who, j.State)
	if j.Reason != "" {
		s += " (" + j.Reason + ")"
	}
	if j.ExitCode != nil {
		s += fmt.Sprintf(", exit %d", *j.ExitCode)
	}
	if j.Signal != 0 {
		s += fmt.Sprintf(", signal %d", j.Signal)
	}
	if j.Environmental {
		if j.Mode == "slurm" {
			s += ": environmental, the row resumes from its journal when resubmitted"
		} else {
			s += ": environmental, the row resumes from its journal when the matrix runs again"
		}
	}
	return s
}

type jobsLog struct {
	Jobs []JobRecord `json:"jobs"`
}

// ReadJobs returns a row's recorded jobs, oldest first.
func ReadJobs(rowDir string) ([]JobRecord, error) {
	var l jobsLog
	if err := engine.ReadJSONFile(filepath.Join(rowDir, layout.FileJobs), &l); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return l.Jobs, nil
}

func writeJobs(rowDir string, jobs []JobRecord) error {
	return writeJSONFile(filepath.Join(rowDir, layout.FileJobs), jobsLog{Jobs: jobs})
}

// appendJobRecord writes the ended job into the row's journal when the campaign exists, so the
// row's own history (and its report) shows the environmental end next to the runs it cut short.
func appendJobRecord(rowDir string, j JobRecord) error {
	path := filepath.Join(rowDir, layout.FileJournal)
	if _, err := os.Stat(path); err != nil {
		return nil // the job ended before kvparity run created the campaign
	}
	// The row's kvparity run has ended (its job did): wait for nothing, but never append
	// beside a writer that still holds the campaign.
	release, err := run.LockCampaign(rowDir)
	if err != nil {
		return err
	}
	defer release()
	jr, err := journal.Open[engine.Record](path, nil)
	if err != nil {
		return err
	}
	defer jr.Close()
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	_, err = jr.Append(engine.Record{Type: RecMatrixJob, Note: j.describe(), Data: data})
	return err
}
