package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"kvparity/diffview"
	"kvparity/internal/jsonscan"
)

// ---- report versions: the canonical report shapes of Dynamo's release lines ----
//
// Each release line of Dynamo's offline_replay_bench writes its canonical report in a shape of
// its own, read here from the published crates:
//
//	1.4.x  dynamo-bench 1.4.2, canonical_report: no schema_version and no metadata; the root
//	       holds engine_type, native_router_event_visibility and replay_bench beside summary
//	       and per_request.
//	1.5.x  dynamo-bench 1.5.1, canonical_metadata (aisimulate-core 0.12.0 builds the record):
//	       metadata with schema_version "dynamo.offline-replay.v1", aic_* keys (execution,
//	       semantic_features, performance_model/aic), each engine_config role the flat
//	       serialization of dynamo-mocker's MockEngineArgs; coverage and planner sections.
//	1.6.x  dynamo-bench 1.6.1 (aisimulate-core 0.13.0): the same schema_version, ais_* keys,
//	       each role a MockerConfig: aisimulate's EngineLaunchConfig with the engine's settings
//	       under engine (engine_type is engine/backend, kv_bytes_per_token its serde alias
//	       engine/kv_transfer_bytes_per_token) and Dynamo's runtime options under dynamo; the
//	       summary adds committed_prefill_tokens, kv_eviction_policy, power_w, power_coverage.
//
// Their --timings-jsonl lines (the perf stage reads them, the diff does not) differ as well:
// 1.6.1's add replay_call_ms, replay_cpu_ms, trace_load_ms and peak_rss_kib to 1.5.1's.
//
// When A and B are of two known lines, the field map between them (lineChanges, composed
// over the lines between) pairs the members one side lacks: a member moved or renamed with
// its value kept, or one that only one line writes. Those pointers are the version change,
// named as its own cause with the map it applied (detectVersionChange); a moved or renamed
// setting whose value differs is configuration (detectConfig), and what else differs is
// diagnosed as usual. A shape neither line's marks fit (the embedded engine's, a hand-made
// report) is no known version: the generic layout lenses read it.

// A releaseLine is the canonical report shape of one release line.
type releaseLine struct {
	name  string // "1.5.x"
	shape string // how its reports are told apart, for the evidence
	is    func(*diffview.Doc) bool
}

// schemaV1 is the schema_version 1.5.x and 1.6.x write.
const schemaV1 = `"dynamo.offline-replay.v1"`

// releaseLines are the supported release lines, oldest first; lineChanges[i] maps
// releaseLines[i]'s layout to releaseLines[i+1]'s.
var releaseLines = []releaseLine{
	{"1.4.x", "no schema_version, no metadata: engine_type and native_router_event_visibility at the root", func(dc *diffview.Doc) bool {
		return !has(dc, "/metadata") && has(dc, "/engine_type") && has(dc, "/native_router_event_visibility") && (has(dc, "/per_request") || has(dc, "/summary"))
	}},
	{"1.5.x", "schema_version dynamo.offline-replay.v1, aic_* keys, engine configuration MockEngineArgs", func(dc *diffview.Doc) bool {
		v, _ := dc.At("/metadata/schema_version")
		return v == schemaV1 && has(dc, "/metadata/semantic_features/aic_forward_pass") && everyRole(dc, "engine_type")
	}},
	{"1.6.x", "schema_version dynamo.offline-replay.v1, ais_* keys, engine configuration MockerConfig (engine, dynamo)", func(dc *diffview.Doc) bool {
		v, _ := dc.At("/metadata/schema_version")
		return v == schemaV1 && has(dc, "/metadata/semantic_features/ais_forward_pass") && everyRole(dc, "engine") && everyRole(dc, "dynamo")
	}},
}

