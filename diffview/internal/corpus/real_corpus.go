package corpus

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"kvparity/internal/pointer"
)

// The real corpus (issue 41 item 5): real pairs kept in testdata/real, reduced, each with its
// truth, scored with the rest of the corpus and on their own (TestRealCorpus) without
// replaying anything.
//
//	release-real      the real pairs of scripts/release-pairs.py and its --heldout set
//	                  (published python -m dynamo.replay of ai-dynamo 1.3.1 and 1.4.0:
//	                  aggregated and disaggregated, KV router and round robin, vLLM, SGLang and
//	                  TRT-LLM, two traces; a version against itself and 1.3.1 against 1.4.0),
//	                  each run's --report-jsonl records reduced to a few requests
//	version-triangle  canonical reports of published offline_replay_bench 1.4.2, 1.5.1 and
//	                  1.6.1 on one trace window and arguments, each edge a case (the reduced
//	                  reports of diffview/testdata, shared)
//
// A configuration's runs (the runs its pairs compare: one trace window and flags) are reduced
// together to the requests, by what the trace fixes of them (arrival and input length), at
// which every pair of the configuration reads the truth of its full runs — the same primary
// cause, the same secondaries, the same first divergence (request, field, instant) — and
// diffview's diagnosis of it leads with the same label and is right or wrong in each column of
// the score as on the full pair (reduceConfig: witnesses first, then a ladder of first
// arrivals, then a delta debugging down to requests none of which can go). So the family's
// score is the full pairs' score when the cases were made, and a lens change is measured on
// real records; a reduced pair is no longer the whole run (its counts are the kept records').

const (
	realReleaseFamily = "release-real"
	triangleFamily    = "version-triangle"
)

// realCorpusDir holds the committed cases (cases.json and the reduced runs).
const realCorpusDir = "testdata/real"

// Formats of a real case's files.
const (
	formatRecords   = "release-records" // python -m dynamo.replay's --report-jsonl
	formatCanonical = "canonical"       // one canonical report line
)

// A realCase is one committed case: its truth, its files' format, where the full pair came
// from and what the reduction kept.
type realCase struct {
	truth
	Format  string `json:"format"`
	Source  string `json:"source"`
	Reduced string `json:"reduced"`
}

// A realManifest is testdata/real/cases.json.
type realManifest struct {
	About string     `json:"about"`
	Cases []realCase `json:"cases"`
}

// loadRealCases reads the committed cases of dir (files relative to it) as corpus cases.
func loadRealCases(dir string) ([]mutationCase, []realCase, error) {
	data, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		return nil, nil, err
	}
	var m realManifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, nil, fmt.Errorf("%s/cases.json: %w", dir, err)
	}
	out := make([]mutationCase, 0, len(m.Cases))
	for _, rc := range m.Cases {
		c := mutationCase{truth: rc.truth}
		c.FileA, c.FileB = "", ""
		for i, f := range []string{rc.FileA, rc.FileB} {
			rep, err := readRealFile(filepath.Join(dir, filepath.FromSlash(f)), rc.Format)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", rc.Case, err)
			}
			if i == 0 {
				c.ReportA = rep
			} else {
				c.ReportB = rep
			}
		}
		out = append(out, c)
	}
	return out, m.Cases, nil
}

// readRealFile reads a case's file as the report the corpus diffs: a release run's records
// laid out as releasePair lays them out, a canonical line as it is.
func readRealFile(path, format string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	switch format {
	case formatCanonical:
		return data, nil
	case formatRecords:
		r, err := releaseReport(filepath.Base(path), data)
		if err != nil {
			return nil, err
		}
		return r.Encode(), nil
	}
	return nil, fmt.Errorf("%s: unknown format %q", path, format)
}

// rereadTruth reads a committed case's truth again from its reports (the check that the
// committed labels are what the data say).
func rereadTruth(c *mutationCase, rc *realCase) (truth, error) {
	a, err := decode(c.ReportA)
	if err != nil {
		return truth{}, err
	}
	b, err := decode(c.ReportB)
	if err != nil {
		return truth{}, err
	}
	t := truth{Family: rc.Family, Variant: rc.Variant}
	switch rc.Family {
	case realReleaseFamily:
		err = readRealReleaseTruth(&t, a, b, rc.Variant == "versions")
	case triangleFamily:
		err = readTriangleTruth(&t, a, b)
	default:
		err = fmt.Errorf("family %q is not a real family", rc.Family)
	}
	return t, err
}

