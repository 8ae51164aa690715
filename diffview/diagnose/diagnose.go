package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"kvparity/diffview"
)

// A Signature is one recognised shape of a difference set (docs/guide.md, "Reading the
// diagnosis"), with the evidence that supports it. Diff.Diagnosis ranks them by the share they
// explain (rankSignatures).
type Signature struct {
	Code     SignatureCode `json:"code"`     // stable id (the codes are listed under SignatureCode)
	Label    string        `json:"label"`    // in words, for the pane and the CLI
	Evidence []string      `json:"evidence"` // facts with numbers and pointers
	Explains int           `json:"explains"` // how many differing pointers this signature accounts for
	// Changes are the indexes into Diff.Changes of the differing pointers the signature
	// accounts for, ascending: what "cover this cause" covers (Diff.PatternsOf). Empty for
	// the unclassified remainder, whose count is a bound (Diff.Unexplained lists what no
	// signature names). Explains may exceed its length where two lenses merged into one
	// signature counted a pointer each. Not in JSON: a report keeps counts.
	Changes []int `json:"-"`
	// Patterns, when the lens knows them, are the pointer patterns of one exception record
	// that covers exactly Changes (a version change: its key sets, "{a,b}"); else empty, and
	// Diff.PatternsOf(Changes) drafts field patterns, which may count other pointers too.
	Patterns []string `json:"-"`
	Of       int      `json:"of"` // total differing pointers (held ones, when Held)
	// Held says Of counts the changes a truncated diff holds in detail, not every differing
	// pointer: the lenses read those.
	Held    bool    `json:"held,omitempty"`
	Quantum float64 `json:"quantum_ms,omitempty"` // constant-quantum only: the quantum in ms
	// consequence: the signature follows from an earlier difference (a cascade whose flip is
	// preceded by other differences): a cause found for those leads it.
	consequence bool
	flipAt      float64 // a cascade's first flipped decision
	flipMoved   bool    // and that decision was taken at another instant in each run
	leads       bool    // the cause at the first divergence that explains the rest (earlyTiming)
	placement   bool    // a tie-order signature of placements only (detectPlacementTie, detectWorkerRelabel)
}

// A SignatureCode is a signature's stable id. The codes are listed most specific first: the
// order the lenses run in, which breaks ties of the diagnosis's ranking.
type SignatureCode string

const (
	SigConfig            SignatureCode = "configuration"
	SigVersion           SignatureCode = "version-change"
	SigSchema            SignatureCode = "schema-change"
	SigNumberSpelling    SignatureCode = "number-spelling"
	SigChildBeforeParent SignatureCode = "child-before-parent"
	SigTieOrder          SignatureCode = "tie-order"
	SigIDDrift           SignatureCode = "id-drift"
	SigWallClock         SignatureCode = "wall-clock"
	SigFloatNoise        SignatureCode = "float-noise"
	SigQuantum           SignatureCode = "constant-quantum"
	SigCascade           SignatureCode = "decision-cascade"
	SigEntropy           SignatureCode = "entropy"
	SigTiming            SignatureCode = "timing-change"
	SigUnclassified      SignatureCode = "unclassified"
)

// String is "label (explains n/m)".
func (s Signature) String() string {
	if s.Held {
		return fmt.Sprintf("%s (explains %d/%d held)", s.Label, s.Explains, s.Of)
	}
	return fmt.Sprintf("%s (explains %d/%d)", s.Label, s.Explains, s.Of)
}

func diagnose(d *Diff) []Signature {
	if len(d.Changes) == 0 {
		return nil
	}
	var out []Signature
	for _, det := range []func(*Diff) *Signature{
		detectConfig, detectVersionChange, detectSchemaChange, detectConfigLayout, detectNumberSpelling, detectChildBeforeParent, detectIndexLoss, detectTieOrder, detectTieDecisions, detectArrivalPermutation, detectPlacementTie,
		detectIDDrift, detectWorkerRelabel, detectWallClock, detectRunLevelClock, detectWallDurations, detectWallRates, detectFloatNoise, detectQuantum, detectCascade,
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
				out[i].Changes = append(out[i].Changes, s.Changes...)
				merged = true
			}
		}
		if !merged {
			out = append(out, *s)
		}
	}
	// Lenses that read what the others found: values moved before the first differing
	// decision, and a summary that moved with nothing else to account for it.
	for _, det := range []func(*Diff, []Signature) *Signature{earlyTiming, summaryDerivation} {
		s := det(d, out)
		if s == nil {
			continue
		}
		s.Of = len(d.Changes)
		merged := false
		for i := range out {
			if out[i].Code == s.Code {
				out[i].Evidence = append(out[i].Evidence, s.Evidence...)
				out[i].Explains = min(s.Of, out[i].Explains+s.Explains)
				out[i].Changes = append(out[i].Changes, s.Changes...)
				merged = true
			}
		}
		if !merged {
			out = append(out, *s)
		}
	}
	if s := unexplained(d, out); s != nil {
		out = append(out, *s)
	}
	for i := range out {
		if d.Repetitions && out[i].Code == SigQuantum {
			// Named with the ordering it is (an UNSTABLE arm's reason quotes the label only).
			out[i].Label += repetitionQuantumLabel
			out[i].Evidence = append(out[i].Evidence, repetitionQuantum)
		}
		out[i].Held = d.Truncated()
		// One ascending set: merged lenses may name a pointer twice.
		slices.Sort(out[i].Changes)
		out[i].Changes = slices.Compact(out[i].Changes)
	}
	rankSignatures(out)
	return out
}

