package instrument

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// A timing record is the one line per iteration a sample writes to its --timings-jsonl, as the
// harness does. Keys are read by name, never by position, and unknown keys are tolerated.

// DefaultTimingField is the protocol's timing boundary, the field a row measures unless it
// declares another ([perf] timing_field).
const DefaultTimingField = "replay_execution_ms"

// A TimingFault is why a sample's timing record cannot be used. Blocked faults mean the row
// cannot be measured as declared (the field is absent, replay_bench is not true); the others are
// product failures that fail the row. Neither is ever a discardable sample.
type TimingFault struct {
	Blocked bool
	Msg     string
}

func (f *TimingFault) Error() string { return f.Msg }

// A Timing is what a sample's timing record gives: the row's timing field, and the work
// fingerprint the timing extension writes after the timed call (nil when the line has none; the
// campaign reads it against the arm's canonical run).
type Timing struct {
	Ms   float64
	Work json.RawMessage
}

// ReadTiming returns the row's timing field from a --iterations 1 timings file.
func ReadTiming(path, field string) (Timing, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Timing{}, &TimingFault{Msg: fmt.Sprintf("malformed timing record: the replay wrote no timings file %s (%v)", path, err)}
	}
	v, obj, err := parseTiming(data, path, field)
	if err != nil {
		return Timing{}, err
	}
	t := Timing{Ms: v}
	if w, ok := obj["work_fingerprint"]; ok && string(bytes.TrimSpace(w)) != "null" {
		t.Work = w
	}
	return t, nil
}

func parseTiming(data []byte, path, field string) (float64, map[string]json.RawMessage, error) {
	bad := func(format string, a ...any) error {
		return &TimingFault{Msg: fmt.Sprintf("malformed timing record %s: ", path) + fmt.Sprintf(format, a...)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return 0, nil, bad("the file is empty")
	}
	if data[len(data)-1] != '\n' {
		return 0, nil, bad("line 1 is truncated (no newline)")
	}
	if n := bytes.Count(data, []byte{'\n'}); n != 1 {
		return 0, nil, bad("%d lines, expected exactly 1 (--iterations 1)", n)
	}
	// A harness that prints a non-finite float as a bare literal (NaN, Infinity) writes a line
	// JSON cannot parse. For the timing field that is an unusable value like null, so it BLOCKS
	// as null does, rather than failing the row as a torn record would: one rule for every
	// timing value that is not a finite time > 0.
	nonFinite := ""
	if m := nonFiniteValue(field).FindSubmatchIndex(data); m != nil {
		nonFinite = string(data[m[2]:m[3]])
		data = slices.Concat(data[:m[2]], []byte("null"), data[m[3]:])
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&obj); err != nil {
		return 0, nil, bad("line 1: %v", err)
	}
	if obj == nil {
		return 0, nil, bad("line 1 is not a JSON object")
	}
	bench, ok := obj["replay_bench"]
	if !ok {
		return 0, nil, &TimingFault{Blocked: true, Msg: fmt.Sprintf("%s: line 1: /replay_bench is missing; the protocol requires replay_bench: true (build with --features replay-bench)", path)}
	}
	if string(bytes.TrimSpace(bench)) != "true" {
		return 0, nil, &TimingFault{Blocked: true, Msg: fmt.Sprintf("%s: line 1: /replay_bench is %s, not true; the protocol requires a replay-bench build", path, bytes.TrimSpace(bench))}
	}
	raw, ok := obj[field]
	if !ok {
		return 0, nil, &TimingFault{Blocked: true, Msg: fmt.Sprintf("%s: line 1: the binary does not write %s; it writes %s. Extend the harness to emit %s, or declare a proxy in the row ([perf] timing_field = \"replay_call_ms\" with timing_proxy = true)",
			path, field, strings.Join(numericKeys(obj), ", "), DefaultTimingField)}
	}
	// A value that is not a finite time > 0 (a string, null, zero, negative) is treated like
	// a missing field: the harness does not give a usable time at the protocol's timing
	// boundary, which the protocol says to fix before the campaign ("extend it before
	// running"). Both block the row; neither is a perf FAIL, since a bad timing value says
	// nothing about whether the candidate is slower.
	unusable := func(what string) error {
		return &TimingFault{Blocked: true, Msg: fmt.Sprintf("%s: line 1: /%s is %s, %s: the harness gives no usable %s at the protocol's timing boundary, so the row is BLOCKED as when the field is missing (extend the harness to emit a finite time > 0); a malformed timing value is not evidence of a slowdown, so it is not a perf FAIL",
			path, field, bytes.TrimSpace(raw), what, field)}
	}
	if nonFinite != "" {
		raw = []byte(nonFinite)
		return 0, nil, unusable("not a finite time > 0")
	}
	var v float64
	if string(bytes.TrimSpace(raw)) == "null" {
		return 0, nil, unusable("not a number")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, nil, unusable("not a number")
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, nil, unusable("not a finite time > 0")
	}
	return v, obj, nil
}

// nonFiniteValue matches field's value when it is a bare non-finite literal (NaN, Infinity,
// -Infinity, inf, nan), which no JSON parser reads; the first group is the literal.
func nonFiniteValue(field string) *regexp.Regexp {
	return regexp.MustCompile(`"` + regexp.QuoteMeta(field) + `"\s*:\s*(-?(?:NaN|nan|Infinity|inf))\s*[,}]`)
}

// numericKeys lists the keys of obj (sorted), marking which hold numbers, so a blocked row says
// exactly what the binary offers.
func numericKeys(obj map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(obj))
	for k, v := range obj {
		var f float64
		if json.Unmarshal(v, &f) == nil {
			keys = append(keys, k)
		} else {
			keys = append(keys, k+" (not a number)")
		}
	}
	sort.Strings(keys)
	return keys
}