// A lineChange is what one release line changed in the report's layout, older to newer.
type lineChange struct {
	moves []fieldMove // a member of the older layout and where the newer one writes it
	// onlyOld and onlyNew are pointer patterns of members (with everything under them) only
	// the older or only the newer line writes.
	onlyOld, onlyNew []string
	values           []valueAlias // a setting's value the newer line spells otherwise
}

// A fieldMove maps a pointer of one layout to the other's: a "*" segment is any one segment
// (the engine_config role), carried over to the "*" of the other side in order; members under
// the pointer move with it.
type fieldMove struct{ from, to string }

// A valueAlias is one setting's value as each line spells it (raw JSON).
type valueAlias struct{ ptr, old, new string }

// role is the pointer of an engine_config role's member.
func role(key string) string { return "/metadata/engine_config/*/" + key }

// into moves role members into a sub-object of the role, their keys kept.
func into(sub string, keys ...string) []fieldMove {
	out := make([]fieldMove, len(keys))
	for i, k := range keys {
		out[i] = fieldMove{role(k), role(sub + "/" + k)}
	}
	return out
}

var lineChanges = []lineChange{
	{ // 1.4.x → 1.5.x: the run's settings move into metadata, which 1.4.x did not write
		moves: []fieldMove{
			{"/engine_type", role("engine_type")},
			{"/replay_bench", "/metadata/replay_bench"},
		},
		onlyOld: []string{"/native_router_event_visibility"},
		onlyNew: []string{"/metadata", "/coverage", "/planner", "/summary/{num_e2e_latency_samples,num_tpot_samples,num_ttft_samples}"},
	},
	{ // 1.5.x → 1.6.x: MockEngineArgs → MockerConfig, aic_* → ais_*
		moves: slices.Concat(
			into("engine", "aic_mtp_seed", "aic_nextn", "aic_nextn_accept_rates", "block_size", "decode_speedup_ratio",
				"enable_chunked_prefill", "enable_prefix_caching", "kv_transfer_bandwidth", "kv_transfer_timing_mode",
				"max_model_len", "max_num_batched_tokens", "max_num_seqs", "num_gpu_blocks", "preemption_mode", "sglang",
				"speedup_ratio", "trtllm", "worker_type"),
			into("dynamo", "bootstrap_port", "enable_local_indexer", "handoff_session_timeout_ms", "reasoning",
				"response_replay_trace_path", "router_queue_policy", "zmq_kv_events_port", "zmq_replay_port"),
			[]fieldMove{
				{role("engine_type"), role("engine/backend")},
				{role("kv_bytes_per_token"), role("engine/kv_transfer_bytes_per_token")},
				{role("performance_model/aic"), role("performance_model/ais")},
				{"/metadata/execution/aic_performance_model_implementation", "/metadata/execution/ais_performance_model_implementation"},
				{"/metadata/execution/aic_prefill_load_estimator", "/metadata/execution/ais_prefill_load_estimator"},
				{"/metadata/execution/aic_prefill_load_estimator_implementation", "/metadata/execution/ais_prefill_load_estimator_implementation"},
				{"/metadata/semantic_features/aic_forward_pass", "/metadata/semantic_features/ais_forward_pass"},
			}),
		// planner_profile_data became the timing model's dynamo_profile; the router writes
		// shared_cache_multiplier only when it is set (an Option since 1.6).
		onlyOld: []string{role("planner_profile_data"), "/metadata/router/config/shared_cache_multiplier"},
		onlyNew: []string{
			role("{cuda_graph_reserved_bytes,num_gpu_blocks_is_explicit,tensor_parallel_size}"),
			role("engine/{emit_kv_events,emit_kv_token_ids,prefill_decode_interval,prefill_schedule_interval,timing_model}"),
			"/summary/{committed_prefill_tokens,kv_eviction_policy,power_coverage,power_w}",
		},
		values: []valueAlias{{role("performance_model/kind"), `"aic_callback"`, `"ais_callback"`}},
	},
}

// has says dc holds a value at ptr.
func has(dc *diffview.Doc, ptr string) bool { _, ok := dc.Value(ptr); return ok }

