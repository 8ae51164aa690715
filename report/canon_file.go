package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// ErrReplayBench is wrapped by CheckReplayBench errors: the record does not prove that the
// seeded routing contract (the replay-bench build) was active, so the row is blocked.
var ErrReplayBench = errors.New("replay_bench is not true")

// CheckReplayBench checks that a canonical report's metadata.replay_bench is the literal true.
func CheckReplayBench(canonical []byte) error {
	return CheckReplayBenchAt(canonical, "/metadata/replay_bench")
}

// CheckReplayBenchAt checks the replay_bench flag at any pointer; timing lines carry it at
// "/replay_bench".
func CheckReplayBenchAt(record []byte, pointer string) error {
	raw, found, err := Lookup(record, pointer)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%s is missing: %w (build the artifact with exactly --features replay-bench)", pointer, ErrReplayBench)
	}
	if string(raw) != "true" {
		return fmt.Errorf("%s is %s: %w, so the seeded routing contract was not active", pointer, excerpt(raw), ErrReplayBench)
	}
	return nil
}

// Lookup returns the raw JSON text of the value at an RFC 6901 pointer in one record (strings
// with their quotes, exactly as written), and whether it exists. It walks only as far as the
// pointer needs, skipping other values by their brackets and quotes without checking their
// contents, so on a 30 MB report it costs a fraction of a parse: use it on records Canonicalize
// accepted (or on small ones such as timing lines). With duplicate keys the first one wins.
func Lookup(record []byte, pointer string) (raw []byte, found bool, err error) {
	toks, err := ParsePointer(pointer)
	if err != nil {
		return nil, false, fmt.Errorf("pointer %q: %w", pointer, err)
	}
	l := lookup{in: record}
	pos := l.ws(0)
	for _, tok := range toks {
		if pos >= len(record) {
			return nil, false, l.eof()
		}
		switch record[pos] {
		case '{':
			pos, found, err = l.member(pos, tok)
		case '[':
			pos, found, err = l.element(pos, tok)
		default:
			found = false
		}
		if err != nil || !found {
			return nil, false, err
		}
	}
	end, err := l.skip(pos)
	if err != nil {
		return nil, false, err
	}
	return bytes.Clone(record[pos:end]), true, nil
}

// lookup is the skipping walker behind Lookup.
type lookup struct{ in []byte }

func (l *lookup) eof() error {
	return &CanonError{Offset: int64(len(l.in)), Msg: "unexpected end of input (truncated record?)"}
}

func (l *lookup) bad(pos int, what string) error {
	return &CanonError{Offset: int64(pos), Msg: "expected " + what}
}

func (l *lookup) ws(pos int) int {
	for pos < len(l.in) && (l.in[pos] == ' ' || l.in[pos] == '\t' || l.in[pos] == '\n' || l.in[pos] == '\r') {
		pos++
	}
	return pos
}

// member finds key tok in the object at pos and returns the start of its value.
func (l *lookup) member(pos int, tok string) (int, bool, error) {
	in := l.in
	pos = l.ws(pos + 1)
	if pos < len(in) && in[pos] == '}' {
		return 0, false, nil
	}
	for {
		if pos >= len(in) {
			return 0, false, l.eof()
		}
		if in[pos] != '"' {
			return 0, false, l.bad(pos, "a string key")
		}
		end, err := l.skip(pos)
		if err != nil {
			return 0, false, err
		}
		key := in[pos+1 : end-1]
		match := string(key) == tok
		if !match && bytes.IndexByte(key, '\\') >= 0 {
			var s string
			match = json.Unmarshal(in[pos:end], &s) == nil && s == tok
		}
		pos = l.ws(end)
		if pos >= len(in) || in[pos] != ':' {
			return 0, false, l.bad(pos, "':'")
		}
		pos = l.ws(pos + 1)
		if match {
			return pos, true, nil
		}
		var more bool
		if pos, more, err = l.next(pos, '}'); err != nil || !more {
			return 0, false, err
		}
	}
}