// unexplained is what no signature explains, said as "unclassified" (nil when they explain
// everything): all of it when no lens holds; the rest when the largest share is under half
// (a lens that explains a few differences of many, last-digit noise riding along an
// unexplained change, must not read as the answer), unless the configuration differs; else a
// second cause, at least the differences the shares do not reach (they may overlap). The
// cause at the first divergence and the cascade that follows from it are one share, and so
// are the identities and the placements renamed. A layout (schema-change: one version's
// fields, a summary computed another way) is no result that moved: the half is of what it
// leaves, the rest diagnosed as usual. Inputs with no per-request record on either side
// leave nothing to attribute (unattributedAggregates).
func unexplained(d *Diff, out []Signature) *Signature {
	if len(d.DocA.Records) == 0 && len(d.DocB.Records) == 0 {
		return unattributedAggregates(d, out)
	}
	n := len(d.Changes)
	best, sum, config, layout := 0, 0, false, 0
	lead, follows, renamed := 0, 0, 0
	for _, s := range out {
		sum, config = sum+s.Explains, config || s.Code == SigConfig
		switch {
		case s.Code == SigSchema || s.Code == SigVersion:
			layout += s.Explains
			continue
		case s.leads:
			lead = max(lead, s.Explains)
		case s.consequence:
			follows = max(follows, s.Explains)
		}
		if s.Code == SigIDDrift || s.placement {
			renamed += s.Explains
		}
		best = max(best, s.Explains)
	}
	if lead > 0 {
		best = max(best, min(n, lead+follows))
	}
	// Ids drawn anew and placements tied on cost are two causes (two fixes) but one share
	// here: together they are the runs' alpha-equivalence, no outcome moved, and a whole run
	// renamed both ways splits the pointers about evenly between them.
	best = max(best, min(n, renamed))
	var rest int
	var why string
	switch {
	case len(out) == 0:
		rest, why = n, fmt.Sprintf("%d differing pointers in %d groups; no ordering, renaming, clock, float or quantum lens makes them equal", n, len(d.Groups))
	case 2*best < n-layout && !config:
		rest = n - layout - best
		why = fmt.Sprintf("up to %d of %d differing pointers are explained by no signature: the largest explains %d", rest, n, best)
		if layout > 0 {
			why += fmt.Sprintf(", the layout %d", layout)
		}
	case sum < n:
		return &Signature{Code: SigUnclassified, Label: "unclassified difference (a second cause?)", Of: n, Explains: n - sum,
			Evidence: []string{fmt.Sprintf("at least %d of %d differing pointers are explained by no signature above", n-sum, n)}}
	default:
		return nil
	}
	s := &Signature{Code: SigUnclassified, Label: "unclassified difference (a logic change?)", Of: n, Explains: rest}
	if d.First != nil {
		s.Evidence = append(s.Evidence, "first divergence: "+d.First.String())
	}
	s.Evidence = append(s.Evidence, why)
	return s
}

// unattributedAggregates is the remainder of inputs that hold no per-request record on
// either side (a release that writes only its summary, --report-json): what differs is a
// run-level aggregate, and nothing per request is there to attribute it to a request, a
// decision or an instant, so no lens could have named it and "a logic change?" would be a
// guess. It counts exactly the pointers no signature names (nil when there are none).
func unattributedAggregates(d *Diff, out []Signature) *Signature {
	named := make([]bool, len(d.Changes))
	for _, s := range out {
		for _, i := range s.Changes {
			named[i] = true
		}
	}
	var rest []string
	for i, c := range d.Changes {
		if !named[i] {
			rest = append(rest, fmt.Sprintf("%s %s → %s", c.Pointer, diffview.Short(c.A), diffview.Short(c.B)))
		}
	}
	if len(rest) == 0 {
		return nil
	}
	listed := strings.Join(rest[:min(4, len(rest))], ", ")
	if len(rest) > 4 {
		listed += fmt.Sprintf(", … %d more", len(rest)-4)
	}
	return &Signature{Code: SigUnclassified, Label: "run-level aggregates differ (no per-request records to attribute them)", Of: len(d.Changes), Explains: len(rest),
		Evidence: []string{
			fmt.Sprintf("%d run-level aggregate(s) differ (%s)", len(rest), listed),
			"neither input holds a per-request record: nothing per request is there to attribute them to a request, a decision or an instant",
			"compare the runs' per-request records (a release's --report-jsonl) to name a cause",
		}}
}

