package corpus

import "math"

// truth is what a case really is: the family and variant that made it, the signature the
// diagnosis should lead with, the ones it should also name, and where the histories really
// first diverge.
type truth struct {
	Case      string           `json:"case"`
	Base      string           `json:"base"`
	Family    string           `json:"family"`
	Variant   string           `json:"variant"`
	Detail    string           `json:"detail"`              // what the mutator did, with positions and magnitudes
	Primary   string           `json:"primary"`             // signature code, or "equal" for a negative control
	Secondary []string         `json:"secondary,omitempty"` // further codes the diagnosis should name
	Equal     bool             `json:"equal"`               // a negative control: the diff must find no difference
	Identical bool             `json:"identical"`           // A and B are byte-identical (a negative control)
	First     *firstDivergence `json:"first,omitempty"`     // nil for a negative control
	Runs      []string         `json:"runs,omitempty"`      // the two real runs a release pair compares (releasePairs)
	FileA     string           `json:"a,omitempty"`         // report files, relative to the truth file (write)
	FileB     string           `json:"b,omitempty"`
}

// equalCode is the primary "code" of a negative control.
const equalCode = "equal"

// firstDivergence is the true first divergence: the differing pointer the protocol's placement puts
// earliest (pointers into /per_request use B's index), its virtual time, and every event at
// that same instant (a pointer prefix: an array element, a request record, "/metadata").
type firstDivergence struct {
	Pointer        string   `json:"pointer"`
	AtMs           *float64 `json:"at_ms,omitempty"`  // nil: no virtual time, or before time 0
	BeforeTimeZero bool     `json:"before_time_zero"` // configuration (metadata)
	Events         []string `json:"events"`
}

// Timed says the divergence has a place in virtual time (a history event or configuration).
func (f *firstDivergence) Timed() bool { return f.AtMs != nil || f.BeforeTimeZero }

// at is the virtual time as a float: -Inf before time 0, NaN without a time.
func (f *firstDivergence) at() float64 {
	switch {
	case f.BeforeTimeZero:
		return math.Inf(-1)
	case f.AtMs != nil:
		return *f.AtMs
	}
	return math.NaN()
}

// firstOf is the true first divergence of A and B: the earliest history event (then
// configuration, then values with no virtual time); at one instant the decision before its
// consequences, then document order. Events lists every event at that instant. nil: equal.
func firstOf(a, b *reportTree, rename map[string]string) *firstDivergence {
	return firstOfLeaves(diffLeaves(a, b, rename), a, b)
}

// firstOfLeaves is firstOf over the differing leaves given.
func firstOfLeaves(leaves []leaf, a, b *reportTree) *firstDivergence {
	if len(leaves) == 0 {
		return nil
	}
	ps := make([]placed, len(leaves))
	best := 0
	for i := range leaves {
		ps[i] = place(&leaves[i], a, b)
		if earlier(ps[i], ps[best]) {
			best = i
		}
	}
	bp := ps[best]
	f := &firstDivergence{Pointer: leaves[best].ptr, BeforeTimeZero: bp.class == 1}
	if bp.class == 0 {
		t := bp.t
		f.AtMs = &t
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if p.class == bp.class && (p.class == 2 && p.event == bp.event || p.class != 2 && p.t == bp.t) && !seen[p.event] {
			seen[p.event] = true
			f.Events = append(f.Events, p.event)
		}
	}
	return f
}

// earlier says x comes strictly before y (document order breaks the remaining ties: the
// first of equals stays first).
func earlier(x, y placed) bool {
	if x.class != y.class {
		return x.class < y.class
	}
	if x.class == 2 {
		return false
	}
	if x.t != y.t {
		return x.t < y.t
	}
	return x.rank < y.rank
}
