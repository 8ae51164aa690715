package exceptions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"kvparity/internal/jsonscan"
	"kvparity/internal/pointer"
)

// The strict reading of exceptions.jsonl. Every record the file holds must be read, or the next
// save (which rewrites the file from what was read) would drop it for good; so a line is
// exactly one JSON object, with nothing after it, no key named twice at any depth and no key
// that is not a field of ExceptionRecord. encoding/json alone reads the first value of a line
// and ignores the rest, resolves a repeated key to its last value and matches keys
// case-insensitively; the shared scanner (internal/jsonscan) sees all of that first.
//
// Blank (whitespace-only) lines hold no record and are tolerated anywhere, so dropping them on
// a rewrite loses nothing; a missing final newline and CRLF line ends are tolerated too.

// parseExceptions reads the records of an exceptions.jsonl whose content is data; name is the
// file's path, for errors ("name:line: ...").
func parseExceptions(name string, data []byte) ([]ExceptionRecord, error) {
	var recs []ExceptionRecord
	ids := map[string]int{}
	var sc jsonscan.Scanner
	line := 0
	for text := range bytes.Lines(data) {
		line++
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		r, err := parseExceptionLine(&sc, text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if r.ID == "" {
			return nil, fmt.Errorf("%s:%d: id: required, empty", name, line)
		}
		if prev, dup := ids[r.ID]; dup {
			return nil, fmt.Errorf("%s:%d: id: %q already used on line %d", name, line, r.ID, prev)
		}
		ids[r.ID] = line
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: record %s: %w", name, line, r.ID, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// parseExceptionLine reads the one record a non-blank line holds.
func parseExceptionLine(sc *jsonscan.Scanner, text []byte) (ExceptionRecord, error) {
	var r ExceptionRecord
	end, err := sc.ScanAt(text, jsonscan.SkipSpace(text, 0))
	if err != nil {
		return r, err
	}
	if rest := jsonscan.SkipSpace(text, end); rest != len(text) {
		return r, fmt.Errorf("more input after the record at byte %d (one record per line): %s", rest, jsonscan.Excerpt(text[rest:]))
	}
	if k := sc.Tape[0].Kind; k != jsonscan.Object {
		return r, fmt.Errorf("a record is a JSON object, not %s", kindName(k))
	}
	if err := uniqueKeys(sc, 0, nil); err != nil {
		return r, err
	}
	known := recordKeys()
	for k := range sc.Members(0) {
		key := string(sc.Str(&sc.Tape[k]))
		if known[key] {
			continue
		}
		msg := fmt.Sprintf("key %q: not a field of an exception record", key)
		for f := range known {
			if strings.EqualFold(f, key) {
				msg += fmt.Sprintf(" (keys are case-sensitive: %q)", f)
			}
		}
		return r, fmt.Errorf("%s", msg)
	}
	if err := json.Unmarshal(text, &r); err != nil {
		return r, err
	}
	return r, nil
}

// uniqueKeys refuses a key named twice in any object of the value at tape index ti; at is the
// pointer of that value, as escaped bytes.
func uniqueKeys(sc *jsonscan.Scanner, ti int32, at []byte) error {
	switch sc.Tape[ti].Kind {
	case jsonscan.Object:
		seen := map[string]bool{}
		for k, v := range sc.Members(ti) {
			key := sc.Str(&sc.Tape[k])
			if seen[string(key)] {
				where := ""
				if len(at) > 0 {
					where = " at " + string(at)
				}
				return fmt.Errorf("key %q%s: named twice in this record (which value counts would be a guess)", key, where)
			}
			seen[string(key)] = true
			if err := uniqueKeys(sc, v, pointer.AppendEscaped(append(at[:len(at):len(at)], '/'), key)); err != nil {
				return err
			}
		}
	case jsonscan.Array:
		for i, el := range sc.Elements(ti) {
			if err := uniqueKeys(sc, el, strconv.AppendInt(append(at[:len(at):len(at)], '/'), int64(i), 10)); err != nil {
				return err
			}
		}
	}
	return nil
}

func kindName(k jsonscan.Kind) string {
	switch k {
	case jsonscan.Array:
		return "an array"
	case jsonscan.String:
		return "a string"
	case jsonscan.Number:
		return "a number"
	case jsonscan.True, jsonscan.False:
		return "a boolean"
	}
	return "null"
}

// recordKeys are the JSON names of ExceptionRecord's fields, exactly as the file spells them.
var recordKeys = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[ExceptionRecord]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
})
