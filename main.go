// Command kvparity is a terminal workbench for the KV replay parity protocol of Dynamo's
// offline KV-aware replay. With no arguments it opens the workbench on the built-in default
// row; subcommands run the same campaign headless, replay traces with the embedded engine,
// and inspect reports.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"kvparity/verdict"
)

// A command is one subcommand: its one-line summary and the function that runs it. run returns
// the process exit status, one of verdict's Exit* statuses.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is filled by the cmd_*.go files, one file per subcommand, so that main stays a
// dispatcher and each command's flags live next to the code that wires it.
var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	if _, dup := commands[name]; dup {
		panic("kvparity: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func main() { os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr)) }

// dispatch picks the subcommand. Anything that is not a subcommand name (no arguments, a row
// file, flags) opens the workbench, so `go run .` and `kvparity ROW.toml` both just work.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			usage(stdout)
			return verdict.ExitPass
		}
		if c, ok := commands[args[0]]; ok {
			return c.run(args[1:], stdout, stderr)
		}
	}
	if c, ok := commands["workbench"]; ok {
		return c.run(args, stdout, stderr)
	}
	usage(stderr)
	return verdict.ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: kvparity [ROW.toml]            open the workbench (default: built-in row)")
	fmt.Fprintln(w, "       kvparity COMMAND [flags] ...")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		if n != "workbench" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'kvparity COMMAND -h' for a command's flags.")
}
