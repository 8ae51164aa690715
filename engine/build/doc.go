// Package build is protocol stage 1 for arms that name a source instead of a binary: it
// obtains the source (a published crate, or one commit of a local checkout read through `git
// archive`, so the user's checkout is never touched), checks the row's features against the
// package manifest, applies kvparity's timing extension (replay_execution_ms around the replay
// loop, the same inserted code for every version) and builds Dynamo's offline_replay_bench with
// one toolchain and one profile. Builds are cached outside the campaign, keyed by everything
// that determines them, so a second campaign does not rebuild; a cached entry is used only
// when its record equals the requested build and its files are inside it with their
// checksums, else it is rebuilt with a warning.
//
// It imports internal/atomicfile for the cache's entries, internal/digest for the checksums
// and internal/procgroup to run cargo and git in their own process groups.
//
//	build.go      Build, Options, Info, Progress
//	cache.go      the cache: its key, and the checks a cached entry must pass to be used
//	env.go        the build's environment: what kvparity sets, what it inherits and records
//	fetch.go      crate and git sources, the manifest checks
//	extension.go  the timing extension (anchored edits; refuses an unexpected code shape)
//	cargo.go      cargo invocations: own process group, progress from its messages
package build
