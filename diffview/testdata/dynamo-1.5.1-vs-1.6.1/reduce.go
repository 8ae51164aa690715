//go:build ignore

// reduce makes this folder's excerpts of a real pair of canonical reports: one report line
// with the sections named and the per_request records whose uuids end in the hex ordinals
// named, every value's literal verbatim (only the root object and the per_request array are
// decoded; the rest is copied as written, and the root's keys stay sorted, as canonical).
//
// The pair is the determinism stage of rows/dynamo-1.5.1-vs-1.6.1.toml (published
// dynamo-bench 1.5.1 against 1.6.1, both STABLE, digests b71bd66e68a8… and 42a570d8d38e…):
//
//	go build -o /tmp/kvp . && /tmp/kvp run rows/dynamo-1.5.1-vs-1.6.1.toml --campaign /tmp/c
//	cd diffview/testdata/dynamo-1.5.1-vs-1.6.1
//	R=1-10,44-48
//	go run reduce.go -sections metadata -records $R /tmp/c/runs/det/baseline-1/report.json baseline.jsonl
//	go run reduce.go -sections metadata -records $R /tmp/c/runs/det/candidate-1/report.json candidate.jsonl
//	S=metadata,summary,coverage,planner
//	go run reduce.go -sections $S -records $R /tmp/c/runs/det/baseline-1/report.json baseline-sections.jsonl
//	go run reduce.go -sections $S -records $R /tmp/c/runs/det/candidate-1/report.json candidate-sections.jsonl
//
// (-records takes hex ordinals and ranges of them: 1-10,44-48 is requests 0x01…0x10 and
// 0x44…0x48, the first differing routing decision being request 0x44's.)
//
// ../dynamo-1.4.2/report.jsonl is published dynamo-bench 1.4.2 on the same trace window and
// arguments. kvparity build refuses that version (its timing extension needs aisimulate-core,
// which 1.4.2 does not use), so it was built from the crate as published and run by hand
// (two runs, one digest 5da36620…):
//
//	cargo build --release --bench offline_replay_bench --features replay-bench   # in the crate
//	offline_replay_bench /tmp/c/trace/window.jsonl --num-workers 4 --engine-type vllm \
//	    --block-size 64 --num-gpu-blocks 16000 --arrival-speedup-ratio 4 --trace-block-size 512 \
//	    --canonical-reports-jsonl /tmp/r142.jsonl
//	go run reduce.go -sections engine_type,native_router_event_visibility,replay_bench,summary \
//	    -records $R /tmp/r142.jsonl ../dynamo-1.4.2/report.jsonl
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
)

func main() {
	sections := flag.String("sections", "metadata", "root members kept besides per_request (comma-separated)")
	records := flag.String("records", "", "hex ordinals of the records kept (ranges: 1-10,44-48)")
	flag.Parse()
	if flag.NArg() != 2 {
		log.Fatal("usage: go run reduce.go [-sections a,b] [-records 1-10,44-48] REPORT OUT")
	}
	keep, err := ordinals(*records)
	if err != nil {
		log.Fatal(err)
	}
	src, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(src, &root); err != nil {
		log.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, s := range strings.Split(*sections, ",") {
		v, ok := root[s]
		if !ok {
			log.Fatalf("%s has no %q", flag.Arg(0), s)
		}
		out[s] = v
	}
	var reqs []json.RawMessage
	if err := json.Unmarshal(root["per_request"], &reqs); err != nil {
		log.Fatal(err)
	}
	kept := []json.RawMessage{}
	for _, r := range reqs {
		var id struct{ UUID string }
		if err := json.Unmarshal(r, &id); err != nil {
			log.Fatal(err)
		}
		n, err := strconv.ParseUint(id.UUID[strings.LastIndexByte(id.UUID, '-')+1:], 16, 64)
		if err == nil && keep[n] {
			kept = append(kept, r)
		}
	}
	out["per_request"] = bytes.TrimSuffix(encode(kept), []byte("\n"))
	b := encode(out) // the map's keys sorted

	if err := os.WriteFile(flag.Arg(1), b, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d of %d records, sections %s\n", flag.Arg(1), len(kept), len(reqs), *sections)
}

// encode is v as one JSON line, raw values copied as they are (no HTML escaping).
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}

// ordinals reads "1-10,44-48" (hex) as a set.
func ordinals(s string) (map[uint64]bool, error) {
	set := map[uint64]bool{}
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 16, 64)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 16, 64); err != nil {
				return nil, err
			}
		}
		for n := a; n <= b; n++ {
			set[n] = true
		}
	}
	return set, nil
}
