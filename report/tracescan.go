package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// A TraceScan is what a whole Mooncake trace file holds: its usable rows (blank lines are not
// rows, as in a window) and the SHA-256 of its bytes (what a row's [trace] sha256 verifies).
type TraceScan struct {
	Rows   int
	SHA256 string
}

// ScanTrace reads a Mooncake trace file once, as a stream: hashed whole and every row parsed
// as WriteWindow parses it, so a row written from the scan names a window that exists and a
// malformed line is refused now, naming the file and line, instead of at the first run.
func ScanTrace(path string) (TraceScan, error) {
	var s TraceScan
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 1<<16)
	var line []byte
	for lineNo := 1; ; lineNo++ {
		var rerr error
		line, rerr = readLine(br, line[:0])
		if rerr != nil && rerr != io.EOF {
			return s, fmt.Errorf("reading %s: %w", path, rerr)
		}
		if body := bytes.TrimSpace(line); len(body) > 0 {
			if _, err := parseMooncakeLine(body, lineNo); err != nil {
				var me *mooncakeError
				if errors.As(err, &me) {
					return s, &mooncakeFileError{Name: path, Err: me}
				}
				return s, fmt.Errorf("%s:%d: %w", path, lineNo, err)
			}
			s.Rows++
		}
		if rerr == io.EOF {
			break
		}
	}
	s.SHA256 = hex.EncodeToString(h.Sum(nil))
	return s, nil
}
