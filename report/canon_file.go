package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"kvparity/internal/jsonscan"
	"kvparity/internal/pointer"
)

// errReplayBench is wrapped by CheckReplayBench errors: the record does not prove that the
// seeded routing contract (the replay-bench build) was active, so the row is blocked.
var errReplayBench = errors.New("replay_bench is not true")

// CheckReplayBench checks that a canonical report's metadata.replay_bench is the literal true,
// or, in the 1.4.x release line, whose reports have no metadata (and no schema_version), the
// replay_bench it writes at the root.
func CheckReplayBench(canonical []byte) error {
	err := checkReplayBenchAt(canonical, "/metadata/replay_bench")
	if err == nil || !line14(canonical) {
		return err
	}
	return checkReplayBenchAt(canonical, "/replay_bench")
}

// line14 reports whether a report has the 1.4.x shape: replay_bench at the root, and neither
// metadata nor schema_version.
func line14(record []byte) bool {
	for ptr, want := range map[string]bool{"/replay_bench": true, "/metadata": false, "/schema_version": false} {
		if _, found, err := lookup(record, ptr); err != nil || found != want {
			return false
		}
	}
	return true
}

// checkReplayBenchAt checks the replay_bench flag at any pointer; timing lines carry it at
// "/replay_bench".
func checkReplayBenchAt(record []byte, ptr string) error {
	raw, found, err := lookup(record, ptr)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%s is missing: %w (build the artifact with exactly --features replay-bench)", ptr, errReplayBench)
	}
	if string(raw) != "true" {
		return fmt.Errorf("%s is %s: %w, so the seeded routing contract was not active", ptr, jsonscan.Excerpt(raw), errReplayBench)
	}
	return nil
}

// lookup returns the raw JSON text of the value at an RFC 6901 pointer in one record (strings
// with their quotes, exactly as written), and whether it exists. It scans only as far as the
// pointer needs (jsonscan.Find), so on a 30 MB report whose /metadata comes before
// /per_request it costs a fraction of a parse. With duplicate keys the first one wins.
func lookup(record []byte, ptr string) (raw []byte, found bool, err error) {
	toks, err := pointer.Parse(ptr)
	if err != nil {
		return nil, false, fmt.Errorf("pointer %q: %w", ptr, err)
	}
	start, end, found, err := jsonscan.Find(record, toks)
	if err != nil || !found {
		return nil, false, canonErr(err)
	}
	return bytes.Clone(record[start:end]), true, nil
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
	FixedPoint string // fixedPointBreak of the harness's line: "" when already canonical
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
