// Package profile reads the two things protocol stage 7's investigation compares between a
// baseline and a candidate: a cpu-clock sampling profile of each (Linux perf's `perf script`
// output of a `perf record -g` run) and each binary's symbol table (`nm -S`), and computes their
// differences: self-time share per function and its delta, the call paths that grew, functions
// sampled only in the candidate, and `.text` growth by symbol. It runs nothing itself; the
// engine runs perf and nm as it runs every process.
package profile

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// A Profile is one arm's samples, folded.
type Profile struct {
	Samples int            `json:"samples"`
	self    map[string]int `json:"-"` // samples whose leaf frame is the function
	paths   map[string]int `json:"-"` // samples by their leaf and two callers ("leaf ← caller ← caller")
}

// pathDepth is how many frames, leaf first, name a call path.
const pathDepth = 3

// unknown names a frame perf could not symbolize.
const unknown = "[unknown]"

// ParseScript folds `perf script -F comm,ip,sym` output: each sample is a header line, then
// one frame per line (an address and a symbol, leaf first), then a blank line. comm, when not
// empty, keeps only the samples of that command (perf itself and taskset are not the replay).
func ParseScript(r io.Reader, comm string) (*Profile, error) {
	p := &Profile{self: map[string]int{}, paths: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var frames []string
	keep, inSample := false, false
	line := 0
	flush := func() {
		if inSample && keep {
			p.Samples++
			leaf := unknown
			if len(frames) > 0 {
				leaf = frames[0]
			}
			p.self[leaf]++
			p.paths[strings.Join(frames[:min(len(frames), pathDepth)], " ← ")]++
		}
		frames, inSample = frames[:0], false
	}
	for sc.Scan() {
		line++
		t := sc.Text()
		switch {
		case strings.TrimSpace(t) == "":
			flush()
		case t[0] == '\t':
			if !inSample {
				return nil, fmt.Errorf("perf script line %d: a frame before any sample header", line)
			}
			f := strings.Fields(t)
			sym := unknown
			if len(f) >= 2 {
				sym = strings.Join(f[1:], " ")
				if i := strings.LastIndex(sym, " ("); i > 0 && strings.HasSuffix(sym, ")") {
					sym = sym[:i] // a trailing (dso)
				}
			}
			frames = append(frames, sym)
		default:
			flush()
			inSample = true
			keep = comm == "" || strings.Fields(t)[0] == comm
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("perf script line %d: %w", line, err)
	}
	return p, nil
}

// Add folds q's samples into p: two runs of one arm profiled as one.
func (p *Profile) Add(q *Profile) {
	p.Samples += q.Samples
	for n, k := range q.self {
		p.self[n] += k
	}
	for n, k := range q.paths {
		p.paths[n] += k
	}
}

// share is n samples of p as a fraction.
func (p *Profile) share(n int) float64 {
	if p == nil || p.Samples == 0 {
		return 0
	}
	return float64(n) / float64(p.Samples)
}

// A FunctionDelta is one function's self-time share in each arm and the change.
type FunctionDelta struct {
	Function  string  `json:"function"`
	Baseline  float64 `json:"baseline_self_share"`
	Candidate float64 `json:"candidate_self_share"`
	Delta     float64 `json:"delta"`
	// OnlyCandidate: sampled in the candidate and never in the baseline (new code on the hot
	// path, e.g. a new monomorphization).
	OnlyCandidate bool `json:"only_candidate,omitempty"`
}

// A PathDelta is one call path's share in each arm and the change.
type PathDelta struct {
	Path      string  `json:"path"` // leaf ← caller ← caller
	Baseline  float64 `json:"baseline_share"`
	Candidate float64 `json:"candidate_share"`
	Delta     float64 `json:"delta"`
}

// A Differential is the comparison of two profiles, largest growth first.
type Differential struct {
	BaselineSamples  int             `json:"baseline_samples"`
	CandidateSamples int             `json:"candidate_samples"`
	Functions        []FunctionDelta `json:"functions"`
	Paths            []PathDelta     `json:"paths_grown"`
}

// Compare is the differential profile of base and cand: every function sampled in either,
// ordered by the growth of its self-time share (the largest first, then the largest
// shrinkage last), and the call paths whose share grew.
func Compare(base, cand *Profile) Differential {
	d := Differential{BaselineSamples: base.Samples, CandidateSamples: cand.Samples}
	names := map[string]bool{}
	for n := range base.self {
		names[n] = true
	}
	for n := range cand.self {
		names[n] = true
	}
	for n := range names {
		b, c := base.share(base.self[n]), cand.share(cand.self[n])
		d.Functions = append(d.Functions, FunctionDelta{Function: n, Baseline: b, Candidate: c, Delta: c - b,
			OnlyCandidate: base.self[n] == 0 && cand.self[n] > 0})
	}
	sort.Slice(d.Functions, func(i, j int) bool {
		if d.Functions[i].Delta != d.Functions[j].Delta {
			return d.Functions[i].Delta > d.Functions[j].Delta
		}
		return d.Functions[i].Function < d.Functions[j].Function
	})
	for p, n := range cand.paths {
		b, c := base.share(base.paths[p]), cand.share(n)
		if c > b {
			d.Paths = append(d.Paths, PathDelta{Path: p, Baseline: b, Candidate: c, Delta: c - b})
		}
	}
	sort.Slice(d.Paths, func(i, j int) bool {
		if d.Paths[i].Delta != d.Paths[j].Delta {
			return d.Paths[i].Delta > d.Paths[j].Delta
		}
		return d.Paths[i].Path < d.Paths[j].Path
	})
	return d
}

// Top is the first n function deltas (all when fewer).
func (d Differential) Top(n int) []FunctionDelta { return d.Functions[:min(n, len(d.Functions))] }

// Symbols reads `nm -S` output (address, size, type, name) and sums the sizes of code
// symbols (types t and T) by name. Lines without a size (undefined symbols) are skipped.
func Symbols(r io.Reader) (map[string]int64, error) {
	out := map[string]int64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) < 4 || (f[2] != "t" && f[2] != "T") {
			continue
		}
		size, err := strconv.ParseInt(f[1], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("nm line %d: size %q: %v", line, f[1], err)
		}
		out[strings.Join(f[3:], " ")] += size
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("nm line %d: %w", line, err)
	}
	return out, nil
}