// readRealReleaseTruth is the release-pair family's truth (readTruth) with the causes beside
// the primary a developer names too: placements that differ with every other value of their
// request equal (placement ties, tie-order), one version's record members (schema-change) and
// the random uuids (id-drift).
func readRealReleaseTruth(t *truth, a, b *reportTree, versions bool) error {
	c := mutationCase{truth: *t}
	if err := c.readTruth(a, b, versions); err != nil {
		return err
	}
	recs, ids, lay, err := releaseRecordDiffs(a, b)
	if err != nil {
		return err
	}
	ties := 0
	for _, r := range recs {
		if r.place && !r.other {
			ties++
		}
	}
	c.Secondary = nil
	for _, s := range []struct {
		code string
		on   bool
	}{{"tie-order", ties > 0}, {"schema-change", lay}, {"id-drift", ids}} {
		if s.on && s.code != c.Primary {
			c.Secondary = append(c.Secondary, s.code)
		}
	}
	if ties > 0 {
		c.Detail += fmt.Sprintf("; %d requests on another worker with every other value equal", ties)
	}
	*t = c.truth
	return nil
}

// A recordDiff is what differs in one paired record of a release pair, beyond its uuid, one
// version's members and last-digit noise: a placement, another value, or both.
type recordDiff struct {
	place, other bool
	rec          map[string]any // B's record
}

// releaseRecordDiffs pairs a release pair's records as readTruth does and says what differs in
// each (by B's index), whether uuids differ and whether one version's members do.
func releaseRecordDiffs(a, b *reportTree) (recs map[string]*recordDiff, ids, lay bool, err error) {
	layout := oneSidedMembers(a.Requests(), b.Requests())
	rename, err := pairByTrace(a.Requests(), b.Requests(), layout)
	if err != nil {
		return nil, false, false, err
	}
	recs = map[string]*recordDiff{}
	for _, l := range diffLeaves(a, b, rename) {
		toks, _ := pointer.Parse(l.ptr)
		if len(toks) < 3 {
			continue
		}
		k := toks[len(toks)-1]
		x, okx := numOf(l.a)
		y, oky := numOf(l.b)
		r := recs[toks[1]]
		if r == nil {
			r = &recordDiff{rec: l.recB}
			recs[toks[1]] = r
		}
		switch {
		case len(toks) == 3 && layout[k]:
			lay = true
		case k == "uuid":
			ids = true
		case okx && oky && nearlyEqual(x, y):
		case k == "decode_worker_idx" || k == "prefill_worker_idx":
			r.place = true
		default:
			r.other = true
		}
	}
	return recs, ids, lay, nil
}

// nearlyEqual is readTruth's last-digit noise: equal to 1e-9 relative.
func nearlyEqual(x, y float64) bool {
	return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
}

