package corpus

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"kvparity/internal/pointer"
)

// Release pairs: two real runs of Dynamo's release replay (python -m dynamo.replay of
// ai-dynamo), not a mutation: one version against itself (its router breaks ties with an
// unseeded RNG and its uuids are random, so a repetition is another run) or one version
// against the next. The generator draws the runs (releaseReplays: both topologies, both
// routers, drawn worker counts, arrival speeds, traces and windows), the caller replays them,
// and releasePairs makes the cases. The truth is read off the two runs by the protocol alone,
// with no lens: records are paired by what the trace fixes (arrival and input length), a
// member only one side's records carry is layout (passed over, as the first divergence
// does), and the earliest differing history value names the cause.

// A releaseReplay is one run the family draws.
type releaseReplay struct {
	Name    string // "<version>-<config>-r<rep>"
	Version string
	Config  string // what the runs of one pair share: topology, router, flags, trace window
	Rep     int
	Trace   string // a file of the shared traces
	Offset  int    // the window: lines Offset+1 .. Offset+Count
	Count   int
	Args    []string // dynamo.replay's flags, without the report files and the trace
}

// releaseFamily is the family of the real pairs.
const releaseFamily = "release-pair"

// releasePairRequests is each run's size: a few seconds per replay.
const releasePairRequests = 300

// releaseReplays draws the family's runs from seed: the aggregated and the disaggregated
// topology each with the KV router and with round robin, each with its worker counts, arrival
// speed-up, trace and window drawn; every configuration runs twice on every version.
func releaseReplays(seed int64, versions []string) []releaseReplay {
	rng := rand.New(rand.NewPCG(uint64(seed), hash("release-pair/replays")))
	traces := []struct {
		name, file string
		lines      int
	}{{"moon", "mooncake_trace_1000.jsonl", 1000}, {"conv", "conversation_trace.jsonl", 12031}}
	var out []releaseReplay
	for _, topo := range []string{"agg", "disagg"} {
		for _, router := range []string{"kv", "rr"} {
			tr := traces[rng.IntN(len(traces))]
			off := rng.IntN(tr.lines - releasePairRequests + 1)
			speed := []string{"1", "2", "4"}[rng.IntN(3)]
			var args []string
			var shape string
			if topo == "agg" {
				w := 2 + rng.IntN(3)
				shape = fmt.Sprintf("agg%d", w)
				args = []string{"--num-workers", strconv.Itoa(w)}
			} else {
				p, d := 1+rng.IntN(2), 2+rng.IntN(2)
				shape = fmt.Sprintf("disagg%d+%d", p, d)
				args = []string{"--num-prefill-workers", strconv.Itoa(p), "--num-decode-workers", strconv.Itoa(d),
					"--prefill-engine-args", `{"worker_type":"prefill"}`, "--decode-engine-args", `{"worker_type":"decode"}`}
			}
			mode := map[string]string{"kv": "kv_router", "rr": "round_robin"}[router]
			args = append(args, "--router-mode", mode, "--arrival-speedup-ratio", speed, "--trace-block-size", "512")
			config := fmt.Sprintf("%s-%s-x%s-%s%d@%d", shape, router, speed, tr.name, releasePairRequests, off)
			for _, v := range versions {
				for rep := 1; rep <= 2; rep++ {
					out = append(out, releaseReplay{Name: fmt.Sprintf("%s-%s-r%d", v, config, rep), Version: v, Config: config, Rep: rep,
						Trace: tr.file, Offset: off, Count: releasePairRequests, Args: args})
				}
			}
		}
	}
	return out
}

// releasePairs makes the family's cases from the runs' --report-jsonl records (by run name):
// per configuration, every version against itself (repetition 1 against 2), and each version
// against the next (repetition 1 of each). A run missing from records is skipped.
func releasePairs(runs []releaseReplay, records map[string][]byte) []mutationCase {
	var out []mutationCase
	byConfig := map[string][]releaseReplay{}
	var configs []string
	for _, r := range runs {
		if _, ok := records[r.Name]; !ok {
			continue
		}
		if byConfig[r.Config] == nil {
			configs = append(configs, r.Config)
		}
		byConfig[r.Config] = append(byConfig[r.Config], r)
	}
	for _, cfg := range configs {
		rs := byConfig[cfg]
		find := func(v string, rep int) (releaseReplay, bool) {
			i := slices.IndexFunc(rs, func(r releaseReplay) bool { return r.Version == v && r.Rep == rep })
			if i < 0 {
				return releaseReplay{}, false
			}
			return rs[i], true
		}
		var versions []string
		for _, r := range rs {
			if !slices.Contains(versions, r.Version) {
				versions = append(versions, r.Version)
			}
		}
		for i, v := range versions {
			if a, ok := find(v, 1); ok {
				if b, ok := find(v, 2); ok {
					out = append(out, releasePair("same-version", a, b, records))
				}
				if i+1 < len(versions) {
					if b, ok := find(versions[i+1], 1); ok {
						out = append(out, releasePair("versions", a, b, records))
					}
				}
			}
		}
	}
	for i := range out {
		out[i].Case = fmt.Sprintf("r%02d-%s-%s-%s", i, releaseFamily, out[i].Variant, out[i].Base)
	}
	return out
}

