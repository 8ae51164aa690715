package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"kvparity/campaignreport"
	"kvparity/verdict"
)

func init() {
	register("clean", "delete a finished campaign's temporary outputs once the report has recorded them", cleanCmd)
}

const cleanUsage = `usage: kvparity clean DIR [--dry-run] [--json]

Protocol stage 9. Deletes the copied binaries, the copied determinism patch, the trace window
and the run outputs (stdout, stderr, timings, progress, full canonical reports) whose digests,
timings and evidence the journal and report.json already record. Keeps the journal, row.toml,
host.json, artifacts.json, schedule.json, exceptions.jsonl, trace/checksums.json, perf/, diffs/,
every evidence.json, report.md and report.json; keeps every output of an unresolved mismatch (an
UNSTABLE arm, a mismatch not fully covered by exception records), of a failed run and of a
failed performance gate, and the binaries while anything is unresolved or unfinished, so the
campaign can resume. Refuses unless report.json is up to date (run 'kvparity report DIR'
first). Prints what it removed and kept, and why; --dry-run removes nothing.

A cleaned campaign still opens (kvparity open, kvparity run --campaign) read-only: its history
replays, but no stage can start; start a new campaign from its row.toml.

exit status: 0 done, 3 usage or input error.
`

func cleanCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, cleanUsage) }
	dry := fs.Bool("dry-run", false, "say what would be removed; remove nothing")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	dir, code, ok := parseDirArgs(fs, args)
	if !ok {
		return code
	}
	plan, err := campaignreport.Clean(dir, *dry)
	if err != nil {
		fmt.Fprintln(stderr, "kvparity clean:", err)
		return verdict.ExitUsage
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(plan); err != nil {
			fmt.Fprintln(stderr, "kvparity clean:", err)
			return verdict.ExitError
		}
		return 0
	}
	plan.WriteText(stdout)
	return 0
}
