package diffview

import (
	"fmt"
	"slices"
	"strings"
)

// A Signature is one recognised shape of a difference set (statistics-and-peers.md Part 3),
// with the evidence that supports it. Diff.Diagnosis lists them most specific first.
type Signature struct {
	Code     string   `json:"code"`                 // stable id: configuration, number-spelling, child-before-parent, tie-order, id-drift, wall-clock, float-noise, constant-quantum, decision-cascade, unclassified
	Label    string   `json:"label"`                // in words, for the pane and the CLI
	Evidence []string `json:"evidence"`             // facts with numbers and pointers
	Explains int      `json:"explains"`             // how many differing pointers this signature accounts for
	Of       int      `json:"of"`                   // total differing pointers
	Quantum  float64  `json:"quantum_ms,omitempty"` // constant-quantum only: the quantum in ms
	// consequence: the signature follows from an earlier difference (a cascade whose flip is
	// preceded by other differences): a cause found for those leads it.
	consequence bool
}

// Signature codes, most specific first: the order of Diff.Diagnosis.
const (
	SigConfig            = "configuration"
	SigNumberSpelling    = "number-spelling"
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
		detectConfig, detectNumberSpelling, detectChildBeforeParent, detectIndexLoss, detectTieOrder, detectTieDecisions, detectArrivalPermutation,
		detectIDDrift, detectWorkerRelabel, detectWallClock, detectRunLevelClock, detectWallDurations, detectFloatNoise, detectQuantum, detectCascade,
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
	// What no signature explains is said too: a lens that explains a few differences of many
	// (last-digit noise riding along an unexplained change) must not read as the answer.
	best, sum := 0, 0
	for _, s := range out {
		best, sum = max(best, s.Explains), sum+s.Explains
	}
	if len(out) > 0 && sum < len(d.Changes) && 2*best >= len(d.Changes) {
		// Signatures may overlap, so the sum of their shares bounds what they explain.
		rest := len(d.Changes) - sum
		out = append(out, Signature{Code: SigUnclassified, Label: "unclassified difference (a second cause?)", Of: len(d.Changes), Explains: rest,
			Evidence: []string{fmt.Sprintf("at least %d of %d differing pointers are explained by no signature above", rest, len(d.Changes))}})
	}
	if len(out) == 0 || (2*best < len(d.Changes) && out[0].Code != SigConfig) {
		rest := len(d.Changes) - best
		s := Signature{Code: SigUnclassified, Label: "unclassified difference (a logic change?)", Of: len(d.Changes), Explains: rest}
		if d.First != nil {
			s.Evidence = append(s.Evidence, "first divergence: "+d.First.String())
		}
		if len(out) == 0 {
			s.Evidence = append(s.Evidence, fmt.Sprintf("%d differing pointers in %d groups; no ordering, renaming, clock, float or quantum lens makes them equal", len(d.Changes), len(d.Groups)))
		} else {
			s.Evidence = append(s.Evidence, fmt.Sprintf("up to %d of %d differing pointers are explained by no signature: the largest explains %d", rest, len(d.Changes), best))
		}
		out = append(out, s)
	}
	rankSignatures(out)
	return out
}

// detectConfig names differing run configuration (metadata): the most direct cause, and a
// sign that the two runs were not of one frozen row.
func detectConfig(d *Diff) *Signature {
	var ptrs []string
	for _, c := range d.Changes {
		if strings.HasPrefix(c.Pointer, "/metadata/") && !sameNumber(c.A, c.B) { // a respelled number is not another setting
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

// detectNumberSpelling: numbers that differ only in how they are written (4.0 against 4, 1e3
// against 1000) are equal as values. The canonical profile keeps literals verbatim, so they
// still differ there (and in the digest): a serializer's number type changed, not a value.
func detectNumberSpelling(d *Diff) *Signature {
	n := 0
	var example string
	fields := map[string]int{}
	for _, c := range d.Changes {
		if c.Kind != Changed || !isNumber(c.A) || !isNumber(c.B) {
			continue
		}
		a, aok := parseNum(c.A)
		b, bok := parseNum(c.B)
		if !aok || !bok || a != b {
			continue
		}
		n++
		fields[lastSeg(c.Pointer)]++
		if example == "" {
			example = fmt.Sprintf("%s %s vs %s", c.Pointer, c.A, c.B)
		}
	}
	if n == 0 {
		return nil
	}
	ev := []string{
		fmt.Sprintf("%d number(s) are equal as values and differ only in spelling, e.g. %s", n, example),
		"fields: " + countList(fields),
		"canonical bytes keep number literals verbatim, so the digests differ: an integer/float type changed in the serializer, not a result",
	}
	return &Signature{Code: SigNumberSpelling, Label: "number spelling only (equal values)", Evidence: ev, Explains: n}
}

// rankSignatures orders the diagnosis by explanatory power: the signature that accounts for
// more of the differences leads (last-digit float noise riding along a cascade is listed, not
// headlined). A differing configuration leads regardless: it is the direct cause, and the two
// runs were not of one frozen row. Equal shares keep the lenses' order, most specific first.
func rankSignatures(out []Signature) {
	// A cascade whose flip has an earlier difference is the consequence of a cause: of one of
	// the ordering or identity signatures found beside it, when there is one.
	cause := map[string]bool{SigChildBeforeParent: true, SigTieOrder: true, SigIDDrift: true, SigWallClock: true}
	caused := false
	for _, s := range out {
		caused = caused || cause[s.Code]
	}
	tier := func(s Signature) int {
		switch {
		case s.Code == SigConfig:
			return 0
		case s.consequence && caused:
			return 2
		}
		return 1
	}
	slices.SortStableFunc(out, func(a, b Signature) int {
		if ta, tb := tier(a), tier(b); ta != tb {
			return ta - tb
		}
		return b.Explains - a.Explains
	})
}
