package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"kvparity/internal/jsonscan"
	"math"
	"strconv"
)

// A MooncakeRow is one line of a Mooncake trace, kept raw: aliases are resolved, but nothing is
// clamped, interned or normalised here (that is the replay engine's job, Dynamo's
// lib/mocker/src/loadgen/trace.rs).
type MooncakeRow struct {
	Line           int      // 1-based line number in the file
	Timestamp      float64  // ms; alias created_time; 0 when absent
	hasTimestamp   bool     // the row named a timestamp
	InputLength    *int     // alias input_tokens; nil when absent
	OutputLength   int      // alias output_tokens; required
	HashIDs        []uint64 // required
	SessionID      string   // "" when absent
	requestID      string   // "" when absent
	delay          *float64 // alias delay_ms
	outputTokenIDs []uint32
	priority       *int64
	strictPriority *bool
	policyClass    string
}

// A mooncakeError names the line and field of a malformed row.
type mooncakeError struct {
	Line  int
	Field string // "" when the line itself is not a JSON object
	Msg   string
}

func (e *mooncakeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: field %q: %s", e.Line, e.Field, e.Msg)
}

// A mooncakeFileError is a mooncakeError located in a named file: `trace.jsonl:17: field ...`.
type mooncakeFileError struct {
	Name string
	Err  *mooncakeError
}

func (e *mooncakeFileError) Error() string {
	if e.Err.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.Name, e.Err.Line, e.Err.Msg)
	}
	return fmt.Sprintf("%s:%d: field %q: %s", e.Name, e.Err.Line, e.Err.Field, e.Err.Msg)
}

func (e *mooncakeFileError) Unwrap() error { return e.Err }

// parseMooncakeLine parses one non-blank trace line. lineNo is 1-based and only used in errors
// and in the returned row.
func parseMooncakeLine(line []byte, lineNo int) (MooncakeRow, error) {
	row := MooncakeRow{Line: lineNo}
	// The shared scanner first: it refuses invalid UTF-8 and lone surrogates (which
	// encoding/json would silently replace) and lets duplicate keys be named (which
	// encoding/json would silently resolve to the last one; serde refuses them).
	if err := strictObject(line, lineNo); err != nil {
		return row, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return row, &mooncakeError{Line: lineNo, Msg: "not a JSON object: " + err.Error()}
	}
	bad := func(field, msg string) error { return &mooncakeError{Line: lineNo, Field: field, Msg: msg} }
	// pick resolves a field and its alias; naming both is an error, as serde rejects duplicates.
	pick := func(name, alias string) (string, json.RawMessage, error) {
		v, ok := fields[name]
		a, aok := fields[alias]
		switch {
		case ok && aok && alias != "":
			return name, nil, bad(alias, fmt.Sprintf("duplicate of %q", name))
		case ok:
			return name, v, nil
		case aok && alias != "":
			return alias, a, nil
		}
		return name, nil, nil
	}

	if name, raw, err := pick("timestamp", "created_time"); err != nil {
		return row, err
	} else if raw != nil && !isNull(raw) {
		f, err := parseFiniteNumber(raw)
		if err != nil {
			return row, bad(name, err.Error())
		}
		row.Timestamp, row.hasTimestamp = f, true
	}
	if name, raw, err := pick("input_length", "input_tokens"); err != nil {
		return row, err
	} else if raw != nil && !isNull(raw) {
		n, err := parseCount(raw)
		if err != nil {
			return row, bad(name, err.Error())
		}
		row.InputLength = &n
	}
	name, raw, err := pick("output_length", "output_tokens")
	if err != nil {
		return row, err
	}
	if raw == nil || isNull(raw) {
		return row, bad("output_length", "missing (required)")
	}
	if row.OutputLength, err = parseCount(raw); err != nil {
		return row, bad(name, err.Error())
	}
	raw, ok := fields["hash_ids"]
	if !ok || isNull(raw) {
		return row, bad("hash_ids", "missing (required)")
	}
	if row.HashIDs, err = parseU64List(raw); err != nil {
		return row, bad("hash_ids", err.Error())
	}
	if raw, ok := fields["session_id"]; ok && !isNull(raw) {
		if row.SessionID, err = parseStringOrInt(raw); err != nil {
			return row, bad("session_id", err.Error())
		}
	}
	if raw, ok := fields["request_id"]; ok && !isNull(raw) {
		if row.requestID, err = parseStringOrInt(raw); err != nil {
			return row, bad("request_id", err.Error())
		}
	}
	if name, raw, err := pick("delay", "delay_ms"); err != nil {
		return row, err
	} else if raw != nil && !isNull(raw) {
		f, err := parseFiniteNumber(raw)
		if err != nil || f < 0 {
			if err == nil {
				err = fmt.Errorf("must be non-negative, got %v", f)
			}
			return row, bad(name, err.Error())
		}
		row.delay = &f
	}
	if raw, ok := fields["output_token_ids"]; ok && !isNull(raw) {
		ids, err := parseU64List(raw)
		if err != nil {
			return row, bad("output_token_ids", err.Error())
		}
		row.outputTokenIDs = make([]uint32, len(ids))
		for i, id := range ids {
			if id > math.MaxUint32 {
				return row, bad("output_token_ids", fmt.Sprintf("element %d (%d) does not fit in u32", i, id))
			}
			row.outputTokenIDs[i] = uint32(id)
		}
	}
	if raw, ok := fields["priority"]; ok && !isNull(raw) {
		n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
		if err != nil {
			return row, bad("priority", "expected an integer, got "+abbrev(raw))
		}
		row.priority = &n
	}
	if raw, ok := fields["strict_priority"]; ok && !isNull(raw) {
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return row, bad("strict_priority", "expected a boolean, got "+abbrev(raw))
		}
		row.strictPriority = &b
	}
	if raw, ok := fields["policy_class"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &row.policyClass); err != nil {
			return row, bad("policy_class", "expected a string, got "+abbrev(raw))
		}
	}
	return row, nil
}

