package corpus

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"kvparity/diffview/diagnose"
)

// result is what a diff said about one case.
type result struct {
	Equal      bool     // no differing pointer
	Top        string   // Diagnosis[0].Code ("" when equal)
	Codes      []string // every signature code, in the diagnosis's order
	First      string   // Diff.First.Pointer ("" when equal)
	FirstAtMs  float64  // Diff.First.AtMs (-Inf before time 0)
	FirstTimed bool
	Changes    int
	Elapsed    time.Duration // reading both files, diffing and diagnosing
}

// diagnoseFiles runs the diagnosis on two report files: the diagnosis the corpus scores.
func diagnoseFiles(a, b string) (result, error) {
	start := time.Now()
	d, err := diagnose.DiffFiles(a, b)
	if err != nil {
		return result{}, err
	}
	r := result{Equal: d.Equal(), Changes: len(d.Changes)}
	for _, s := range d.Diagnosis {
		r.Codes = append(r.Codes, string(s.Code))
	}
	if len(r.Codes) > 0 {
		r.Top = r.Codes[0]
	}
	if d.First != nil {
		r.First, r.FirstAtMs, r.FirstTimed = d.First.Pointer, d.First.AtMs, d.First.Timed
	}
	r.Elapsed = time.Since(start)
	return r, nil
}

// The scoring rules, per case:
//
//   - top label right: Diagnosis[0].Code equals the truth's primary;
//   - first divergence right: Diff.First.Pointer equals the truth's pointer, or it has the
//     same virtual time (both before time 0 for configuration) and lies in one of the events
//     at that instant (an array element, a request record, /metadata);
//   - secondary named: every secondary code of the truth is somewhere in the diagnosis
//     (counted over the cases that have secondaries);
//   - a negative control is right in both columns when the diff is Equal().
//
// A case the diff could not read is wrong in every column.

// A caseVerdict is one case scored.
type caseVerdict struct {
	Case, Family, Variant string
	Result                result
	Err                   string
	TopOK, FirstOK        bool
	SecondaryOK           bool // true when the truth has no secondary
	Truth                 *truth
}

// judge scores one result against its truth.
func judge(t *truth, r result) (top, first, secondary bool) {
	if t.Equal {
		return r.Equal, r.Equal, true
	}
	top = r.Top == t.Primary
	secondary = true
	for _, s := range t.Secondary {
		secondary = secondary && slices.Contains(r.Codes, s)
	}
	f := t.First
	if f == nil || r.Equal {
		return top, false, secondary
	}
	first = r.First == f.Pointer
	if !first && f.Timed() && r.FirstTimed {
		at := f.at()
		sameTime := at == r.FirstAtMs || math.Abs(at-r.FirstAtMs) <= 1e-9*math.Max(1, math.Abs(at))
		first = sameTime && underAny(r.First, f.Events)
	}
	return top, first, secondary
}

// A tally counts one family's cases.
type tally struct {
	Family                   string
	Cases, Top, First        int
	WithSecondary, Secondary int           // cases that have secondaries, and those whose secondaries were named
	Slowest                  time.Duration // the longest diagnosis, and its case
	SlowestCase              string
}

// TopRate, FirstRate and SecondaryRate are fractions of the cases (1 when there are none).
func (t tally) TopRate() float64       { return rate(t.Top, t.Cases) }
func (t tally) FirstRate() float64     { return rate(t.First, t.Cases) }
func (t tally) SecondaryRate() float64 { return rate(t.Secondary, t.WithSecondary) }

func rate(n, of int) float64 {
	if of == 0 {
		return 1
	}
	return float64(n) / float64(of)
}

// A table is the corpus scored: one tally per family in the table's order, the total, and
// every case's verdict.
type table struct {
	Families []tally
	Total    tally
	Verdicts []caseVerdict
}

// Family returns a family's tally.
func (t *table) Family(name string) (tally, bool) {
	for _, f := range t.Families {
		if f.Family == name {
			return f, true
		}
	}
	return tally{}, false
}

