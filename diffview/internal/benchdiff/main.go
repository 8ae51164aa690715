// Command benchdiff supports scripts/bench-diff.sh:
//
//	benchdiff perturb A B     write B = A with about 1% of requests edited deterministically
//	benchdiff compare JD KV   check that jd's output (JD) and `kvparity diff --json` (KV)
//	                          name the same set of differing paths, as JSON pointers
//
// Edits touch every 100th request (by position): one timestamp shifted by 0.123076 ms and
// the decode routing worker flipped, so both tools must report leaf paths, not whole records.
// It imports diffview/difftest for those pointer edits and internal/pointer to compare the two
// tools' paths.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	fx "kvparity/diffview/difftest"
	"kvparity/internal/pointer"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: benchdiff perturb A B | benchdiff compare JD.txt KV.json")
		os.Exit(3)
	}
	var err error
	switch os.Args[1] {
	case "perturb":
		err = perturb(os.Args[2], os.Args[3])
	case "compare":
		err = compare(os.Args[2], os.Args[3])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchdiff:", err)
		os.Exit(1)
	}
}

func perturb(in, out string) error {
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber() // number literals stay verbatim
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("%s: %v", in, err)
	}
	reqs, _ := m["per_request"].([]any)
	edited := 0
	for i := 0; i < len(reqs); i += 100 {
		r := reqs[i].(map[string]any)
		if v, ok := r["terminal_time_ms"].(json.Number); ok {
			f, _ := v.Float64()
			r["terminal_time_ms"] = fx.Num(f + 0.123076)
		}
		if rh, ok := r["routing_history"].([]any); ok && len(rh) > 0 {
			last := rh[len(rh)-1].(map[string]any)
			if w, ok := last["logical_worker_id"].(json.Number); ok {
				n, _ := strconv.Atoi(string(w))
				last["logical_worker_id"] = fx.Int(n ^ 1)
			}
		}
		edited++
	}
	if err := os.WriteFile(out, fx.Encode(m), 0o644); err != nil {
		return err
	}
	fmt.Printf("perturbed %d of %d requests (%.2f%%)\n", edited, len(reqs), 100*float64(edited)/float64(max(1, len(reqs))))
	return nil
}

// jdPointers reads jd's native diff format: each hunk starts with "@ [path...]".
func jdPointers(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ps []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if !strings.HasPrefix(t, "@ ") {
			continue
		}
		var segs []any
		d := json.NewDecoder(strings.NewReader(t[2:]))
		d.UseNumber()
		if err := d.Decode(&segs); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		var sb strings.Builder
		for _, s := range segs {
			sb.WriteByte('/')
			switch v := s.(type) {
			case string:
				sb.WriteString(pointer.Escape(v))
			case json.Number:
				sb.WriteString(v.String())
			default:
				return nil, fmt.Errorf("%s:%d: unsupported path element %v", path, line, s)
			}
		}
		ps = append(ps, sb.String())
	}
	return ps, sc.Err()
}

func compare(jdOut, kvJSON string) error {
	jp, err := jdPointers(jdOut)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(kvJSON)
	if err != nil {
		return err
	}
	var r struct {
		Pointers []string `json:"pointers"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: %v", kvJSON, err)
	}
	set := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	js, ks := set(jp), set(r.Pointers)
	var onlyJ, onlyK []string
	for p := range js {
		if !ks[p] {
			onlyJ = append(onlyJ, p)
		}
	}
	for p := range ks {
		if !js[p] {
			onlyK = append(onlyK, p)
		}
	}
	sort.Strings(onlyJ)
	sort.Strings(onlyK)
	if len(onlyJ)+len(onlyK) > 0 {
		return fmt.Errorf("path sets differ: %d only in jd (e.g. %v), %d only in kvparity (e.g. %v)", len(onlyJ), head(onlyJ), len(onlyK), head(onlyK))
	}
	fmt.Printf("same %d differing paths in jd and kvparity\n", len(ks))
	return nil
}

func head(xs []string) []string {
	if len(xs) > 3 {
		return xs[:3]
	}
	return xs
}
