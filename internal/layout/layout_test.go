package layout

import (
	"path"
	"testing"
)

// Every name is a clean, relative, slash-separated path, and no two files of one folder share
// a name (a campaign folder is also a matrix row's folder, so their files share one namespace).
func TestNamesAreDistinctRelativePaths(t *testing.T) {
	folders := map[string][]string{
		"campaign or matrix row": {FileRow, FileHost, FileArtifacts, FileJournal, FileSchedule, FileTraceSums, FileWindow,
			FileExceptions, FileReportMD, FileReportJSON, FileSummaryMD, FileLock, DirRuns, DirArtifacts, DirPatch, DirPerf, DirDiffs, DirPlots,
			FileJobs, FilePlacement, FileJobScript, FileLocalRunOutput, DirInstructions},
		"matrix": {FileMatrixMD, FileMatrixJSON, FileMatrixLock, MatrixBinary},
		"run":    {FileRunEvidence, FileRunMetrics},
	}
	for folder, names := range folders {
		seen := map[string]bool{}
		for _, n := range names {
			if n == "" || path.IsAbs(n) || path.Clean(n) != n {
				t.Errorf("%s folder: %q is not a clean relative path", folder, n)
			}
			if seen[n] {
				t.Errorf("%s folder: %q names two files", folder, n)
			}
			seen[n] = true
		}
	}
}