// releasePair makes one case and reads its truth.
func releasePair(variant string, a, b releaseReplay, records map[string][]byte) mutationCase {
	c := mutationCase{truth: truth{Base: a.Name + "-vs-" + b.Version + "-r" + strconv.Itoa(b.Rep), Family: releaseFamily, Variant: variant,
		Runs: []string{a.Name, b.Name}}}
	ra, err := releaseReport(a.Name, records[a.Name])
	if err == nil {
		var rb *reportTree
		if rb, err = releaseReport(b.Name, records[b.Name]); err == nil {
			c.ReportA, c.ReportB = ra.Encode(), rb.Encode()
			err = c.readTruth(ra, rb, a.Version != b.Version)
		}
	}
	if err != nil {
		c.Problem = err.Error()
	}
	return c
}

// releaseReport lays out a run's records as a report, in the order the run wrote them.
func releaseReport(name string, records []byte) (*reportTree, error) {
	var lines []any
	for no, line := range splitLines(records) {
		r, err := decode(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, no+1, err)
		}
		lines = append(lines, r.root)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no records", name)
	}
	return &reportTree{root: map[string]any{"per_request": lines}}, nil
}

// A leaf's part in the truth.
const (
	leafHistory  = iota // a value of the history: a time, a length, a reuse
	leafPlace           // a placement (the worker a request went to)
	leafIdentity        // a request's uuid
	leafLayout          // a member only one side's records carry
	leafNoise           // a number equal to 1e-9 relative (a sum in another order)
)

// readTruth pairs the records, places every differing leaf and names the cause.
func (c *mutationCase) readTruth(a, b *reportTree, versions bool) error {
	layout := oneSidedMembers(a.Requests(), b.Requests())
	rename, err := pairByTrace(a.Requests(), b.Requests(), layout)
	if err != nil {
		return err
	}
	leaves := diffLeaves(a, b, rename)
	kinds := make([]int, len(leaves))
	var hist, rest []leaf
	places := 0
	for i := range leaves {
		l := &leaves[i]
		toks, _ := pointer.Parse(l.ptr)
		if len(toks) < 3 {
			return fmt.Errorf("record %s is on one side only: the trace's identity did not pair it", l.ptr)
		}
		x, okx := numOf(l.a)
		y, oky := numOf(l.b)
		switch k := toks[len(toks)-1]; {
		case len(toks) == 3 && layout[k]:
			kinds[i] = leafLayout
		case k == "uuid":
			kinds[i] = leafIdentity
		case okx && oky && math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)):
			kinds[i] = leafNoise
		case k == "decode_worker_idx" || k == "prefill_worker_idx":
			kinds[i] = leafPlace
			places++
		}
		if kinds[i] == leafHistory || kinds[i] == leafPlace {
			hist = append(hist, *l)
		} else if kinds[i] != leafLayout {
			rest = append(rest, *l)
		}
	}
	count := func(k int) int {
		n := 0
		for _, x := range kinds {
			if x == k {
				n++
			}
		}
		return n
	}
	c.Detail = fmt.Sprintf("%d records; %d values of the history differ (%d placements), %d uuids, %d of one side's layout, %d last-digit",
		len(b.Requests()), len(hist), places, count(leafIdentity), count(leafLayout), count(leafNoise))
	// The first divergence: one side's layout is passed over while anything else differs.
	scope := slices.Concat(hist, rest)
	if len(scope) == 0 {
		scope = leaves
	}
	if len(scope) == 0 {
		return fmt.Errorf("the two runs' records are equal")
	}
	c.First = firstOfLeaves(scope, a, b)
	// Only identities differ when no history value does, or when every one is a placement and
	// the placements are one renaming of the workers.
	// Such a renaming is a placement tie (workers tied on cost), a cause of its own beside the
	// random uuids (issue 41): it leads them and one version's layout, and they are named too.
	renamed := len(hist) > 0 && places == len(hist) && consistentRenaming(a.Requests(), b.Requests(), rename)
	switch {
	case renamed:
		c.Primary = "tie-order" // a whole run on the workers under other names
		if count(leafIdentity) > 0 {
			c.Secondary = []string{"id-drift"}
		}
	case len(hist) == 0 && versions && count(leafLayout) > 0:
		c.Primary = "schema-change" // two versions' layouts, the rest identities
	case len(hist) == 0 && count(leafIdentity) > 0:
		c.Primary = "id-drift" // random uuids
	case len(hist) == 0:
		c.Primary = "float-noise"
	default:
		// The earliest instant of the history; a placement there is the first decision only
		// if both runs took it at that instant (one taken later in B followed a moved time).
		fp := place(&hist[0], a, b)
		for i := range hist {
			if p := place(&hist[i], a, b); earlier(p, fp) {
				fp = p
			}
		}
		placement, first := false, ""
		for i := range hist {
			l := &hist[i]
			if p := place(l, a, b); p.class != fp.class || p.t != fp.t {
				continue
			}
			if first == "" {
				first = l.ptr
			}
			if strings.HasSuffix(l.ptr, "_worker_idx") && !decisionMoved(l) {
				placement = true
			}
		}
		switch {
		case placement && places == len(hist):
			c.Primary = "tie-order" // placements differ, every outcome equal
		case placement:
			c.Primary = "decision-cascade"
		case versions:
			c.Primary = "timing-change" // timed otherwise before any placement differs
		default:
			return fmt.Errorf("one version's runs differ first at %s, before any placement: no known cause", first)
		}
	}
	return nil
}

