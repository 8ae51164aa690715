// Command releasetable diffs the real pairs of Dynamo release replays that
// scripts/release-pairs.py writes and prints the per-pair table of issue 26: differing
// pointers, the causes the diagnosis names (each with what it explains), and the share left
// "unclassified", with the time of each diff and diagnosis.
//
//	go run ./diffview/internal/releasetable [-json] PAIRS.tsv
//
// PAIRS.tsv has one pair per line: name, A records, B records, A summary, B summary (tabs).
//
// It imports diffview for the pairs of release files it reads (ReleaseRun) and
// diffview/diagnose for the diff and the diagnosis it times.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	asJSON := flag.Bool("json", false, "print the rows as JSON")
	flag.Usage = func() { fmt.Fprintln(os.Stderr, "usage: releasetable [-json] PAIRS.tsv") }
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(run(flag.Arg(0), *asJSON, os.Stdout, os.Stderr))
}

func run(manifest string, asJSON bool, stdout, stderr io.Writer) int {
	pairs, err := readPairs(manifest)
	if err != nil {
		fmt.Fprintln(stderr, "releasetable:", err)
		return 2
	}
	rows, err := measure(pairs)
	if err != nil {
		fmt.Fprintln(stderr, "releasetable:", err)
		return 1
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			fmt.Fprintln(stderr, "releasetable:", err)
			return 1
		}
		return 0
	}
	fmt.Fprint(stdout, markdown(rows))
	return 0
}