// A SymbolDelta is one code symbol's size in each binary.
type SymbolDelta struct {
	Symbol    string `json:"symbol"`
	Baseline  int64  `json:"baseline_bytes"`
	Candidate int64  `json:"candidate_bytes"`
	Delta     int64  `json:"delta_bytes"`
}

// A TextGrowth is the `.text` attribution of a footprint change.
type TextGrowth struct {
	BaselineBytes  int64         `json:"baseline_text_bytes"` // the code symbols' sizes summed
	CandidateBytes int64         `json:"candidate_text_bytes"`
	Grown          []SymbolDelta `json:"grown"`          // largest growth first (new symbols included)
	OnlyCandidate  int           `json:"only_candidate"` // symbols the baseline does not have
	OnlyBaseline   int           `json:"only_baseline"`
}

// TextDelta attributes code-size change to symbols: every symbol that grew or is new in the
// candidate, largest growth first.
func TextDelta(base, cand map[string]int64) TextGrowth {
	var g TextGrowth
	for n, s := range base {
		g.BaselineBytes += s
		if _, ok := cand[n]; !ok {
			g.OnlyBaseline++
		}
	}
	for n, s := range cand {
		g.CandidateBytes += s
		b, ok := base[n]
		if !ok {
			g.OnlyCandidate++
		}
		if s > b {
			g.Grown = append(g.Grown, SymbolDelta{Symbol: n, Baseline: b, Candidate: s, Delta: s - b})
		}
	}
	sort.Slice(g.Grown, func(i, j int) bool {
		if g.Grown[i].Delta != g.Grown[j].Delta {
			return g.Grown[i].Delta > g.Grown[j].Delta
		}
		return g.Grown[i].Symbol < g.Grown[j].Symbol
	})
	return g
}
