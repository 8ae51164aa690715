// Package arm is the arm as a plug-in point: one Kind per way a row names an arm's artifact
// (the embedded engine, a given binary, a published crate, a checkout's commit, a checkout's
// working tree), and everything the campaign asks of an arm goes through it: how its table is
// read and checked, how its artifact is obtained and built, what is pinned, the argv of a
// replay, timed or probe run, the files a run writes (and where its canonical report is), and
// what the footprint measures. The campaign (engine) asks an arm's kind and never switches on
// its name.
//
// It imports engine/build, whose source kinds obtain Dynamo's source and whose Cargo recipes,
// cache and timing extension build it, for the crate, git and worktree kinds; and engine/instrument
// for a footprint's measures (the sizes the footprint gate compares, the region the instruction
// count reads).
//
//	kind.go      Spec (a row's arm table), Kind, and what its methods take and give
//	kinds.go     the registry: Of (a table's kind), Register (a test's kind); kinds_test.go
//	             holds each kind's argv to the one the campaign has always started
//	builtin.go   the embedded engine: `kvparity replay`, its variant and progress file
//	binary.go    a prebuilt offline_replay_bench named by its path
//	cargo.go     what the source-built kinds share: engine/build builds, the bench's flags
//	crate.go, git.go, worktree.go   the source-built kinds, one each
//	bench.go     offline_replay_bench's argv and outputs, an executable's ELF footprint
//
// # Adding an arm kind
//
// A kind (a Python harness from a package index, a container image) is one file and one
// registration; nothing else in the campaign changes:
//
//  1. Write KIND.go with a type implementing Kind. Claims takes the tables that are its own (a
//     source's "KIND:" prefix); Check names the key a bad table gets wrong; Revision is what
//     the campaign records before the build. Build obtains the artifact (fetch, snapshot,
//     build; a cache of its own if it needs one) and returns the file to pin: one file, whose
//     checksum the journal records (a harness of many files is pinned as one archive, a
//     zipapp); Cached says whether Build would only find it. Embedded and Repinnable say
//     whether the pin is kvparity itself and whether its origin may change under a campaign. Argv is the whole argv of a run from its Process
//     (trace, the row's args, the outputs wanted, the variant), Outputs where a run writes its
//     timings, canonical report and progress, Footprint and Region what stage 7 measures.
//  2. Register it: one line in kinds (before a kind that would claim its tables too).
//  3. A test of the kind runs a campaign through it: TestANewArmKindIsOneFileAndOneRegistration
//     (engine) adds a test-only kind with Register (a comparable value) and replays a
//     campaign's determinism stage through it: that test is one file, touching no other.
//
// A kind whose artifact speaks Dynamo's offline_replay_bench flags reuses bench.go; a kind
// built with Cargo embeds cargo and adds its source kind to engine/build.
package arm