// everyRole says every engine_config role (at least one) is an object holding key.
func everyRole(dc *diffview.Doc, key string) bool {
	ec, ok := dc.Value("/metadata/engine_config")
	if !ok || dc.Kind(ec) != jsonscan.Object || dc.Scanner.Tape[ec].N == 0 {
		return false
	}
	for _, m := range dc.Members(ec) {
		if dc.Kind(m.Val) != jsonscan.Object {
			return false
		}
		if _, ok := dc.Scanner.Member(m.Val, key); !ok {
			return false
		}
	}
	return true
}

// lineOf is the index of the release line whose shape dc has (-1: none).
func lineOf(dc *diffview.Doc) int {
	for i, l := range releaseLines {
		if l.is(dc) {
			return i
		}
	}
	return -1
}

// compose is x then y (x's newer line is y's older).
func compose(x, y lineChange) lineChange {
	out := lineChange{
		onlyOld: slices.Concat(x.onlyOld, y.onlyOld),
		onlyNew: slices.Concat(x.onlyNew, y.onlyNew),
		values:  slices.Concat(x.values, y.values),
	}
	used := map[int]bool{}
	for _, m := range x.moves {
		for j, n := range y.moves {
			if n.from == m.to {
				m.to, used[j] = n.to, true
				break
			}
		}
		out.moves = append(out.moves, m)
	}
	for j, n := range y.moves {
		if !used[j] {
			out.moves = append(out.moves, n)
		}
	}
	return out
}

// A lineShift is a version change between A and B: their lines and the layout map oriented
// from A's pointers to B's.
type lineShift struct {
	a, b    releaseLine
	moves   []fieldMove
	onlyA   []string // members only A's line writes
	onlyB   []string // and only B's
	aliases []valueAlias
	newer   bool // B's line is the newer
}

// shiftOf is the version change between A and B, nil when either shape is no known line or
// both are of one line.
func shiftOf(a, b *diffview.Doc) *lineShift {
	la, lb := lineOf(a), lineOf(b)
	if la < 0 || lb < 0 || la == lb {
		return nil
	}
	lo, hi := min(la, lb), max(la, lb)
	ch := lineChanges[lo]
	for i := lo + 1; i < hi; i++ {
		ch = compose(ch, lineChanges[i])
	}
	s := &lineShift{a: releaseLines[la], b: releaseLines[lb], newer: lb > la}
	if s.newer {
		s.moves, s.onlyA, s.onlyB, s.aliases = ch.moves, ch.onlyOld, ch.onlyNew, ch.values
	} else { // a downgrade: the map read backwards
		for _, m := range ch.moves {
			s.moves = append(s.moves, fieldMove{m.to, m.from})
		}
		for _, v := range ch.values {
			s.aliases = append(s.aliases, valueAlias{v.ptr, v.new, v.old})
		}
		s.onlyA, s.onlyB = ch.onlyNew, ch.onlyOld
	}
	return s
}

// target maps A's pointer (as segments) through the moves: B's segments, with wild set where
// B's pointer has a "*" no segment of A's filled (any one segment); from and to are the
// lengths of the move's two pointers (what of segs moved, and where it went).
func (s *lineShift) target(segs []string) (tgt []string, wild []bool, from, to int, ok bool) {
	for _, m := range s.moves {
		fs := diffview.SplitPointer(m.from)
		if len(segs) < len(fs) {
			continue
		}
		var caps []string
		match := true
		for i, f := range fs {
			switch {
			case f == "*":
				caps = append(caps, segs[i])
			case f != segs[i]:
				match = false
			}
			if !match {
				break
			}
		}
		if !match {
			continue
		}
		ts := diffview.SplitPointer(m.to)
		for _, t := range ts {
			if t == "*" && len(caps) > 0 {
				t, caps = caps[0], caps[1:]
				tgt, wild = append(tgt, t), append(wild, false)
				continue
			}
			tgt, wild = append(tgt, t), append(wild, t == "*")
		}
		for _, r := range segs[len(fs):] {
			tgt, wild = append(tgt, r), append(wild, false)
		}
		return tgt, wild, len(fs), len(ts), true
	}
	return nil, nil, 0, 0, false
}