// element finds index tok in the array at pos and returns the start of that element.
func (l *lookup) element(pos int, tok string) (int, bool, error) {
	in := l.in
	idx, ok := arrayIndex(tok)
	if !ok {
		return 0, false, nil
	}
	pos = l.ws(pos + 1)
	if pos < len(in) && in[pos] == ']' {
		return 0, false, nil
	}
	for i := 0; ; i++ {
		if i == idx {
			return pos, true, nil
		}
		var more bool
		var err error
		if pos, more, err = l.next(pos, ']'); err != nil || !more {
			return 0, false, err
		}
	}
}

// next skips the value at pos and the separator after it in a container closed by closer: it
// returns the start of the next member or element, or more=false at the closer.
func (l *lookup) next(pos int, closer byte) (next int, more bool, err error) {
	if pos, err = l.skip(pos); err != nil {
		return 0, false, err
	}
	pos = l.ws(pos)
	if pos >= len(l.in) {
		return 0, false, l.eof()
	}
	switch l.in[pos] {
	case ',':
		return l.ws(pos + 1), true, nil
	case closer:
		return 0, false, nil
	}
	return 0, false, l.bad(pos, "',' or '"+string(closer)+"'")
}

// skip returns the end of the value starting at pos.
func (l *lookup) skip(pos int) (int, error) {
	in := l.in
	if pos >= len(in) {
		return 0, l.eof()
	}
	switch in[pos] {
	case '"':
		for i := pos + 1; i < len(in); i++ {
			switch in[i] {
			case '\\':
				i++
			case '"':
				return i + 1, nil
			}
		}
		return 0, l.eof()
	case '{', '[':
		depth := 0
		for i := pos; i < len(in); i++ {
			switch in[i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			case '"':
				end, err := l.skip(i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			}
		}
		return 0, l.eof()
	}
	i := pos
	for i < len(in) {
		switch in[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if i == pos {
				return 0, l.bad(pos, "a value")
			}
			return i, nil
		}
		i++
	}
	if i == pos {
		return 0, l.eof()
	}
	return i, nil
}

// arrayIndex parses an RFC 6901 array index (no leading zeros, no sign).
func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 9 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
		n = n*10 + int(tok[i]-'0')
	}
	return n, true
}

// readJSONL splits a JSONL file into its lines (without the newline), refusing blank lines.
func readJSONL(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty file (no record)", path)
	}
	data = bytes.TrimSuffix(data, []byte{'\n'})
	recs := bytes.Split(data, []byte{'\n'})
	for i, rec := range recs {
		if len(bytes.TrimSpace(rec)) == 0 {
			return nil, fmt.Errorf("%s:%d: blank line (a canonical reports file has one record per line)", path, i+1)
		}
	}
	return recs, nil
}

// A FileRecord is one line of a canonical-reports file after canonicalization.
type FileRecord struct {
	Line       int    // 1-based
	Canonical  []byte // canonical bytes, ending in "\n"
	Digest     string // Digest(Canonical)
	FixedPoint string // FixedPointBreak of the harness's line: "" when already canonical
}

// CheckFile canonicalizes, digests and fixed-point-checks every line of a canonical-reports
// JSONL file (one record per harness iteration) in one pass per line. Errors name the file and
// the 1-based line. A blank line is an error (the harness never writes one, so it means the
// file was edited or corrupted), as is a file with no record at all; a missing newline after
// the last line is accepted.
func CheckFile(path string, p Profile) ([]FileRecord, error) {
	recs, err := readJSONL(path)
	if err != nil {
		return nil, err
	}
	out := make([]FileRecord, 0, len(recs))
	for i, rec := range recs {
		c, sum, brk, err := CanonicalizeAndDigest(rec, p)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, FileRecord{Line: i + 1, Canonical: c, Digest: sum, FixedPoint: brk})
	}
	return out, nil
}
