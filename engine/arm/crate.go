package arm

// Crate is a published version of Dynamo's bench crate (crate:NAME@VERSION), fetched from the
// package registry; engine/build obtains it (its crate source kind) and builds it with Cargo.
type Crate struct{ cargo }

func (Crate) Name() string       { return "crate" }
func (Crate) Claims(s Spec) bool { return sourceOfKind(s, "crate") }
