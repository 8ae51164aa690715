package engine

import "kvparity/engine/build"

// An arm may name its source instead of a prebuilt binary (protocol stage 1 automated):
//
//	source = "crate:dynamo-bench@1.6.1"   a published version of Dynamo's bench crate
//	source = "git:../dynamo@my-branch"    a commit of a local checkout (any ref; the campaign
//	                                      pins the full SHA it names when it is created)
//	source = "worktree:../dynamo"         a checkout's working tree as it is on disk, edits
//	                                      and untracked files included (pinned by content)
//
// kvparity builds the protocol's artifact from it (engine/build) and pins the binary as usual.
// Each is an arm kind of engine/arm; the source kinds and their syntax live in engine/build.

// A Source is a parsed `source` key.
type Source = build.Spec

// ParseSource reads a `source` value; errors say what a valid one looks like.
func ParseSource(s string) (Source, error) { return build.ParseSpec(s) }
