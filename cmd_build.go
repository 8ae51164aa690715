package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"kvparity/driver"
	"kvparity/engine"
	"kvparity/verdict"
)

func init() {
	register("build", "build a row's source arms (published crate or git commit) into the build cache", buildCmd)
}

const buildUsage = `usage: kvparity build ROW.toml [--json]

Builds every arm of the row that names a source (source = "crate:dynamo-bench@VERSION",
"git:PATH@REF" or "worktree:PATH"): the protocol's offline_replay_bench with the row's features, checked against
the package manifest, with kvparity's timing extension (replay_execution_ms), one toolchain for
both arms. Builds are cached (KVPARITY_BUILD_CACHE, default ~/.cache/kvparity/builds) by
everything that determines them; kvparity run and the workbench build the same way when a new
campaign is created, so this is only a way to build ahead of time.

A checkout's builds (git:, worktree:) compile in a kept folder per checkout (its lineage), so a
small edit recompiles only what it touched. kvparity cache lists and prunes the cache.

exit status: 0 built (or cached), 3 usage, input or build error, 128+N stopped by signal N.
`

func buildCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, buildUsage) }
	asJSON := fs.Bool("json", false, "print the build records as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fs.Usage()
		return verdict.ExitUsage
	}
	row, _, err := loadRunRow(pos, "")
	if err != nil {
		fmt.Fprintln(stderr, "kvparity build:", err)
		return verdict.ExitUsage
	}
	ctx, stop := interruptContext()
	defer stop()
	builds, err := engine.BuildArms(ctx, row, "", driver.BuildPrinter(stderr))
	if err != nil {
		fmt.Fprintln(stderr, "kvparity build:", err)
		if code, ok := interruptedExit(ctx); ok {
			return code // stopped by a signal: not a broken build
		}
		return verdict.ExitUsage
	}
	if len(builds) == 0 {
		fmt.Fprintf(stderr, "kvparity build: %s names no source: its arms are given binaries\n", pos[0])
		return verdict.ExitUsage
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(builds)
		return 0
	}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		if b, ok := builds[arm]; ok {
			fmt.Fprintf(stdout, "%-9s %s %s → %s (sha256 %.12s, %d units, %.0f s%s)\n", arm, b.Package, b.Version, b.Binary, b.BinarySHA256, b.Units, b.BuildSeconds, map[bool]string{true: ", cached"}[b.Cached])
			fmt.Fprintf(stdout, "          features %v · %s · lock sha256 %.12s · timing extension sha256 %.12s\n", b.Features, b.Profile, b.LockSHA256, b.ExtensionSHA256)
			if b.Variant != "" {
				fmt.Fprintf(stdout, "          variant %s built in (its own diff: %s, sha256 %.12s)\n", b.Variant, b.VariantPatch, b.VariantPatchSHA256)
			}
		}
	}
	return 0
}