// matches says leaf segments segs are target (wild: any one segment there).
func matchesTarget(segs, target []string, wild []bool) bool {
	if len(segs) != len(target) {
		return false
	}
	for i := range segs {
		if !wild[i] && segs[i] != target[i] {
			return false
		}
	}
	return true
}

// under says pointer ptr is a member a pattern names, or under one.
func under(patterns []string, ptr string) bool {
	for _, p := range patterns {
		if diffview.MatchPattern(p, ptr) || diffview.MatchPattern(p+"/**", ptr) {
			return true
		}
	}
	return false
}

// How a leaf of A's layout pairs with B's.
type pairKind uint8

const (
	byMap   pairKind = iota // the release table's field map: moved or renamed
	sameKey                 // the same key under another path (configLayoutOf's moved)
	// nulled: one side writes null where the other writes an object (its defaults written
	// out, or an identity of nulls): the pair is the object's, from or to a stand-in leaf.
	nulled
)

// A leafPair is one of A's layout leaves and where B has it.
type leafPair struct {
	from, to metaLeaf
	how      pairKind
	n, set   int // a nulled pair's object: its leaves, and how many are not null
}

// differs says the pair holds another value in B: a setting that differs, not the layout.
func (p leafPair) differs() bool {
	if p.how == nulled {
		return false
	}
	return p.from.raw != p.to.raw && !sameNumber(p.from.raw, p.to.raw)
}

// renamed says the pair's key differs (engine_type → backend), not only its path.
func (p leafPair) renamed() bool {
	return diffview.LastSegment(p.from.ptr) != diffview.LastSegment(p.to.ptr)
}

// A versionLayout is what the version change accounts for in a diff.
type versionLayout struct {
	shift        *lineShift
	pairs        []leafPair
	onlyA, onlyB []metaLeaf // leaves the other side has nowhere
	claimed      []bool     // per change: the version change's
	n            int        // claimed changes
	// held are the layout changes the version cannot claim: a moved setting whose value
	// differs is in them (configuration), or a member no line is known to write outside the
	// metadata (diagnosed as usual).
	held    []int
	unknown []string // one-sided members the release table does not name
	aliased []int    // settings a line spells otherwise (valueAlias), claimed
}

// versionLayout is the diff's version change, made once; nil when A and B are not of two
// known release lines.
func (d *Diff) versionLayout() *versionLayout {
	if !d.versionDone {
		d.versionDone = true
		if s := shiftOf(d.DocA, d.DocB); s != nil {
			d.version = versionLayoutOf(d, s)
		}
	}
	return d.version
}

// claimedByVersion says Changes[i] is the version change's.
func (d *Diff) claimedByVersion(i int) bool {
	v := d.versionLayout()
	return v != nil && v.claimed[i]
}

// layoutMember says change c is a member one side lacks of an object both sides hold,
// outside the per-request records (whose fields schema.go reads).
func (d *Diff) layoutMember(c *diffview.Change) bool {
	if c.Kind == diffview.Changed || strings.HasPrefix(c.Pointer, "/per_request") {
		return false
	}
	segs := diffview.SplitPointer(c.Pointer)
	if len(segs) == 0 {
		return false
	}
	parent := diffview.PointerOf(segs[:len(segs)-1])
	if len(segs) == 1 {
		parent = ""
	}
	pa, oka := d.DocA.Value(parent)
	pb, okb := d.DocB.Value(parent)
	return oka && okb && d.DocA.Kind(pa) == jsonscan.Object && d.DocB.Kind(pb) == jsonscan.Object
}

