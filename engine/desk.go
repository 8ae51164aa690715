package engine

import (
	"errors"

	"kvparity/engine/build"
)

// ErrDeskBuild is why the performance stage (with the footprint gate it runs), the instruction
// counts and the investigation's profiles refuse a row whose arms are desk builds
// (engine/build/desk.go): its determinism and parity verdicts carry over to the release build,
// its speed and size do not.
var ErrDeskBuild = errors.New(build.DeskNote + ": the performance stage, the footprint, the instruction counts and the profiles measure the release profile only (build both arms without profile = \"desk\" to measure them)")

// DeskBuild is what every surface says of a desk row ("" for a release row).
func (r *Row) DeskBuild() string {
	if r.Desk() {
		return build.DeskNote
	}
	return ""
}
