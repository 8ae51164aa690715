package corpus

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// A base is a real canonical report the cases are made from.
type base struct {
	Name      string
	Canonical []byte // the line as the engine wrote it (A of most cases, shared, never edited)

	// What the base is, for choosing mutators and for the table's readers.
	Engine, Topology string
	Requests         int
	Pressure         int
	Queued           bool             // some routing decisions waited in the router queue
	Pools            map[string][]int // workers each pool routed to
	KVIngest         bool             // the report carries the KV event digest
	Release          bool             // a release replay's records (releaseBase): the release family's only

	rep *reportTree
}

// newBase decodes a canonical report and reads its shape.
func newBase(name string, canonical []byte) (base, error) {
	rep, err := decode(canonical)
	if err != nil {
		return base{}, fmt.Errorf("base %s: %w", name, err)
	}
	b := base{Name: name, Canonical: canonical, rep: rep}
	for _, ec := range engineConfigs(rep) {
		for _, key := range []string{"engine_type", "backend"} {
			if e, ok := ec[key].(string); ok && b.Engine == "" {
				b.Engine = e
			}
		}
	}
	b.Topology, _ = lookup(rep, "/metadata/execution/topology").(string)
	reqs := rep.Requests()
	b.Requests, b.Pressure = len(reqs), len(rep.Pressure())
	if b.Requests == 0 {
		return base{}, fmt.Errorf("base %s: no per_request records", name)
	}
	b.Pools = poolWorkers(rep)
	for _, r := range reqs {
		for _, e := range routing(r) {
			if _, ok := numOf(e["queue_entered_at_ms"]); ok {
				b.Queued = true
			}
		}
	}
	_, b.KVIngest = rep.Get("/coverage/kv_ingest/blake3_256")
	return b, nil
}

// Shape is the base in a few words: "vllm aggregated, 1000 requests, 4 pressure records".
func (b *base) Shape() string {
	s := fmt.Sprintf("%s %s, %d requests, %d pressure records", b.Engine, b.Topology, b.Requests, b.Pressure)
	if b.Queued {
		s += ", router queue"
	}
	return s
}

// disagg says the base has separate prefill and decode pools.
func (b *base) disagg() bool { return b.Pools["decode"] != nil && b.Pools["prefill"] != nil }

// A mutationCase is one pair of reports with its truth. write fills PathA and PathB.
type mutationCase struct {
	truth
	ReportA, ReportB []byte
	PathA, PathB     string
	aIsBase          bool // ReportA is the base's own line
	// Problem is set when the generator's own check failed (the mutator changed nothing, or
	// made a difference earlier than the cause it meant): a generator bug, not a lens miss.
	Problem string
}

// perVariant is how many bases each variant is made on.
const perVariant = 2

// generate makes the corpus: every variant of every family on perVariant of the bases that
// fit it, chosen and mutated by streams seeded from seed (the same seed and bases give the
// same bytes). A variant that finds nothing to work on in a base (no tie, no pressure
// record) moves on to the next base.
func generate(bases []base, seed int64) []mutationCase {
	var cases []mutationCase
	for _, v := range variants() {
		var fit []int
		for i := range bases {
			if bases[i].rep != nil && bases[i].Release == v.release && (v.needs == nil || v.needs(&bases[i])) {
				fit = append(fit, i)
			}
		}
		// Each base draws its own rank for the variant: a base missing from another machine's
		// list (the real engine's) changes only the variants that had chosen it.
		rank := func(i int) uint64 {
			return hash(strconv.FormatInt(seed, 10) + "/bases/" + v.family + "/" + v.name + "/" + bases[i].Name)
		}
		slices.SortStableFunc(fit, func(i, j int) int { return cmp.Compare(rank(i), rank(j)) })
		made := 0
		for _, i := range fit {
			if made == perVariant {
				break
			}
			c, err := makeCase(&v, &bases[i], seed)
			if errors.Is(err, errNotHere) {
				continue
			}
			if err != nil {
				c = mutationCase{truth: truth{Base: bases[i].Name, Family: v.family, Variant: v.name, Primary: v.primary}, Problem: err.Error()}
			}
			c.Case = fmt.Sprintf("%03d-%s-%s-%s", len(cases), v.family, v.name, bases[i].Name)
			cases = append(cases, c)
			made++
		}
	}
	return cases
}

// problems lists the cases the generator could not make right.
func problems(cases []mutationCase) []string {
	var out []string
	for _, c := range cases {
		if c.Problem != "" {
			out = append(out, c.Case+": "+c.Problem)
		}
	}
	return out
}

// families lists the family names in the table's order.
func families() []string {
	var out []string
	for _, v := range variants() {
		if !slices.Contains(out, v.family) {
			out = append(out, v.family)
		}
	}
	return out
}

// write puts each case in dir/<case>/ as a.jsonl, b.jsonl and truth.json (the truth next to
// its reports), and every truth in dir/truth.json; it sets PathA and PathB. An A that is
// its base unchanged is written once, in dir/bases/, and linked.
func write(dir string, cases []mutationCase) error {
	if err := os.MkdirAll(filepath.Join(dir, "bases"), 0o755); err != nil {
		return err
	}
	baseFile := map[string]string{}
	truths := make([]truth, 0, len(cases))
	for i := range cases {
		c := &cases[i]
		if c.Problem != "" {
			continue
		}
		cd := filepath.Join(dir, c.Case)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			return err
		}
		c.PathA, c.PathB = filepath.Join(cd, "a.jsonl"), filepath.Join(cd, "b.jsonl")
		if err := writeA(dir, c, baseFile); err != nil {
			return err
		}
		if err := os.WriteFile(c.PathB, c.ReportB, 0o644); err != nil {
			return err
		}
		t := c.truth
		t.FileA, t.FileB = filepath.ToSlash(filepath.Join(c.Case, "a.jsonl")), filepath.ToSlash(filepath.Join(c.Case, "b.jsonl"))
		truths = append(truths, t)
		local := t
		local.FileA, local.FileB = "a.jsonl", "b.jsonl"
		if err := writeJSON(filepath.Join(cd, "truth.json"), local); err != nil {
			return err
		}
	}
	return writeJSON(filepath.Join(dir, "truth.json"), truths)
}

// writeA links an A that is its base unchanged to one copy in dir/bases/ (a case's A is
// usually its base: the corpus would otherwise hold it once per case).
func writeA(dir string, c *mutationCase, baseFile map[string]string) error {
	if !c.aIsBase {
		return os.WriteFile(c.PathA, c.ReportA, 0o644)
	}
	src, ok := baseFile[c.Base]
	if !ok {
		src = filepath.Join(dir, "bases", c.Base+".jsonl")
		if err := os.WriteFile(src, c.ReportA, 0o644); err != nil {
			return err
		}
		baseFile[c.Base] = src
	}
	if err := os.Link(src, c.PathA); err == nil {
		return nil
	}
	return os.WriteFile(c.PathA, c.ReportA, 0o644)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
