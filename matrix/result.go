package matrix

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"kvparity/campaignreport"
	schedule "kvparity/engine/matrix"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// WriteResult prints the matrix's end on stdout: matrix.json (the last matrix report written)
// with asJSON, else a line naming the overall verdict and matrix.md. It returns the exit status,
// code unless stdout refused the report.
func WriteResult(stdout, stderr io.Writer, res *schedule.Result, report campaignreport.MatrixReport, asJSON bool, code int) int {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			fmt.Fprintf(stderr, "kvparity matrix: %v\n", err)
			return verdict.ExitError
		}
		return code
	}
	fmt.Fprintf(stdout, "matrix %s: %s (exit %d); report %s\n", res.Dir, res.Overall.Verdict,
		res.ExitCode, filepath.Join(res.Dir, layout.FileMatrixMD))
	return code
}

// RecordPlacement runs inside a row's job before `kvparity run`: it records where the job runs.
func RecordPlacement(rowDir string, stdout, stderr io.Writer) int {
	p := schedule.ReadPlacement(os.Getenv, "/sys/devices/system/node")
	if err := schedule.AppendPlacement(rowDir, p); err != nil {
		fmt.Fprintf(stderr, "kvparity matrix: recording the placement: %v\n", err)
		return verdict.ExitUsage
	}
	fmt.Fprintf(stdout, "kvparity: job %s on %s, CPUs %s, NUMA nodes %v\n", p.JobID, p.Node, p.AllowedCPUs, p.NUMASpan)
	return 0
}