func versionLayoutOf(d *Diff, s *lineShift) *versionLayout {
	v := &versionLayout{shift: s, claimed: make([]bool, len(d.Changes))}
	var la, lb []metaLeaf
	var layout []int
	for i := range d.Changes {
		c := &d.Changes[i]
		if c.Kind == diffview.Changed {
			if strings.HasPrefix(c.Pointer, "/metadata/") && slices.ContainsFunc(s.aliases, func(a valueAlias) bool {
				return a.old == c.A && a.new == c.B && diffview.MatchPattern(a.ptr, c.Pointer)
			}) {
				v.aliased = append(v.aliased, i)
				v.claimed[i] = true
			}
			continue
		}
		if !d.layoutMember(c) {
			continue
		}
		layout = append(layout, i)
		side, dc := &la, d.DocA
		if c.Kind == diffview.Added {
			side, dc = &lb, d.DocB
		}
		if ti, ok := dc.Value(c.Pointer); ok {
			k := len(*side)
			*side = metaLeaves(dc, c.Pointer, ti, *side)
			for j := k; j < len(*side); j++ {
				(*side)[j].change = i
			}
		}
	}
	usedA, usedB := make([]bool, len(la)), make([]bool, len(lb))
	byPtr := map[string]int{}
	for j, l := range lb {
		byPtr[l.ptr] = j
	}
	type objKey struct {
		obj string // A's object
		j   int    // B's null leaf
	}
	objs := map[objKey]*leafPair{}
	var objOrder []objKey
	for i, l := range la {
		tgt, wild, fromLen, toLen, ok := s.target(l.seg)
		if !ok {
			continue
		}
		for j, r := range lb {
			if matchesTarget(r.seg, tgt, wild) {
				v.pairs = append(v.pairs, leafPair{from: l, to: r, how: byMap})
				usedA[i], usedB[j] = true, true
			}
		}
		if usedA[i] || slices.Contains(wild, true) {
			continue
		}
		// B writes null where A wrote an object (its defaults, or an identity of nulls).
		for k := len(tgt) - 1; k > 0 && !usedA[i]; k-- {
			j, ok := byPtr[diffview.PointerOf(tgt[:k])]
			if !ok || lb[j].raw != "null" {
				continue
			}
			obj := l.seg[:fromLen+max(0, k-toLen)]
			key := objKey{diffview.PointerOf(obj), j}
			p := objs[key]
			if p == nil {
				p = &leafPair{from: metaLeaf{ptr: key.obj, seg: obj, raw: "{…}", change: l.change}, to: lb[j], how: nulled}
				objs[key], objOrder = p, append(objOrder, key)
			}
			p.n++
			if l.raw != "null" {
				p.set++
			}
			usedA[i], usedB[j] = true, true
		}
		if usedA[i] || l.raw != "null" {
			continue
		}
		// B writes an object where A wrote null.
		tp := diffview.PointerOf(tgt)
		p := leafPair{from: l, how: nulled}
		for j, r := range lb {
			if strings.HasPrefix(r.ptr, tp+"/") {
				if p.n == 0 {
					p.to = metaLeaf{ptr: tp, seg: tgt, raw: "{…}", change: r.change}
				}
				p.n++
				if r.raw != "null" {
					p.set++
				}
				usedB[j] = true
			}
		}
		if p.n > 0 {
			v.pairs = append(v.pairs, p)
			usedA[i] = true
		}
	}
	for _, k := range objOrder {
		v.pairs = append(v.pairs, *objs[k])
	}
	// The same key under another path (configLayoutOf's moved), among the metadata leaves the
	// map left.
	restA, ia := unusedMeta(la, usedA)
	restB, ib := unusedMeta(lb, usedB)
	for _, m := range movedLeaves(restA, restB) {
		v.pairs = append(v.pairs, leafPair{from: restA[m[0]], to: restB[m[1]], how: sameKey})
		usedA[ia[m[0]]], usedB[ib[m[1]]] = true, true
	}
	differs := map[int]bool{}
	for _, p := range v.pairs {
		if p.differs() {
			differs[p.from.change], differs[p.to.change] = true, true
		}
	}
	unknown := map[int]bool{}
	note := func(ls []metaLeaf, used []bool, known []string, only *[]metaLeaf) {
		for k, l := range ls {
			if used[k] {
				continue
			}
			*only = append(*only, l)
			if !under(known, l.ptr) {
				v.unknown = append(v.unknown, l.ptr)
				if !strings.HasPrefix(l.ptr, "/metadata/") {
					unknown[l.change] = true // outside the configuration: diagnosed as usual
				}
			}
		}
	}
	note(la, usedA, s.onlyA, &v.onlyA)
	note(lb, usedB, s.onlyB, &v.onlyB)
	for _, i := range layout {
		if differs[i] || unknown[i] {
			v.held = append(v.held, i)
			continue
		}
		v.claimed[i] = true
	}
	for _, c := range v.claimed {
		if c {
			v.n++
		}
	}
	return v
}