// readTriangleTruth reads the truth of two canonical reports of two release lines on one
// trace: the members only one line writes are layout (root members, record members) and
// passed over; the first divergence is the earliest of the rest by the protocol's placement.
// Values moved before any decision differs, between two versions, are the timing model's
// (timing-change), and a decision that differs later with values after it the cascade
// beside it; the version change is always named, the record members one line adds as a
// schema change.
func readTriangleTruth(t *truth, a, b *reportTree) error {
	rootLayout := map[string]bool{}
	for k := range a.root {
		if _, ok := b.root[k]; !ok {
			rootLayout[k] = true
		}
	}
	for k := range b.root {
		if _, ok := a.root[k]; !ok {
			rootLayout[k] = true
		}
	}
	recLayout := oneSidedMembers(a.Requests(), b.Requests())
	var scope []leaf
	for _, l := range diffLeaves(a, b, nil) {
		toks, _ := pointer.Parse(l.ptr)
		switch {
		case len(toks) > 0 && rootLayout[toks[0]]:
			continue // a section one line writes
		case len(toks) >= 3 && toks[0] == "per_request" && recLayout[toks[2]]:
			continue // a record member one line writes
		case len(toks) > 0 && len(toks) < 3 && toks[0] == "per_request":
			return fmt.Errorf("record %s is on one side only", l.ptr)
		}
		scope = append(scope, l)
	}
	if len(scope) == 0 {
		return fmt.Errorf("the two reports differ in layout only")
	}
	t.First = firstOfLeaves(scope, a, b)
	// The first decision that differs, and whether values moved before it.
	var firstDecision *placed
	for i := range scope {
		p := place(&scope[i], a, b)
		if p.class == 0 && decisionKey(p.toks) && (firstDecision == nil || earlier(p, *firstDecision)) {
			firstDecision = &p
		}
	}
	// A differing decision with values moved after it is a cascade; with none, a tie (nothing
	// follows from it).
	follows := 0
	for i := range scope {
		if p := place(&scope[i], a, b); firstDecision != nil && p.class == 0 && !decisionKey(p.toks) && !earlier(p, *firstDecision) {
			follows++
		}
	}
	decided := "tie-order"
	if follows > 0 {
		decided = "decision-cascade"
	}
	toks, _ := pointer.Parse(t.First.Pointer)
	t.Secondary = nil
	switch {
	case t.First.AtMs == nil:
		return fmt.Errorf("no history value differs (first %s)", describeFirst(t.First))
	case decisionKey(toks):
		t.Primary = decided
	default:
		t.Primary = "timing-change"
		if firstDecision != nil {
			t.Secondary = append(t.Secondary, decided)
		}
	}
	t.Secondary = append(t.Secondary, "version-change")
	if len(recLayout) > 0 {
		t.Secondary = append(t.Secondary, "schema-change")
	}
	moved := 0
	for i := range scope {
		if p := place(&scope[i], a, b); p.class == 0 && (firstDecision == nil || earlier(p, *firstDecision)) {
			moved++
		}
	}
	t.Detail = fmt.Sprintf("%d records; %d values of the history moved before the first differing decision", len(b.Requests()), moved)
	if firstDecision != nil {
		t.Detail += fmt.Sprintf(" (%s at t=%g ms)", firstDecision.event, firstDecision.t)
	}
	var only []string
	for k := range rootLayout {
		only = append(only, "/"+k)
	}
	for k := range recLayout {
		only = append(only, "/per_request/*/"+k)
	}
	slices.Sort(only)
	if len(only) > 0 {
		t.Detail += "; one line's members: " + strings.Join(only, ", ")
	}
	return nil
}

// sameTruth compares two truths: primary, secondaries, and the first divergence by request
// (B's uuid: reductions renumber the records), field and instant. "" when they agree.
func sameTruth(x, y *truth, bx, by *reportTree) string {
	if x.Primary != y.Primary {
		return fmt.Sprintf("primary %s, not %s", y.Primary, x.Primary)
	}
	if !slices.Equal(x.Secondary, y.Secondary) {
		return fmt.Sprintf("secondary %v, not %v", y.Secondary, x.Secondary)
	}
	fx, fy := firstKey(x.First, bx), firstKey(y.First, by)
	if fx != fy {
		return fmt.Sprintf("first divergence %s, not %s", fy, fx)
	}
	return ""
}

// firstKey names a first divergence independently of the records' positions.
func firstKey(f *firstDivergence, b *reportTree) string {
	if f == nil {
		return "(none)"
	}
	p := f.Pointer
	if toks, _ := pointer.Parse(p); len(toks) >= 2 && toks[0] == "per_request" {
		if i, ok := pointer.Index(toks[1]); ok && i < len(b.arr("/per_request")) {
			toks[1] = uuidOf(b.arr("/per_request")[i])
			p = pointer.Join(toks)
		}
	}
	return describeFirst(&firstDivergence{Pointer: p, AtMs: f.AtMs, BeforeTimeZero: f.BeforeTimeZero})
}

// A realRun is one release run the reducer reads: its name
// ("<version>-<config>-r<rep>", scripts/release-pairs.py's), records and arrivals.
type realRun struct {
	Name, Version, Config string
	Lines                 [][]byte
	Arrivals              []float64 // per line
	Keys                  []traceKey
}

