package main

import (
	"errors"
	"flag"

	"kvparity/verdict"
)

// parseInterleaved parses fs's flags wherever they stand among the positional arguments
// (`kvparity run ROW.toml --campaign DIR`: the flag package alone stops at the first
// positional) and returns the positionals in order. After "--" everything is positional. The
// flag package does the parsing, so -name=value, bool flags and -h behave as it documents;
// -h returns flag.ErrHelp.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// Parse consumed everything before rest; a "--" there ended the flags for good.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagExit is a command's exit status for a flag error: 0 for -h (the flag package printed the
// usage), 3 (usage error) for anything else, which the flag package has already printed too.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return verdict.ExitUsage
}