// pairByTrace pairs B's records with A's by what the trace fixes (arrival time and input
// length); records alike in both pair first with a record of equal outcome (read on the
// members both sides carry: not layout), then in the order of their first tokens. It returns
// B's uuid → A's.
func pairByTrace(ra, rb []map[string]any, layout map[string]bool) (map[string]string, error) {
	key := func(r map[string]any) string {
		return string(appendValue(nil, r["arrival_time_ms"])) + "/" + string(appendValue(nil, r["input_length"]))
	}
	groups := map[string][2][]int{}
	for i, r := range ra {
		g := groups[key(r)]
		g[0] = append(g[0], i)
		groups[key(r)] = g
	}
	for j, r := range rb {
		g := groups[key(r)]
		g[1] = append(g[1], j)
		groups[key(r)] = g
	}
	rename := map[string]string{}
	// A request's outcome: every value but its identity and its placement (so that records
	// alike pair across a tie broken otherwise or workers renamed).
	outcome := func(r map[string]any) string {
		o := map[string]any{}
		for k, v := range r {
			if k != "uuid" && !strings.HasSuffix(k, "_worker_idx") && !layout[k] {
				o[k] = v
			}
		}
		return string(appendValue(nil, o))
	}
	byFirst := func(rs []map[string]any) func(i, j int) int {
		return func(i, j int) int {
			x, _ := numOf(rs[i]["first_token_ms"])
			y, _ := numOf(rs[j]["first_token_ms"])
			return cmp.Compare(x, y)
		}
	}
	for k, g := range groups {
		as, bs := g[0], g[1]
		if len(as) != len(bs) {
			return nil, fmt.Errorf("%d records of A and %d of B arrive at %s", len(as), len(bs), k)
		}
		var restA, restB []int
		used := make([]bool, len(as))
		for _, j := range bs {
			at := -1
			for n, i := range as {
				if !used[n] && outcome(ra[i]) == outcome(rb[j]) {
					at = n
					break
				}
			}
			if at < 0 {
				restB = append(restB, j)
				continue
			}
			used[at] = true
			rename[uuidOf(rb[j])] = uuidOf(ra[as[at]])
		}
		for n, i := range as {
			if !used[n] {
				restA = append(restA, i)
			}
		}
		slices.SortStableFunc(restA, byFirst(ra))
		slices.SortStableFunc(restB, byFirst(rb))
		for n := range restA {
			rename[uuidOf(rb[restB[n]])] = uuidOf(ra[restA[n]])
		}
	}
	return rename, nil
}

// oneSidedMembers are the members no record of the other side carries.
func oneSidedMembers(ra, rb []map[string]any) map[string]bool {
	keys := func(rs []map[string]any) map[string]bool {
		m := map[string]bool{}
		for _, r := range rs {
			for k := range r {
				m[k] = true
			}
		}
		return m
	}
	ka, kb := keys(ra), keys(rb)
	out := map[string]bool{}
	for k := range ka {
		if !kb[k] {
			out[k] = true
		}
	}
	for k := range kb {
		if !ka[k] {
			out[k] = true
		}
	}
	return out
}

// consistentRenaming says every paired record's placements map A's workers to B's by one
// bijection per placement field.
func consistentRenaming(ra, rb []map[string]any, rename map[string]string) bool {
	byUUID := map[string]map[string]any{}
	for _, r := range ra {
		byUUID[uuidOf(r)] = r
	}
	for _, k := range []string{"decode_worker_idx", "prefill_worker_idx"} {
		fwd, back := map[string]string{}, map[string]string{}
		for _, r := range rb {
			x, y := string(appendValue(nil, byUUID[rename[uuidOf(r)]][k])), string(appendValue(nil, r[k]))
			if w, ok := fwd[x]; ok && w != y {
				return false
			}
			if w, ok := back[y]; ok && w != x {
				return false
			}
			fwd[x], back[y] = y, x
		}
	}
	return true
}

// decisionMoved says the placement of leaf l was made at another instant in each run: its
// hand-off (or, aggregated, its arrival) differs.
func decisionMoved(l *leaf) bool {
	toks, _ := pointer.Parse(l.ptr)
	for _, k := range append(slices.Clone(derivedFrom[toks[len(toks)-1]]), "arrival_time_ms") {
		x, okx := numOf(l.recA[k])
		y, oky := numOf(l.recB[k])
		if okx && oky {
			return x != y
		}
	}
	return false
}
