package arm

// worktreeKind is a checkout's working tree as it is on disk (worktree:PATH), edits and untracked
// files included, pinned by content; engine/build obtains it (its worktree source kind: a
// streamed snapshot, and its diff against the base commit, which the campaign keeps beside
// the pin) and builds it with Cargo.
type worktreeKind struct{ cargo }

func (worktreeKind) Name() string       { return "worktree" }
func (worktreeKind) Claims(s Spec) bool { return sourceOfKind(s, "worktree") }
