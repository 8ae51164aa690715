package arm

// gitKind is one commit of a local checkout (git:PATH@REF), read through git's objects only (the
// campaign pins the full SHA the ref names); engine/build obtains it (its git source kind) and
// builds it with Cargo.
type gitKind struct{ cargo }

func (gitKind) Name() string       { return "git" }
func (gitKind) Claims(s Spec) bool { return sourceOfKind(s, "git") }