// A traceKey is what the trace fixes of a request and pairByTrace pairs records by: the
// arrival and the input length (records with the same key are reduced together).
type traceKey struct {
	at    float64
	input int
}

func compareKeys(x, y traceKey) int {
	if c := cmp.Compare(x.at, y.at); c != 0 {
		return c
	}
	return cmp.Compare(x.input, y.input)
}

var runName = regexp.MustCompile(`^(\d+\.\d+\.\d+)-(.+)-r(\d+)$`)

// readRealRun reads a run's --report-jsonl (path .../runs/<name>/records.jsonl).
func readRealRun(path string) (*realRun, error) {
	name := filepath.Base(filepath.Dir(path))
	m := runName.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("%s: the run's folder %q is not <version>-<config>-r<rep>", path, name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &realRun{Name: name, Version: m[1], Config: m[2], Lines: splitLines(data)}
	for no, line := range r.Lines {
		rec, err := decode(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, no+1, err)
		}
		at, ok := numOf(rec.root["arrival_time_ms"])
		if !ok {
			return nil, fmt.Errorf("%s:%d: no arrival_time_ms", path, no+1)
		}
		in, ok := intOf(rec.root["input_length"])
		if !ok {
			return nil, fmt.Errorf("%s:%d: no input_length", path, no+1)
		}
		r.Arrivals = append(r.Arrivals, at)
		r.Keys = append(r.Keys, traceKey{at, in})
	}
	return r, nil
}

// A realPair is one line of a release-pairs manifest.
type realPair struct {
	Name   string
	A, B   *realRun
	Source string
}

// realCutLadder are the numbers of first arrivals a reduction tries after the excerpts.
var realCutLadder = []int{16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}

// A realVerdict is what the reducer compares between a full pair and its reduction: the
// truth, and the diagnosis's top label with the three columns of its score.
type realVerdict struct {
	t                     truth
	b                     *reportTree
	top                   string
	topOK, firstOK, secOK bool
}

// reduceReleasePairs cuts every configuration's runs (reduceConfig) and makes the cases; runs
// maps each run's name to its reduced records. tmp holds the reports the diagnosis reads.
func reduceReleasePairs(pairs []realPair, tmp string, logf func(string, ...any)) (cases []realCase, runs map[string][]byte, err error) {
	runs = map[string][]byte{}
	var configs []string
	byConfig := map[string][]realPair{}
	for _, p := range pairs {
		if p.A.Config != p.B.Config {
			return nil, nil, fmt.Errorf("%s: runs of two configurations (%s, %s)", p.Name, p.A.Config, p.B.Config)
		}
		if byConfig[p.A.Config] == nil {
			configs = append(configs, p.A.Config)
		}
		byConfig[p.A.Config] = append(byConfig[p.A.Config], p)
	}
	for _, cfg := range configs {
		cs, err := reduceConfig(byConfig[cfg], runs, tmp, logf)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", cfg, err)
		}
		cases = append(cases, cs...)
	}
	for i := range cases {
		cases[i].Case = fmt.Sprintf("x%02d-%s-%s", i, realReleaseFamily, cases[i].Base)
	}
	return cases, runs, nil
}