// unusedMeta lists the metadata leaves of ls not used, and their indexes in ls.
func unusedMeta(ls []metaLeaf, used []bool) (out []metaLeaf, at []int) {
	for k, l := range ls {
		if !used[k] && strings.HasPrefix(l.ptr, "/metadata/") {
			out, at = append(out, l), append(at, k)
		}
	}
	return out, at
}

// changes lists the claimed changes, ascending.
func (v *versionLayout) changes() []int {
	out := make([]int, 0, v.n)
	for i, c := range v.claimed {
		if c {
			out = append(out, i)
		}
	}
	return out
}

// rolePointer spells an engine_config role's member with the role as <role> (or "*" for a
// pattern), and strips /metadata/ for the evidence (a pointer outside it keeps its "/").
func rolePointer(ptr, role string) string {
	segs := diffview.SplitPointer(ptr)
	if len(segs) >= 3 && segs[0] == "metadata" && segs[1] == "engine_config" {
		segs[2] = role
	}
	if role == "*" {
		return diffview.PointerOf(segs)
	}
	p := diffview.PointerOf(segs)
	if strings.HasPrefix(p, "/metadata/") {
		return p[len("/metadata/"):]
	}
	return p
}

// patterns are the pointer patterns of one exception record covering exactly the claimed
// changes: the engine_config role wildcarded, each object's members one "{...}" key set.
func (v *versionLayout) patterns(d *Diff) []string {
	keys := map[string][]string{} // parent pattern → member keys
	var parents []string
	for _, i := range v.changes() {
		segs := diffview.SplitPointer(d.Changes[i].Pointer)
		var parent strings.Builder
		for k, s := range segs[:len(segs)-1] {
			if k == 2 && segs[0] == "metadata" && segs[1] == "engine_config" {
				s = "*" // any role
			} else {
				s = diffview.EscapeGlob(escapeSeg(s))
			}
			parent.WriteString("/" + s)
		}
		p := parent.String()
		if _, ok := keys[p]; !ok {
			parents = append(parents, p)
		}
		last := segs[len(segs)-1]
		if len(segs) == 3 && segs[0] == "metadata" && segs[1] == "engine_config" {
			last = "*" // a whole role one side writes
		} else {
			last = diffview.EscapeChars(escapeSeg(last), `*?[\{},`)
		}
		if !slices.Contains(keys[p], last) {
			keys[p] = append(keys[p], last)
		}
	}
	out := make([]string, 0, len(parents))
	for _, p := range parents {
		ks := keys[p]
		slices.Sort(ks)
		if len(ks) == 1 {
			out = append(out, p+"/"+ks[0])
			continue
		}
		out = append(out, p+"/{"+strings.Join(ks, ",")+"}")
	}
	return out
}

