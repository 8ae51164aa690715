package main

import (
	"fmt"
	"io"
	"strings"

	"kvparity/exceptions"
	"kvparity/verdict"
)

func init() {
	register("exceptions", "list or delete a campaign's semantic-exception records", runExceptions)
}

// runExceptions is `kvparity exceptions list CAMPAIGN` and
// `kvparity exceptions delete CAMPAIGN ID`. Records are drafted in the workbench's diff pane;
// this is the headless view of <campaign>/exceptions.jsonl (validated on every read).
func runExceptions(args []string, stdout, stderr io.Writer) int {
	usage := func() int {
		fmt.Fprintln(stderr, "usage: kvparity exceptions list CAMPAIGN_DIR")
		fmt.Fprintln(stderr, "       kvparity exceptions delete CAMPAIGN_DIR ID")
		return verdict.ExitUsage
	}
	if len(args) < 2 {
		return usage()
	}
	switch args[0] {
	case "list":
		if len(args) != 2 {
			return usage()
		}
		recs, err := exceptions.LoadExceptions(args[1])
		if err != nil {
			fmt.Fprintln(stderr, "kvparity exceptions:", err)
			return verdict.ExitUsage
		}
		if len(recs) == 0 {
			fmt.Fprintln(stdout, "no exception records")
			return 0
		}
		for _, r := range recs {
			fmt.Fprintf(stdout, "%s  %s\n", r.ID, strings.Join(r.Pointers, ", "))
			for _, f := range [][2]string{
				{"differs", r.Differs}, {"baseline", r.Baseline}, {"candidate", r.Candidate},
				{"cause", r.Cause}, {"regression test", r.RegressionTest}, {"impact", r.Impact},
				{"disposition", r.Disposition},
			} {
				fmt.Fprintf(stdout, "    %-16s %s\n", f[0]+":", f[1])
			}
			if len(r.Requests) > 0 {
				fmt.Fprintf(stdout, "    %-16s %s\n", "requests:", strings.Join(r.Requests, ", "))
			}
			if len(r.Events) > 0 {
				fmt.Fprintf(stdout, "    %-16s %s\n", "events:", strings.Join(r.Events, ", "))
			}
		}
		return 0
	case "delete":
		if len(args) != 3 {
			return usage()
		}
		if err := exceptions.DeleteException(args[1], args[2]); err != nil {
			fmt.Fprintln(stderr, "kvparity exceptions:", err)
			return verdict.ExitUsage
		}
		fmt.Fprintln(stdout, "deleted", args[2])
		return 0
	}
	return usage()
}
