// Package build is protocol stage 1 for arms that name a source instead of a binary: it
// obtains the source (a published crate; a commit of a local checkout read through `git
// archive`; a checkout's working tree read by content — the user's checkout is never written),
// checks the row's features against the package manifest, applies kvparity's timing extension
// (replay_execution_ms around the replay loop, the same inserted code for every version) and
// builds Dynamo's offline_replay_bench with one toolchain and one profile. Builds are cached
// outside the campaign, keyed by everything that determines them, so a second campaign does
// not rebuild; a cached entry is used only when its record equals the requested build and its
// files are inside it with their checksums, else it is rebuilt with a warning. Builds compile
// in one kept folder per source (its lineage: a checkout, or a published crate's version), so
// an edit, or a calibrated slowdown, recompiles only the crates it touches; the cache is held
// to a size limit, least recently used first.
//
// It imports internal/atomicfile for the cache's entries, internal/digest for the checksums
// and internal/procgroup to run cargo and git in their own process groups.
//
// # Adding a source kind
//
// An arm of a new kind (a Python harness, a container image) is engine/arm's: one file there
// and one line in its registry. A new way of obtaining Dynamo's source for a Cargo build is
// one file here implementing sourceKind (parse, resolve, fetch, name, identity, revision,
// moves, follow, checkout) and one line in kinds, plus its arm kind in engine/arm (a type
// embedding the Cargo-built kinds' shared part, and its line); rows, the cache, watch mode and
// the matrix ask the kind, never switch on its name.
//
//	build.go      Build, Cached, Options, Info, Progress
//	kinds.go      the source kinds: crate and git, and their registry
//	worktree.go   the worktree kind: a streamed snapshot by content (size limits per file and
//	              in all), its diff against the base commit
//	follow.go     what a source's changes show in (watch mode), and whether it can move
//	lineage.go    a source's kept source and target folders, file times restored
//	cache.go      the cache: its key, and the checks a cached entry must pass to be used
//	prune.go      the cache's size limit, List, Prune (kvparity cache)
//	toolchain.go  the toolchain recorded in a cache, for nodes without one (the matrix)
//	env.go        the build's environment: what kvparity sets, what it inherits and records
//	fetch.go      crate and git fetching, the manifest checks
//	offline.go    offline builds from the source's own lock: a manifest edit the lock does not
//	              follow, said in words with the command that updates the lock
//	extension.go  the timing extension (anchored edits; refuses an unexpected code shape)
//	wiring.go     where the replay core is (registry, or in the tree) and the patch table
//	cargo.go      cargo invocations: own process group, progress from its messages (and
//	              again whenever cargo is silent, as through a long link)
//	buildtest/    a fake cargo and rustc for other packages' tests
package build