// escapeSeg spells one segment as a pointer does (~0, ~1).
func escapeSeg(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// detectVersionChange names the version change: A's and B's release lines, the field map it
// applied, the members only one line writes, and the exception record that covers it.
func detectVersionChange(d *Diff) *Signature {
	v := d.versionLayout()
	if v == nil || v.n == 0 {
		return nil
	}
	s := v.shift
	list := func(parts []string, most int) string {
		if len(parts) == 0 {
			return "none"
		}
		if len(parts) > most {
			parts = append(parts[:most:most], fmt.Sprintf("… %d more", len(parts)-most))
		}
		return strings.Join(parts, ", ")
	}
	var renamed, moved, written []string
	movedInto := map[string][]string{} // target parent → keys
	var intos []string
	seen := map[string]bool{}
	for _, p := range v.pairs {
		if p.differs() {
			continue
		}
		from, to := rolePointer(p.from.ptr, "<role>"), rolePointer(p.to.ptr, "<role>")
		if p.how == nulled && p.set > 0 { // one side's defaults written out
			if p.from.raw == "null" {
				written = append(written, fmt.Sprintf("%s null → %s (%d setting(s))", from, to, p.n))
			} else {
				written = append(written, fmt.Sprintf("%s (%d setting(s)) → %s null", from, p.n, to))
			}
			continue
		}
		if p.how == nulled && p.renamed() {
			renamed = append(renamed, fmt.Sprintf("%s → %s (no identity: null)", from, to))
			continue
		}
		if seen[from+"→"+to] {
			continue
		}
		seen[from+"→"+to] = true
		if p.renamed() {
			renamed = append(renamed, fmt.Sprintf("%s → %s (%s)", from, to, diffview.Short(p.from.raw)))
			continue
		}
		parent := rolePointer(diffview.PointerOf(p.to.seg[:len(p.to.seg)-1]), "<role>")
		if _, ok := movedInto[parent]; !ok {
			intos = append(intos, parent)
		}
		movedInto[parent] = append(movedInto[parent], diffview.LastSegment(to))
	}
	for _, p := range intos {
		moved = append(moved, fmt.Sprintf("%d into %s (%s)", len(movedInto[p]), p, list(movedInto[p], 6)))
	}
	nMoved := 0
	for _, ks := range movedInto {
		nMoved += len(ks)
	}
	members := func(ls []metaLeaf, known []string) []string {
		var out []string
		seen := map[string]bool{}
		for _, l := range ls {
			p := rolePointer(l.ptr, "<role>")
			// a member the table names, by its name rather than its leaves (a section)
			for k := 1; k < len(l.seg); k++ {
				if q := diffview.PointerOf(l.seg[:k]); slices.ContainsFunc(known, func(pat string) bool { return diffview.MatchPattern(pat, q) }) {
					p = rolePointer(q, "<role>")
					break
				}
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		return out
	}
	onlyA, onlyB := members(v.onlyA, s.onlyA), members(v.onlyB, s.onlyB)
	ev := []string{
		fmt.Sprintf("A is a %s report (%s); B is a %s report (%s)", s.a.name, s.a.shape, s.b.name, s.b.shape),
		fmt.Sprintf("field map %s → %s applied (the release table, read from the published sources): renamed (%d): %s", s.a.name, s.b.name, len(renamed), list(renamed, 12)),
		fmt.Sprintf("moved with their values (%d): %s", nMoved, list(moved, 4)),
	}
	if len(written) > 0 {
		ev = append(ev, fmt.Sprintf("written out by one line where the other writes null (%d): %s", len(written), list(written, 6)))
	}
	if len(v.aliased) > 0 {
		ev = append(ev, fmt.Sprintf("%d setting value(s) spelled the %s way (%s)", len(v.aliased), s.b.name, list(pointersOf(d, v.aliased), 4)))
	}
	ev = append(ev, fmt.Sprintf("only %s writes (%d): %s", s.b.name, len(onlyB), list(onlyB, 16)),
		fmt.Sprintf("only %s writes (%d): %s", s.a.name, len(onlyA), list(onlyA, 16)))
	if len(v.unknown) > 0 {
		ev = append(ev, fmt.Sprintf("not in the release table (%d, outside the metadata diagnosed as usual): %s", len(v.unknown), list(v.unknown, 6)))
	}
	if !d.Schema.Empty() {
		ev = append(ev, "the per-request records' fields changed too: see the record schema change")
	}
	pats := v.patterns(d)
	ev = append(ev, "one exception record covers the version change: "+strings.Join(pats, "  "),
		fmt.Sprintf("these %d pointers are two release lines' report layouts, not results that moved: records are paired on the fields both have, and the rest is diagnosed as usual", v.n))
	label := fmt.Sprintf("report version changed: %s → %s (%d field(s) renamed, %d moved, %d only in %s, %d only in %s",
		s.a.name, s.b.name, len(renamed), nMoved, len(onlyB), s.b.name, len(onlyA), s.a.name)
	if len(v.held) > 0 && slices.ContainsFunc(v.pairs, leafPair.differs) {
		label += "; a setting differs: see the configuration"
	} else {
		label += "; no setting differs"
	}
	label += ")"
	return &Signature{Code: SigVersion, Label: label, Evidence: ev, Explains: v.n, Changes: v.changes(), Patterns: pats}
}

// pointersOf lists the pointers of changes.
func pointersOf(d *Diff, changes []int) []string {
	out := make([]string, len(changes))
	for k, i := range changes {
		out[k] = d.Changes[i].Pointer
	}
	return out
}

// configuration is detectConfig between two release lines: the settings both carry with
// another value (a value a line spells otherwise is the version's), and the layout changes the
// version cannot claim because a setting moved or renamed with another value is under them.
func (v *versionLayout) configuration(d *Diff) *Signature {
	var settings, oneSided, moved []string
	var meta []int
	for i, c := range d.Changes {
		if v.claimed[i] || !strings.HasPrefix(c.Pointer, "/metadata/") && !slices.Contains(v.held, i) {
			continue
		}
		if c.Kind == diffview.Changed && sameNumber(c.A, c.B) {
			continue // a respelled number is not another setting
		}
		if c.Kind != diffview.Changed && !strings.HasPrefix(c.Pointer, "/metadata/") && !v.holdsSetting(i) {
			continue // a member no line is known to write, outside the configuration
		}
		meta = append(meta, i)
		p := fmt.Sprintf("%s %s → %s", c.Pointer, diffview.Short(c.A), diffview.Short(c.B))
		if c.Kind == diffview.Changed {
			settings = append(settings, p)
		} else if !v.holdsSetting(i) {
			oneSided = append(oneSided, p)
		}
	}
	if len(meta) == 0 {
		return nil
	}
	for _, p := range v.pairs {
		if p.differs() {
			how := "moved"
			if p.renamed() {
				how = "renamed by " + v.shift.a.name + " → " + v.shift.b.name
			}
			moved = append(moved, fmt.Sprintf("%s %s → %s %s (%s, another value)", p.from.ptr, diffview.Short(p.from.raw), p.to.ptr, diffview.Short(p.to.raw), how))
		}
	}
	ev := slices.Concat(settings, moved, oneSided)
	if len(ev) > 5 {
		ev = append(ev[:5:5], fmt.Sprintf("… %d more", len(ev)-5))
	}
	ev = append(ev, "metadata records configuration and semantic features: a difference here is a different engine setting, not leaked entropy")
	return &Signature{Code: SigConfig, Label: "configuration differs (metadata)", Evidence: ev, Explains: len(meta), Changes: meta}
}

// holdsSetting says layout change i holds a leaf of a pair whose value differs.
func (v *versionLayout) holdsSetting(i int) bool {
	return slices.ContainsFunc(v.pairs, func(p leafPair) bool {
		return p.differs() && (p.from.change == i || p.to.change == i)
	})
}