// reduceConfig reduces one configuration's runs to the fewest requests at which every pair
// reads its full truth and its full diagnosis (the same top label, each column of the score
// right or wrong alike), and makes the pairs' cases. Requests are kept by what the trace fixes
// of them (arrival and input length: the same requests in every run, paired as in the full
// runs). It starts from the first of these that holds — each pair's witnesses (witnesses),
// then the first K requests up a ladder — and drops requests while it still holds (a greedy
// delta debugging: halves, quarters, … single requests), so that no single one left can go.
func reduceConfig(pairs []realPair, runs map[string][]byte, tmp string, logf func(string, ...any)) ([]realCase, error) {
	keys := slices.CompactFunc(slices.SortedFunc(slices.Values(pairs[0].A.Keys), compareKeys), func(x, y traceKey) bool { return x == y })
	every := func(traceKey) bool { return true }
	fulls := make([]realVerdict, len(pairs))
	var ws []traceKey
	for i, p := range pairs {
		v, err := realReleaseVerdict(p, p.A.keep(every), p.B.keep(every), tmp)
		if err != nil {
			return nil, fmt.Errorf("%s (full): %w", p.Name, err)
		}
		fulls[i] = v
		a, _ := releaseReport(p.A.Name, p.A.keep(every))
		ws = append(ws, witnesses(a, v.b, &v.t)...)
	}
	slices.SortFunc(ws, compareKeys)
	ws = slices.Compact(ws)
	// holds says every pair reads its full truth and diagnosis on the requests given ("" when
	// it does, or what differs).
	holds := func(kept []traceKey) string {
		set := map[traceKey]bool{}
		for _, k := range kept {
			set[k] = true
		}
		keep := func(k traceKey) bool { return set[k] }
		for i, p := range pairs {
			v, err := realReleaseVerdict(p, p.A.keep(keep), p.B.keep(keep), tmp)
			if err != nil {
				return p.Name + ": " + err.Error()
			}
			if why := sameTruth(&fulls[i].t, &v.t, fulls[i].b, v.b); why != "" {
				return p.Name + ": " + why
			}
			if f := fulls[i]; f.top != v.top || f.topOK != v.topOK || f.firstOK != v.firstOK || f.secOK != v.secOK {
				return fmt.Sprintf("%s: diagnosis %s (right: top %v, first %v, secondary %v), the full pair's %s (%v, %v, %v)",
					p.Name, v.top, v.topOK, v.firstOK, v.secOK, f.top, f.topOK, f.firstOK, f.secOK)
			}
		}
		return ""
	}
	starts := [][]traceKey{ws}
	for _, k := range append(slices.Clone(realCutLadder), len(keys)) {
		starts = append(starts, keys[:min(k, len(keys))])
	}
	var cur []traceKey
	for _, st := range starts {
		if why := holds(st); why != "" {
			logf("%s: %d requests are not enough: %s", pairs[0].A.Config, len(st), why)
			continue
		}
		cur = st
		break
	}
	if cur == nil {
		return nil, fmt.Errorf("no cut reads the full truth")
	}
	from := len(cur)
	for chunk := len(cur) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i < len(cur); {
			try := slices.Concat(cur[:i], cur[min(i+chunk, len(cur)):])
			if len(try) > 0 && holds(try) == "" {
				cur = try
			} else {
				i += chunk
			}
		}
	}
	set := map[traceKey]bool{}
	for _, k := range cur {
		set[k] = true
	}
	keep := func(k traceKey) bool { return set[k] }
	var out []realCase
	for i, p := range pairs {
		ra, rb := p.A.keep(keep), p.B.keep(keep)
		v, err := realReleaseVerdict(p, ra, rb, tmp)
		if err != nil {
			return nil, err
		}
		runs[p.A.Name], runs[p.B.Name] = ra, rb
		out = append(out, realCase{
			truth: v.t, Format: formatRecords, Source: p.Source,
			Reduced: fmt.Sprintf("%d of %d records (arriving at t=%s ms): the fewest at which every pair of the configuration "+
				"reads its full truth and its full diagnosis; the full pair: %s; diffview led with %s on both when the case was made",
				len(splitLines(rb)), len(p.B.Lines), keyList(cur), fulls[i].t.Detail, v.top),
		})
		out[i].FileA = "releases/" + p.A.Name + ".jsonl"
		out[i].FileB = "releases/" + p.B.Name + ".jsonl"
	}
	logf("%s: kept %d of %d requests (from %d)", pairs[0].A.Config, len(cur), len(keys), from)
	return out, nil
}

// keyList spells the kept requests' arrivals compactly: "0, 0, 3052".
func keyList(ks []traceKey) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = strconv.FormatFloat(k.at, 'g', -1, 64)
	}
	return strings.Join(parts, ", ")
}

