package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"kvparity/internal/pointer"
	"kvparity/report"
)

// A reportTree is one canonical report decoded into plain values: map[string]any objects, []any
// arrays, json.Number numbers (their spelling kept verbatim), string, bool and nil. Mutators
// edit it in place; Encode writes it back the way the harness does.
type reportTree struct{ root map[string]any }

// decode reads one canonical report line (a trailing newline is allowed).
func decode(b []byte) (*reportTree, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // untouched numbers keep their spelling ("4.0" stays "4.0")
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("canonical report: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("canonical report: more than one JSON value")
	}
	if root == nil {
		return nil, fmt.Errorf("canonical report: not an object")
	}
	return &reportTree{root: root}, nil
}

// Encode is the canonical line: compact, object keys in byte order, numbers as spelled, strings
// as serde_json writes them, plus the trailing newline.
func (r *reportTree) Encode() []byte {
	b := appendValue(make([]byte, 0, 1<<20), r.root)
	return append(b, '\n')
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case json.Number:
		return append(b, x...)
	case string:
		return report.AppendJSONString(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // byte order, as the canonical profile sorts keys
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = report.AppendJSONString(b, k)
			b = append(b, ':')
			b = appendValue(b, x[k])
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("corpus: cannot encode %T", v))
}

// Clone is a deep copy: a mutation never reaches the base it started from.
func (r *reportTree) Clone() *reportTree {
	return &reportTree{root: cloneValue(r.root).(map[string]any)}
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneValue(e)
		}
		return out
	}
	return v
}

// Get reads the value at an RFC 6901 pointer.
func (r *reportTree) Get(ptr string) (any, bool) {
	toks, err := pointer.Parse(ptr)
	if err != nil {
		return nil, false
	}
	var cur any = r.root
	for _, t := range toks {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, ok := pointer.Index(t)
			if !ok || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Set writes v at ptr; the parent must exist (an object member is created, an array element
// replaced).
func (r *reportTree) Set(ptr string, v any) error {
	toks, err := pointer.Parse(ptr)
	if err != nil || len(toks) == 0 {
		return fmt.Errorf("corpus: cannot set %q", ptr)
	}
	parent, ok := r.Get(pointer.Join(toks[:len(toks)-1]))
	if !ok {
		return fmt.Errorf("corpus: %s: no parent", ptr)
	}
	last := toks[len(toks)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = v
		return nil
	case []any:
		if i, ok := pointer.Index(last); ok && i < len(p) {
			p[i] = v
			return nil
		}
	}
	return fmt.Errorf("corpus: %s: parent is not a container", ptr)
}

// obj returns the object at ptr, or nil.
func (r *reportTree) obj(ptr string) map[string]any {
	v, _ := r.Get(ptr)
	m, _ := v.(map[string]any)
	return m
}

// arr returns the array at ptr, or nil.
func (r *reportTree) arr(ptr string) []any {
	v, _ := r.Get(ptr)
	a, _ := v.([]any)
	return a
}

// Requests are the per_request records, in the report's (uuid) order.
func (r *reportTree) Requests() []map[string]any {
	a := r.arr("/per_request")
	out := make([]map[string]any, 0, len(a))
	for _, e := range a {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// Pressure are the pressure records (/coverage/pressure/records), in order.
func (r *reportTree) Pressure() []map[string]any { return objects(r.arr("/coverage/pressure/records")) }

func objects(a []any) []map[string]any {
	out := make([]map[string]any, 0, len(a))
	for _, e := range a {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// sortRequests restores the canonical profile's order of /per_request (by uuid) after ids
// were renamed.
func (r *reportTree) sortRequests() {
	a := r.arr("/per_request")
	sort.SliceStable(a, func(i, j int) bool { return uuidOf(a[i]) < uuidOf(a[j]) })
}

func uuidOf(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["uuid"].(string)
	return s
}
