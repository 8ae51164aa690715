package diffview

import (
	"fmt"
	"slices"
	"strings"
)

// A Signature is one recognised shape of a difference set (statistics-and-peers.md Part 3),
// with the evidence that supports it. Diff.Diagnosis lists them most specific first.
type Signature struct {
	Code     string   `json:"code"`                 // stable id: child-before-parent, tie-order, id-drift, wall-clock, float-noise, constant-quantum, decision-cascade, unclassified
	Label    string   `json:"label"`                // in words, for the pane and the CLI
	Evidence []string `json:"evidence"`             // facts with numbers and pointers
	Explains int      `json:"explains"`             // how many differing pointers this signature accounts for
	Of       int      `json:"of"`                   // total differing pointers
	Quantum  float64  `json:"quantum_ms,omitempty"` // constant-quantum only: the quantum in ms
}

// Signature codes, most specific first: the order of Diff.Diagnosis.
const (
	SigConfig            = "configuration"
	SigChildBeforeParent = "child-before-parent"
	SigTieOrder          = "tie-order"
	SigIDDrift           = "id-drift"
	SigWallClock         = "wall-clock"
	SigFloatNoise        = "float-noise"
	SigQuantum           = "constant-quantum"
	SigCascade           = "decision-cascade"
	SigUnclassified      = "unclassified"
)

// String is "label (explains n/m)".
func (s Signature) String() string {
	return fmt.Sprintf("%s (explains %d/%d)", s.Label, s.Explains, s.Of)
}

func diagnose(d *Diff) []Signature {
	if len(d.Changes) == 0 {
		return nil
	}
	var out []Signature
	for _, det := range []func(*Diff) *Signature{
		detectConfig, detectChildBeforeParent, detectIndexLoss, detectTieOrder, detectTieDecisions,
		detectIDDrift, detectWallClock, detectRunLevelClock, detectFloatNoise, detectQuantum, detectCascade,
	} {
		s := det(d)
		if s == nil || s.Explains == 0 {
			continue
		}
		s.Of = len(d.Changes)
		merged := false
		for i := range out {
			if out[i].Code == s.Code { // two lenses found the same signature: one entry
				out[i].Evidence = append(out[i].Evidence, s.Evidence...)
				out[i].Explains = min(s.Of, out[i].Explains+s.Explains)
				merged = true
			}
		}
		if !merged {
			out = append(out, *s)
		}
	}
	// Last-digit float noise rides along with real changes (a cascade carries a few): it leads
	// only when it explains most of the differences, never ahead of a signature that explains
	// more than it does.
	slices.SortStableFunc(out, func(a, b Signature) int {
		minor := func(s Signature) bool { return s.Code == SigFloatNoise && 2*s.Explains < s.Of }
		switch ma, mb := minor(a), minor(b); {
		case ma && !mb && b.Explains > a.Explains:
			return 1
		case mb && !ma && a.Explains > b.Explains:
			return -1
		}
		return 0
	})
	if len(out) == 0 {
		s := Signature{Code: SigUnclassified, Label: "unclassified difference (a logic change?)", Of: len(d.Changes), Explains: len(d.Changes)}
		if d.First != nil {
			s.Evidence = append(s.Evidence, "first divergence: "+d.First.String())
		}
		s.Evidence = append(s.Evidence, fmt.Sprintf("%d differing pointers in %d groups; no ordering, renaming, clock, float or quantum lens makes them equal", len(d.Changes), len(d.Groups)))
		out = append(out, s)
	}
	return out
}

// detectConfig names differing run configuration (metadata): the most direct cause, and a
// sign that the two runs were not of one frozen row.
func detectConfig(d *Diff) *Signature {
	var ptrs []string
	for _, c := range d.Changes {
		if strings.HasPrefix(c.Pointer, "/metadata/") {
			ptrs = append(ptrs, fmt.Sprintf("%s %s → %s", c.Pointer, short(c.A), short(c.B)))
		}
	}
	if len(ptrs) == 0 {
		return nil
	}
	ev := ptrs
	if len(ev) > 5 {
		ev = append(ev[:5:5], fmt.Sprintf("… %d more", len(ptrs)-5))
	}
	ev = append(ev, "metadata records configuration and semantic features: a difference here is a different engine setting, not leaked entropy")
	return &Signature{Code: SigConfig, Label: "configuration differs (metadata)", Evidence: ev, Explains: len(ptrs)}
}