// keep is the run's records whose trace key keep says, in the run's order.
func (r *realRun) keep(keep func(traceKey) bool) []byte {
	var b bytes.Buffer
	for i, line := range r.Lines {
		if keep(r.Keys[i]) {
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// witnesses are the trace keys of the requests a pair's truth rests on: the first
// divergence's, and the first request (by arrival) that is on another worker, on another
// worker with every other value equal (a tie), and with another value of the history.
func witnesses(a, b *reportTree, t *truth) []traceKey {
	var out []traceKey
	keyOf := func(r map[string]any) (traceKey, bool) {
		at, ok1 := numOf(r["arrival_time_ms"])
		in, ok2 := intOf(r["input_length"])
		return traceKey{at, in}, ok1 && ok2
	}
	arrival := func(r map[string]any) {
		if k, ok := keyOf(r); ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	reqs := b.arr("/per_request")
	if toks, _ := pointer.Parse(t.First.Pointer); len(toks) >= 2 && toks[0] == "per_request" {
		if i, ok := pointer.Index(toks[1]); ok && i < len(reqs) {
			r, _ := reqs[i].(map[string]any)
			arrival(r)
		}
	}
	recs, _, _, err := releaseRecordDiffs(a, b)
	if err != nil {
		return out
	}
	first := func(pick func(*recordDiff) bool) { // (the smallest key: the same every time)
		var best *recordDiff
		var bestKey traceKey
		for _, r := range recs {
			k, ok := keyOf(r.rec)
			if ok && pick(r) && (best == nil || compareKeys(k, bestKey) < 0) {
				best, bestKey = r, k
			}
		}
		if best != nil {
			arrival(best.rec)
		}
	}
	first(func(r *recordDiff) bool { return r.place })
	first(func(r *recordDiff) bool { return r.place && !r.other })
	first(func(r *recordDiff) bool { return r.other })
	return out
}

// realReleaseVerdict reads a release pair's truth from its (cut) records and diagnoses it.
func realReleaseVerdict(p realPair, recA, recB []byte, tmp string) (realVerdict, error) {
	t, b, err := realReleaseTruthOf(p, recA, recB)
	if err != nil {
		return realVerdict{}, err
	}
	a, _ := releaseReport(p.A.Name, recA)
	pa, pb := filepath.Join(tmp, "a.jsonl"), filepath.Join(tmp, "b.jsonl")
	if err := os.WriteFile(pa, a.Encode(), 0o644); err != nil {
		return realVerdict{}, err
	}
	if err := os.WriteFile(pb, b.Encode(), 0o644); err != nil {
		return realVerdict{}, err
	}
	r, err := diagnoseFiles(pa, pb)
	if err != nil {
		return realVerdict{}, err
	}
	v := realVerdict{t: t, b: b, top: r.Top}
	v.topOK, v.firstOK, v.secOK = judge(&t, r)
	return v, nil
}

// realReleaseTruthOf reads a release pair's truth from its (cut) records.
func realReleaseTruthOf(p realPair, recA, recB []byte) (truth, *reportTree, error) {
	a, err := releaseReport(p.A.Name, recA)
	if err != nil {
		return truth{}, nil, err
	}
	b, err := releaseReport(p.B.Name, recB)
	if err != nil {
		return truth{}, nil, err
	}
	variant := "same-version"
	if p.A.Version != p.B.Version {
		variant = "versions"
	}
	t := truth{Base: p.Name, Family: realReleaseFamily, Variant: variant, Runs: []string{p.A.Name, p.B.Name}}
	err = readRealReleaseTruth(&t, a, b, variant == "versions")
	return t, b, err
}

// readRealPairs reads a manifest of scripts/release-pairs.py (name, A records, B records,
// A summary, B summary; tabs), each run once.
func readRealPairs(manifest, source string, seen map[string]*realRun) ([]realPair, error) {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return nil, err
	}
	var out []realPair
	for no, line := range splitLines(data) {
		f := strings.Split(string(line), "\t")
		if len(f) < 3 {
			return nil, fmt.Errorf("%s:%d: want name, A records, B records", manifest, no+1)
		}
		p := realPair{Name: f[0], Source: source}
		for i, path := range f[1:3] {
			name := filepath.Base(filepath.Dir(path))
			r := seen[name]
			if r == nil {
				if r, err = readRealRun(path); err != nil {
					return nil, err
				}
				seen[name] = r
			}
			if i == 0 {
				p.A = r
			} else {
				p.B = r
			}
		}
		out = append(out, p)
	}
	return out, nil
}
