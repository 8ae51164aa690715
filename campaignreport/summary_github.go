package campaignreport

import (
	"errors"
	"fmt"
	"os"
)

// EnvStepSummary is the variable GitHub Actions sets to the file of the job's summary.
const EnvStepSummary = "GITHUB_STEP_SUMMARY"

// githubSummary is summary.md as a GitHub Actions job summary: the same sections, the charts
// drawn from the text and the image files named, not shown (a job summary cannot load an
// image of the job's workspace; the workflow uploads plots/ as an artifact).
func githubSummary(r *Report) []byte { return summary(r, "") }

// AppendStepSummary appends githubSummary to the file $GITHUB_STEP_SUMMARY names. appended is
// false, with no error, when the variable is not set (not running under GitHub Actions).
func AppendStepSummary(r *Report) (path string, appended bool, err error) {
	path = os.Getenv(EnvStepSummary)
	if path == "" {
		return "", false, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return path, false, fmt.Errorf("$%s is %s, which cannot be opened for appending: %w", EnvStepSummary, path, err)
	}
	_, werr := f.Write(githubSummary(r))
	if err := errors.Join(werr, f.Close()); err != nil {
		return path, false, fmt.Errorf("$%s is %s, which could not be written: %w", EnvStepSummary, path, err)
	}
	return path, true, nil
}