// ReadMooncake reads a whole trace. Blank lines are skipped (and still counted for line
// numbers); errors name the file and line: `trace.jsonl:17: field "hash_ids": ...`.
func ReadMooncake(r io.Reader, name string) ([]MooncakeRow, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var rows []MooncakeRow
	lineNo := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			lineNo++
			if t := bytes.TrimSpace(line); len(t) > 0 {
				row, perr := parseMooncakeLine(t, lineNo)
				if perr != nil {
					return nil, &mooncakeFileError{Name: name, Err: perr.(*mooncakeError)}
				}
				rows = append(rows, row)
			}
		}
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, lineNo+1, err)
		}
	}
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func abbrev(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func parseFiniteNumber(raw json.RawMessage) (float64, error) {
	s := string(bytes.TrimSpace(raw))
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || len(s) == 0 || s[0] == '"' {
		return 0, fmt.Errorf("expected a number, got %s", abbrev(raw))
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("number %s is not finite", s)
	}
	return f, nil
}

// parseCount accepts a non-negative integer (serde's usize); 7.0 is not an integer for serde.
func parseCount(raw json.RawMessage) (int, error) {
	s := string(bytes.TrimSpace(raw))
	n, err := strconv.ParseUint(s, 10, 63)
	if err != nil {
		return 0, fmt.Errorf("expected a non-negative integer, got %s", abbrev(raw))
	}
	return int(n), nil
}

func parseU64List(raw json.RawMessage) ([]uint64, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("expected an array of non-negative integers, got %s", abbrev(raw))
	}
	out := make([]uint64, len(items))
	for i, it := range items {
		n, err := strconv.ParseUint(string(bytes.TrimSpace(it)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("element %d: expected a non-negative integer, got %s", i, abbrev(it))
		}
		out[i] = n
	}
	return out, nil
}

func parseStringOrInt(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	t := string(bytes.TrimSpace(raw))
	if _, err := strconv.ParseInt(t, 10, 64); err == nil {
		return t, nil
	}
	return "", fmt.Errorf("expected a string, got %s", abbrev(raw))
}

// strictObject validates one trace line with the shared JSON scanner: well-formed UTF-8, one
// JSON value, and no key named twice in the top-level object.
func strictObject(line []byte, lineNo int) error {
	sc := &jsonscan.Scanner{}
	end, err := sc.ScanAt(line, jsonscan.SkipSpace(line, 0))
	if err != nil {
		return &mooncakeError{Line: lineNo, Msg: "not a JSON object: " + err.Error()}
	}
	if rest := jsonscan.SkipSpace(line, end); rest != len(line) {
		return &mooncakeError{Line: lineNo, Msg: fmt.Sprintf("not one JSON object: more input at byte %d", rest)}
	}
	if len(sc.Tape) == 0 || sc.Tape[0].Kind != jsonscan.Object {
		return &mooncakeError{Line: lineNo, Msg: "not a JSON object"}
	}
	seen := map[string]bool{}
	for k := range sc.Members(0) {
		key := string(sc.Str(&sc.Tape[k]))
		if seen[key] {
			return &mooncakeError{Line: lineNo, Field: key, Msg: "named twice in this line (a duplicate key: which value counts would be a guess)"}
		}
		seen[key] = true
	}
	return nil
}
