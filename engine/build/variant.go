package build

import (
	"fmt"
	"strconv"
	"strings"
)

// A Variant is a source-built arm's stand-in revision: the published code with one known,
// anchored change, kept apart from the determinism patch (Info.VariantPatch). The zero Variant
// is the published code itself.
type Variant struct {
	// SlowdownPct is a calibrated slowdown of the replay loop in percent (1..1000; slowdown.go).
	SlowdownPct int
	// ScaleEvents is the harness's --scale-event extension (scaling.go): stage 6's scale-to-zero
	// driven offline through the replay core's own scaling tick.
	ScaleEvents bool
}

// String is the variant's name in a row ("" for none).
func (v Variant) String() string {
	switch {
	case v.ScaleEvents:
		return ScaleEventsVariant
	case v.SlowdownPct > 0:
		return fmt.Sprintf("slowdown-%d", v.SlowdownPct)
	}
	return ""
}

// ParseVariant reads a source-built arm's variant: "slowdown-PCT" (PCT in 1..1000, the
// calibrated slowdown) or "scale-events" (the harness's --scale-event extension). The embedded
// engine's leaks have no Rust counterpart.
func ParseVariant(name string) (Variant, error) {
	if name == ScaleEventsVariant {
		return Variant{ScaleEvents: true}, nil
	}
	s, ok := strings.CutPrefix(name, "slowdown-")
	pct, err := strconv.Atoi(s)
	if !ok || err != nil || pct < 1 || pct > 1000 || strconv.Itoa(pct) != s {
		return Variant{}, fmt.Errorf("%q: a source-built arm takes only slowdown-PCT (a calibrated slowdown of PCT percent, 1..1000, built into the replay loop) or %s (the harness's --scale-event, scaling.go); the embedded engine's other variants have no Rust counterpart", name, ScaleEventsVariant)
	}
	return Variant{SlowdownPct: pct}, nil
}

// sha256 is the checksum of the variant's edits ("" for none): part of the cache key and the
// build record.
func (v Variant) sha256() string {
	switch {
	case v.ScaleEvents:
		return scaleEventsSHA256()
	case v.SlowdownPct > 0:
		return slowdownSHA256(v.SlowdownPct)
	}
	return ""
}
