package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/verdict"
)

func init() {
	register("init-row", "write a commented example row file to start from", initRowCmd)
}

func initRowCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("init-row", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the row to FILE (refuses to overwrite) instead of stdout")
	checkout := fs.String("checkout", "", "a Dynamo checkout: write a row comparing two of its revisions")
	base := fs.String("baseline", "HEAD", "with --checkout: the baseline's revision (a branch, tag, HEAD, HEAD~8, main@{1}, a commit), written as the full SHA it names now")
	trace := fs.String("trace", "", "with --checkout: the Mooncake trace to replay (default: the checkout's "+checkoutTrace+"), written relative to the row")
	profile := fs.String("profile", build.ProfileDesk, "with --checkout: the arms' build profile: desk (the desk loop's fast build of the release profile: no LTO, many codegen units, incremental; not the release artifact, so never timed) or release (the protocol's artifact, for the performance stage)")
	cand := fs.String("candidate", "worktree", "with --checkout: the candidate's revision (a branch or HEAD stays a ref w follows; any other is written as its full SHA), or \"worktree\" for the working tree as it is on disk")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kvparity init-row [-o FILE]\n       kvparity init-row --checkout PATH [--baseline REF] [--candidate REF|worktree] [--trace PATH] [--profile desk|release] [-o FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kvparity init-row: unexpected argument %q\n", fs.Arg(0))
		return verdict.ExitUsage
	}
	if err := build.CheckProfile(*profile); err != nil {
		fmt.Fprintln(stderr, "kvparity init-row: --profile:", err)
		return verdict.ExitUsage
	}
	if *trace != "" && *checkout == "" {
		fmt.Fprintln(stderr, "kvparity init-row: --trace needs --checkout (the example row names a generated trace: edit its [trace] path)")
		return verdict.ExitUsage
	}
	text := engine.ExampleRowTOML
	if *checkout != "" {
		var err error
		if text, err = checkoutRow(*checkout, *base, *cand, *trace, *profile, *out); err != nil {
			fmt.Fprintf(stderr, "kvparity init-row: %v\n", err)
			return verdict.ExitUsage
		}
	}
	if *out == "" {
		io.WriteString(stdout, text)
		return 0
	}
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		fmt.Fprintf(stderr, "kvparity init-row: %v\n", err)
		return verdict.ExitUsage
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		fmt.Fprintf(stderr, "kvparity init-row: %s: %v\n", *out, err)
		return verdict.ExitUsage
	}
	if err := f.Close(); err != nil {
		fmt.Fprintf(stderr, "kvparity init-row: %s: %v\n", *out, err)
		return verdict.ExitUsage
	}
	fmt.Fprintf(stderr, "wrote %s: edit the arms, trace and args, then `kvparity run %s`\n", *out, *out)
	return 0
}
