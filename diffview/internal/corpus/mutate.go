package corpus

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
)

// A variant is one way of making cases of a family: a mutator over a base report, with the
// signature the diagnosis should lead with and the ones it should also name.
type variant struct {
	family, name string
	primary      string
	secondary    []string
	equal        bool             // a negative control: the diff must find no difference
	needs        func(*base) bool // the base has what the mutator needs (nil: any base)
	release      bool             // made on release replay bases only (and no other variant is)
	apply        func(*mutation) error
}

// errNotHere says a mutator found nothing to work on in this base (no tie, no pressure
// record): the generator tries another base.
var errNotHere = errors.New("corpus: the mutator does not apply to this base")

// A mutation is one case being made: B starts as a copy of the base, A is the base itself
// until a mutator changes both (a tie made in both runs, a wall-clock field both runs leak).
type mutation struct {
	base   *base
	a, b   *reportTree
	ownA   bool
	rng    *rand.Rand
	rename map[string]string // B uuid → A uuid: a renamed request is still the same request
	detail []string
	// cause are the pointers (B's indexing) the mutator made its first divergence; the
	// generator checks they are at the instant the placement finds first.
	cause []string
	rawB  []byte // B spelled by hand (number spelling); nil: b.Encode()
}

// both applies a change to A and B alike (a precondition of the case, not its difference).
// f must not draw from the random source: it runs twice.
func (m *mutation) both(f func(*reportTree)) {
	if !m.ownA {
		m.a, m.ownA = m.base.rep.Clone(), true
	}
	f(m.a)
	f(m.b)
}

func (m *mutation) note(format string, args ...any) {
	m.detail = append(m.detail, fmt.Sprintf(format, args...))
}

// between draws uniformly from [lo, hi).
func (m *mutation) between(lo, hi float64) float64 { return lo + (hi-lo)*m.rng.Float64() }

// makeCase runs one variant on one base.
func makeCase(v *variant, b *base, seed int64) (mutationCase, error) {
	m := &mutation{base: b, a: b.rep, b: b.rep.Clone(), rng: rand.New(rand.NewPCG(uint64(seed), hash(v.family+"/"+v.name+"/"+b.Name)))}
	if err := v.apply(m); err != nil {
		return mutationCase{}, err
	}
	c := mutationCase{truth: truth{Base: b.Name, Family: v.family, Variant: v.name, Detail: strings.Join(m.detail, "; "),
		Primary: v.primary, Secondary: v.secondary, Equal: v.equal}}
	c.ReportA, c.aIsBase = b.Canonical, !m.ownA
	if m.ownA {
		c.ReportA = m.a.Encode()
	}
	c.ReportB = m.rawB
	if c.ReportB == nil {
		c.ReportB = m.b.Encode()
	}
	c.Identical = string(c.ReportA) == string(c.ReportB)
	switch {
	case v.equal:
		c.Primary = equalCode
	case c.Identical:
		c.Problem = "the mutation changed nothing"
	default:
		c.First = firstOf(m.a, m.b, m.rename)
		if miss := m.causeMissed(c.First); miss != "" {
			c.Problem = "the mutator's cause " + miss + " is not at the first instant " + describeFirst(c.First)
		}
	}
	return c, nil
}

// causeMissed returns the first cause pointer outside the first divergence's events.
func (m *mutation) causeMissed(f *firstDivergence) string {
	for _, p := range m.cause {
		if f == nil {
			return p
		}
		if p != f.Pointer && !underAny(p, f.Events) {
			return p
		}
	}
	return ""
}

// underAny says ptr is one of prefixes or inside one.
func underAny(ptr string, prefixes []string) bool {
	for _, e := range prefixes {
		if ptr == e || strings.HasPrefix(ptr, e+"/") {
			return true
		}
	}
	return false
}

func describeFirst(f *firstDivergence) string {
	if f == nil {
		return "(none)"
	}
	switch {
	case f.BeforeTimeZero:
		return f.Pointer + " before time 0"
	case f.AtMs != nil:
		return fmt.Sprintf("%s at t=%g ms", f.Pointer, *f.AtMs)
	}
	return f.Pointer + " (no virtual time)"
}

// hash is FNV-1a: one random stream per variant and base, so a new variant leaves the
// others' cases as they were.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