// score diffs every written case with diag (on up to GOMAXPROCS goroutines: diag must be
// safe for concurrent use) and tallies the verdicts per family.
func score(cases []mutationCase, diag func(a, b string) (result, error)) table {
	verdicts := make([]caseVerdict, len(cases))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				verdicts[i] = scoreOne(&cases[i], diag)
			}
		}()
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()
	tab := table{Total: tally{Family: "total"}}
	for _, name := range families() {
		tab.Families = append(tab.Families, tally{Family: name})
	}
	for i := range verdicts {
		v := &verdicts[i]
		if v.Truth == nil { // a generator problem: not scored
			continue
		}
		k := slices.IndexFunc(tab.Families, func(t tally) bool { return t.Family == v.Family })
		if k < 0 {
			tab.Families = append(tab.Families, tally{Family: v.Family})
			k = len(tab.Families) - 1
		}
		for _, t := range []*tally{&tab.Families[k], &tab.Total} {
			t.add(v)
		}
	}
	tab.Verdicts = verdicts
	return tab
}

func scoreOne(c *mutationCase, diag func(a, b string) (result, error)) caseVerdict {
	v := caseVerdict{Case: c.Case, Family: c.Family, Variant: c.Variant}
	if c.Problem != "" {
		v.Err = "not scored: " + c.Problem
		return v
	}
	v.Truth = &c.truth
	if c.PathA == "" || c.PathB == "" {
		v.Err = "not written (call Write first)"
		return v
	}
	r, err := diag(c.PathA, c.PathB)
	if err != nil {
		v.Err = err.Error()
		return v
	}
	v.Result = r
	v.TopOK, v.FirstOK, v.SecondaryOK = judge(&c.truth, r)
	return v
}

func (t *tally) add(v *caseVerdict) {
	t.Cases++
	if v.TopOK {
		t.Top++
	}
	if v.FirstOK {
		t.First++
	}
	if len(v.Truth.Secondary) > 0 {
		t.WithSecondary++
		if v.SecondaryOK {
			t.Secondary++
		}
	}
	if v.Result.Elapsed > t.Slowest {
		t.Slowest, t.SlowestCase = v.Result.Elapsed, v.Case
	}
}

// String is the markdown table: per family the cases, top label right, first divergence
// right and secondary named, then the totals.
func (t *table) String() string {
	var b strings.Builder
	b.WriteString("| family | cases | top label | first divergence | secondary named |\n")
	b.WriteString("|---|---:|---:|---:|---:|\n")
	for _, f := range append(slices.Clone(t.Families), t.Total) {
		if f.Cases == 0 && f.Family != "total" {
			continue
		}
		name := f.Family
		if name == "total" {
			name = "**total**"
		}
		sec := "—"
		if f.WithSecondary > 0 {
			sec = frac(f.Secondary, f.WithSecondary)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", name, f.Cases, frac(f.Top, f.Cases), frac(f.First, f.Cases), sec)
	}
	return b.String()
}

func frac(n, of int) string {
	if of == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d (%d%%)", n, of, n*100/of)
}

// Misses lists every case some column got wrong: what the truth says and what the diff said.
func (t *table) Misses() string {
	var b strings.Builder
	for _, v := range t.Verdicts {
		if v.Truth != nil && v.Err == "" && v.TopOK && v.FirstOK && v.SecondaryOK {
			continue
		}
		fmt.Fprintf(&b, "%s\n", v.Case)
		if v.Err != "" {
			fmt.Fprintf(&b, "    error: %s\n", v.Err)
			continue
		}
		tr, r := v.Truth, v.Result
		if tr.Equal {
			fmt.Fprintf(&b, "    want equal; got %d differing pointer(s), diagnosis %v, first %s\n", r.Changes, r.Codes, r.First)
			continue
		}
		if !v.TopOK || !v.SecondaryOK {
			fmt.Fprintf(&b, "    diagnosis: want %s (+%v); got %v over %d pointer(s)\n", tr.Primary, tr.Secondary, r.Codes, r.Changes)
		}
		if !v.FirstOK {
			got := r.First + " (no virtual time)"
			switch {
			case r.FirstTimed && math.IsInf(r.FirstAtMs, -1):
				got = r.First + " before time 0"
			case r.FirstTimed:
				got = fmt.Sprintf("%s at t=%g ms", r.First, r.FirstAtMs)
			}
			fmt.Fprintf(&b, "    first divergence: want %s; got %s\n", describeFirst(tr.First), got)
		}
	}
	return b.String()
}
