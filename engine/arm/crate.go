package arm

// crateKind is a published version of Dynamo's bench crate (crate:NAME@VERSION), fetched from the
// package registry; engine/build obtains it (its crate source kind) and builds it with Cargo.
type crateKind struct{ cargo }

func (crateKind) Name() string       { return "crate" }
func (crateKind) Claims(s Spec) bool { return sourceOfKind(s, "crate") }
