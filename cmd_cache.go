package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"kvparity/engine/build"
	"kvparity/ui/text"
	"kvparity/verdict"
)

func init() {
	register("cache", "list or prune the build cache (built binaries and lineages, their kept build folders)", cacheCmd)
}

const cacheUsage = `usage: kvparity cache [list] [--json]
       kvparity cache prune [--max SIZE] [--all]

The build cache (KVPARITY_BUILD_CACHE, an absolute path; default ~/.cache/kvparity/builds) holds
every arm kvparity built from source — its binary, build record and applied patches — and one
lineage per checkout (its kept source and cargo target folders, so an edit rebuilds
incrementally). After every build it is held to KVPARITY_BUILD_CACHE_LIMIT (default 30G; "off"
for no limit; otherwise the sizes --max takes), least recently used first; a build running now is
never removed. Campaigns keep their own pinned copies: pruning the cache never changes a campaign.

  list             every entry, least recently used first, with its size and source
  prune --max 10G  remove least recently used entries until the cache holds at most 10G
  prune --all      remove every entry no build is using

exit status: 0 done, 3 usage error (or a refused KVPARITY_BUILD_CACHE or _LIMIT), 4 the cache could
not be read or changed.
`

func cacheCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cache", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, cacheUsage) }
	asJSON := fs.Bool("json", false, "list: print the entries as JSON")
	maxSize := fs.String("max", "", "prune: the size to prune the cache down to (e.g. 10G)")
	all := fs.Bool("all", false, "prune: remove every entry not in use")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	action := "list"
	if len(pos) > 0 {
		action = pos[0]
	}
	if len(pos) > 1 || (action != "list" && action != "prune") {
		fs.Usage()
		return verdict.ExitUsage
	}
	cache, err := build.DefaultCache()
	if err != nil {
		fmt.Fprintln(stderr, "kvparity cache:", err)
		return settingExit(err)
	}
	if action == "prune" {
		limit := int64(1) // --all: nothing fits, every idle entry goes
		switch {
		case *all && *maxSize != "":
			fmt.Fprintln(stderr, "kvparity cache prune: give --max or --all, not both")
			return verdict.ExitUsage
		case *maxSize != "":
			// The parser of KVPARITY_BUILD_CACHE_LIMIT: both take and refuse the same sizes (0
			// and "off", no limit for the setting, prune nothing here: --all prunes everything).
			if limit, err = build.ParseSize(*maxSize); err != nil || limit == 0 {
				fmt.Fprintf(stderr, "kvparity cache prune: --max %s: give a size above zero, e.g. 10G\n", *maxSize)
				return verdict.ExitUsage
			}
		case !*all:
			fmt.Fprintln(stderr, "kvparity cache prune: give --max SIZE or --all")
			return verdict.ExitUsage
		}
		removed, err := build.Prune(cache, limit)
		var freed int64
		for _, e := range removed {
			freed += e.Bytes
			fmt.Fprintf(stdout, "removed %-7s %8s  %s\n", e.Kind, text.Bytes(e.Bytes), orDash(e.Source))
		}
		fmt.Fprintf(stdout, "%d entries removed, %s freed\n", len(removed), text.Bytes(freed))
		if err != nil {
			fmt.Fprintln(stderr, "kvparity cache prune:", err)
			return verdict.ExitError
		}
		return verdict.ExitPass
	}
	limit, err := build.Limit() // checked before listing: a bad setting is said, not shown as the default
	if err != nil {
		fmt.Fprintln(stderr, "kvparity cache:", err)
		return settingExit(err)
	}
	entries, err := build.List(cache)
	if err != nil {
		fmt.Fprintln(stderr, "kvparity cache:", err)
		return verdict.ExitError
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if entries == nil {
			entries = []build.Entry{}
		}
		enc.Encode(entries)
		return verdict.ExitPass
	}
	var total int64
	for _, e := range entries {
		total += e.Bytes
		busy := ""
		if e.Busy {
			busy = "  (building now)"
		}
		fmt.Fprintf(stdout, "%-7s %8s  used %s  %s%s\n", e.Kind, text.Bytes(e.Bytes), e.LastUsed.UTC().Format(time.DateTime), orDash(e.Source), busy)
	}
	held := "no limit"
	if limit > 0 {
		held = "limit " + text.Bytes(limit)
	}
	fmt.Fprintf(stdout, "%d entries, %s in %s (%s)\n", len(entries), text.Bytes(total), cache, held)
	return verdict.ExitPass
}

// settingExit is the exit status of a cache error: a refused environment setting is a usage
// error (3), anything else kvparity's own failure (4).
func settingExit(err error) int {
	if _, ok := errors.AsType[*build.SettingError](err); ok {
		return verdict.ExitUsage
	}
	return verdict.ExitError
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
