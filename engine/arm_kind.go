package engine

import armkind "kvparity/engine/arm"

// kindOf is the kind of an arm's table (engine/arm): what builds, pins and runs its artifact.
// A campaign's row was validated when it was frozen, so its arms have a kind; a table no kind
// claims is taken for a given binary (whose checks then refuse it).
func kindOf(spec ArmSpec) armkind.Kind {
	if k, err := armkind.Of(spec); err == nil {
		return k
	}
	return armkind.Binary{}
}

// Kind is the kind of the campaign's arm.
func (h campaignHost) Kind(arm Arm) armkind.Kind { return kindOf(h.c.row.Arm(arm)) }