// detectConfig names differing run configuration (metadata): the most direct cause, and a
// sign that the two runs were not of one frozen row. Metadata that differs only in members
// one side lacks, laid out anew with every moved setting's value kept, is no setting that
// differs: detectConfigLayout names it.
func detectConfig(d *Diff) *Signature {
	if v := d.versionLayout(); v != nil {
		return v.configuration(d)
	}
	var settings, oneSided []string // the metadata pointers: present on both sides, on one
	var meta []int                  // and their changes
	for i, c := range d.Changes {
		if strings.HasPrefix(c.Pointer, "/metadata/") && !sameNumber(c.A, c.B) { // a respelled number is not another setting
			meta = append(meta, i)
			if p := fmt.Sprintf("%s %s → %s", c.Pointer, diffview.Short(c.A), diffview.Short(c.B)); c.Kind == diffview.Changed {
				settings = append(settings, p)
			} else {
				oneSided = append(oneSided, p)
			}
		}
	}
	if len(settings)+len(oneSided) == 0 || len(settings) == 0 && d.configSchemaOnly() {
		return nil
	}
	var moved []string
	for _, m := range d.configLayout().differing() {
		moved = append(moved, fmt.Sprintf("%s %s → %s %s (moved, another value)", m.from.ptr, diffview.Short(m.from.raw), m.to.ptr, diffview.Short(m.to.raw)))
	}
	// The settings that differ come before the layout's members.
	ev := slices.Concat(settings, moved, oneSided)
	if len(ev) > 5 {
		ev = append(ev[:5:5], fmt.Sprintf("… %d more", len(ev)-5))
	}
	ev = append(ev, "metadata records configuration and semantic features: a difference here is a different engine setting, not leaked entropy")
	return &Signature{Code: SigConfig, Label: "configuration differs (metadata)", Evidence: ev, Explains: len(settings) + len(oneSided), Changes: meta}
}

// detectNumberSpelling: numbers that differ only in how they are written (4.0 against 4, 1e3
// against 1000) are equal as values. The canonical profile keeps literals verbatim, so they
// still differ there (and in the digest): a serializer's number type changed, not a value.
func detectNumberSpelling(d *Diff) *Signature {
	n := 0
	var respelled []int
	var example string
	fields := map[string]int{}
	for i, c := range d.Changes {
		if c.Kind != diffview.Changed || !sameNumber(c.A, c.B) {
			continue
		}
		n++
		respelled = append(respelled, i)
		fields[diffview.LastSegment(c.Pointer)]++
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
	return &Signature{Code: SigNumberSpelling, Label: "number spelling only (equal values)", Evidence: ev, Explains: n, Changes: respelled}
}

// rankSignatures orders the diagnosis by explanatory power: the signature that accounts for
// more of the differences leads (last-digit float noise riding along a cascade is listed, not
// headlined). A differing configuration leads regardless: it is the direct cause, and the two
// runs were not of one frozen row. The cause at the first divergence (earlyTiming) comes next,
// and the cascade that follows from it right after it; identities renamed and layouts changed
// beside a cause of the history (a cascade with no earlier cause, placement ties) come after
// it. Equal shares keep the lenses' order, most specific
// first.
func rankSignatures(out []Signature) {
	// A cascade whose flip has an earlier difference is the consequence of a cause: of one of
	// the ordering or identity signatures found beside it, when there is one.
	cause := map[SignatureCode]bool{SigChildBeforeParent: true, SigTieOrder: true, SigIDDrift: true, SigWallClock: true}
	caused, hasLead, history := false, false, false
	for _, s := range out {
		caused, hasLead = caused || cause[s.Code], hasLead || s.leads
		history = history || s.Code == SigCascade && !s.consequence || s.placement
	}
	tier := func(s Signature) int {
		switch {
		case s.Code == SigConfig:
			return 0
		case s.leads: // the cause at the first divergence that explains the rest
			return 1
		case s.consequence && hasLead: // and what follows from it, next
			return 2
		case (s.Code == SigIDDrift || s.Code == SigSchema || s.Code == SigVersion) && history:
			// Identities renamed and layouts changed beside the history's own cause (a
			// cascade with no earlier cause, placement ties; random ids drawn anew each run,
			// one version's fields, a release line's report layout): that cause says what
			// happened, names and layout follow.
			return 4
		case s.consequence && caused:
			return 5
		}
		return 3
	}
	slices.SortStableFunc(out, func(a, b Signature) int {
		if ta, tb := tier(a), tier(b); ta != tb {
			return ta - tb
		}
		return b.Explains - a.Explains
	})
}

// Unexplained are the changes no signature of the diagnosis names (ascending indexes into
// d.Changes): what the unclassified remainder stands for.
func (d *Diff) Unexplained() []int {
	named := make([]bool, len(d.Changes))
	for _, s := range d.Diagnosis {
		for _, i := range s.Changes {
			named[i] = true
		}
	}
	var out []int
	for i, n := range named {
		if !n {
			out = append(out, i)
		}
	}
	return out
}
