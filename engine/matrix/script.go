package matrix

import (
	"bytes"
	"fmt"
	"strings"

	"kvparity/verdict"
)

// A jobScript is the batch script that runs one row on one whole node. sbatch hands it to a
// shell on the node; kvparity itself never starts a shell.
type jobScript struct {
	Row       string   // row name (the job name is kvparity-<row>)
	RowFile   string   // absolute path of the row file, on the shared filesystem
	RowDir    string   // absolute DIR/ROW: the row's campaign
	Binary    string   // absolute path of the kvparity copy in DIR
	Partition string   // "" for the cluster's default
	RunArgs   []string // extra arguments of `kvparity run` (after --campaign)
	// BuildCache is the build cache the matrix built the rows' source arms into: the job's
	// kvparity reads its builds from there (KVPARITY_BUILD_CACHE) instead of compiling.
	BuildCache string
	// Note is a comment saying what the job is, when it is not the row's own job ("" none).
	Note string
}

// render writes the script. Rows never share a node (--exclusive, --nodes=1), so a row's
// performance samples see no other replay. The script records the job's placement from inside
// the job, runs `kvparity run`, writes the row's report (`kvparity report`, which the matrix
// report links) and exits with kvparity run's status (0/1/2/3), which becomes the job's.
func (j jobScript) render() []byte {
	var b bytes.Buffer
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=kvparity-%s\n", j.Row)
	b.WriteString("#SBATCH --nodes=1\n")
	b.WriteString("#SBATCH --ntasks=1\n")
	b.WriteString("#SBATCH --exclusive\n")
	// No automatic requeue: Slurm would restart the row on any node after a node failure or
	// preemption; the matrix resubmits it to the node it started on instead.
	b.WriteString("#SBATCH --no-requeue\n")
	fmt.Fprintf(&b, "#SBATCH --output=%s/slurm-%%j.out\n", j.RowDir)
	b.WriteString("#SBATCH --open-mode=append\n")
	fmt.Fprintf(&b, "#SBATCH --chdir=%s\n", j.RowDir)
	if j.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", j.Partition)
	}
	b.WriteString("# Written by kvparity matrix. Resubmitting it resumes the row from its journal.\n")
	if j.Note != "" {
		fmt.Fprintf(&b, "# %s\n", j.Note)
	}
	if j.BuildCache != "" {
		fmt.Fprintf(&b, "KVPARITY_BUILD_CACHE=%s\nexport KVPARITY_BUILD_CACHE\n", shellQuote(j.BuildCache))
	}
	fmt.Fprintf(&b, "%s matrix --record-placement %s || exit %d\n", shellQuote(j.Binary), shellQuote(j.RowDir), verdict.ExitUsage)
	run := []string{j.Binary, "run", j.RowFile, "--campaign", j.RowDir}
	run = append(run, j.RunArgs...)
	quoted := make([]string, len(run))
	for i, a := range run {
		quoted[i] = shellQuote(a)
	}
	fmt.Fprintf(&b, "%s\n", strings.Join(quoted, " "))
	b.WriteString("status=$?\n")
	fmt.Fprintf(&b, "%s report %s\n", shellQuote(j.Binary), shellQuote(j.RowDir))
	b.WriteString("exit $status\n")
	return b.Bytes()
}

// shellQuote quotes s for a POSIX shell: single quotes, with embedded ones closed and escaped.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
