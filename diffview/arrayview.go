package diffview

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// An arrayView is an ordered array of objects (events) at one pointer of one report.
type arrayView struct {
	src   []byte
	elems []span
	ms    [][]member
}

// viewArray returns the array of objects at ptr in d, or nil.
func viewArray(d *doc, ptr string) *arrayView {
	raw, ok := d.at(ptr)
	if !ok {
		return nil
	}
	return arrayViewOf(raw)
}

// arrayViewOf parses a raw JSON array of objects, or returns nil.
func arrayViewOf(raw string) *arrayView {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	src := []byte(raw)
	es, err := arrayElements(src, 0)
	if err != nil {
		return nil
	}
	v := &arrayView{src: src, elems: es, ms: make([][]member, len(es))}
	for k, e := range es {
		if src[e.start] != '{' {
			return nil
		}
		v.ms[k], _ = objectMembers(src, e.start)
	}
	return v
}

// sideA rewrites a B-side per_request pointer to the A-side record index of change c.
func (d *Diff) sideA(c *Change, ptr string) string {
	segs := splitPointer(ptr)
	if len(segs) >= 2 && segs[0] == "per_request" && c.IndexA >= 0 {
		segs[1] = strconv.Itoa(c.IndexA)
		return pointerOf(segs)
	}
	return ptr
}

func (v *arrayView) get(k int, key string) (string, bool) {
	for _, m := range v.ms[k] {
		if m.key == key {
			return string(v.src[m.start:m.end]), true
		}
	}
	return "", false
}

func (v *arrayView) has(key string) bool {
	for k := range v.ms {
		if _, ok := v.get(k, key); ok {
			return true
		}
	}
	return false
}

func (v *arrayView) timed() bool { return len(v.ms) > 0 && v.has("at_ms") }

func (v *arrayView) time(k int) string { t, _ := v.get(k, "at_ms"); return t }

// withoutOrdinals is element k's bytes with its sequence-number members left out.
func (v *arrayView) withoutOrdinals(k int) string {
	var sb strings.Builder
	for _, m := range v.ms[k] {
		if ordinalKey(m.key) {
			continue
		}
		sb.WriteString(m.key)
		sb.WriteByte(0)
		sb.Write(v.src[m.start:m.end])
		sb.WriteByte(0)
	}
	return sb.String()
}

func (v *arrayView) hasParents() bool {
	for _, p := range parentKeys {
		if v.has(p) {
			return true
		}
	}
	return false
}

// stored lists the block hashes element k stores, and its parent ("" for none).
func (v *arrayView) stored(k int) (blocks []string, parent string) {
	for _, p := range parentKeys {
		if x, ok := v.get(k, p); ok && x != "null" {
			parent = strings.Trim(x, `"`)
		}
	}
	for _, bk := range blockKeys {
		x, ok := v.get(k, bk)
		if !ok {
			continue
		}
		if len(x) > 0 && x[0] == '[' {
			src := []byte(x)
			es, _ := arrayElements(src, 0)
			for _, e := range es {
				el := src[e.start:e.end]
				if el[0] == '{' {
					// blocks: [{block_hash: …}]
					if h, ok := memberValue(src, e, "block_hash"); ok {
						blocks = append(blocks, strings.Trim(string(src[h.start:h.end]), `"`))
					}
					continue
				}
				blocks = append(blocks, strings.Trim(string(el), `"`))
			}
		} else {
			blocks = append(blocks, strings.Trim(x, `"`))
		}
		break
	}
	return blocks, parent
}

func (v *arrayView) blocks() []string {
	var all []string
	for k := range v.ms {
		b, _ := v.stored(k)
		all = append(all, b...)
	}
	return all
}

func (v *arrayView) sameBlocks(o *arrayView) bool {
	a, b := v.blocks(), o.blocks()
	if len(a) != len(b) {
		return false
	}
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// violations lists events whose parent block is stored later in the same array.
func (v *arrayView) violations() []string {
	storedAt := map[string]int{}
	for k := range v.ms {
		bs, _ := v.stored(k)
		for _, b := range bs {
			if _, ok := storedAt[b]; !ok {
				storedAt[b] = k
			}
		}
	}
	var out []string
	for k := range v.ms {
		_, parent := v.stored(k)
		if parent == "" {
			continue
		}
		if at, ok := storedAt[parent]; ok && at > k {
			bs, _ := v.stored(k)
			first := ""
			if len(bs) > 0 {
				first = bs[0]
			}
			out = append(out, fmt.Sprintf("event #%d stores %s before its parent %s (stored at #%d)", k, first, parent, at))
		}
	}
	return out
}
