package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"kvparity/report"
)

// checkoutTrace is where Dynamo's bench crate keeps the public Mooncake trace it ships.
const checkoutTrace = "lib/bench/testdata/mooncake_trace_1000.jsonl"

// traceWindowMax is the most rows a row init-row writes replays: the protocol's fixed
// contiguous 5,000-request window (stage 3); a shorter trace is replayed whole.
const traceWindowMax = 5000

// A rowTrace is the trace a checkout row replays, as the row writes it.
type rowTrace struct {
	path  string // relative to the row's folder, slash-separated
	count int    // the window: the first count usable rows
	sha   string // of the whole file
	what  string // the comment above [trace]: where the trace comes from
}

// checkoutRowTrace is --trace PATH when given (relative to the working directory, like every
// path flag), else the trace the checkout's bench crate ships. Either is read once now: its
// usable rows (every line parsed, a malformed one named) give the window and its bytes the
// checksum, so the row never names a window the file cannot fill.
func checkoutRowTrace(checkout, checkoutAbs, traceFlag, rowAbsDir string, q *tomlQuoter) (rowTrace, error) {
	file, what := filepath.Join(checkoutAbs, filepath.FromSlash(checkoutTrace)), "The public Mooncake trace the checkout's bench crate ships"
	if traceFlag != "" {
		abs, err := filepath.Abs(traceFlag)
		if err != nil {
			return rowTrace{}, fmt.Errorf("--trace %s: %w", traceFlag, err)
		}
		file, what = abs, "--trace "+q.q("--trace", traceFlag)
	}
	scan, err := report.ScanTrace(file)
	switch {
	case traceFlag == "" && errors.Is(err, fs.ErrNotExist):
		return rowTrace{}, fmt.Errorf("--checkout %s: the checkout has no %s (the Mooncake trace Dynamo's bench crate ships): name a Mooncake trace with --trace PATH", checkout, checkoutTrace)
	case traceFlag == "" && err != nil:
		return rowTrace{}, fmt.Errorf("--checkout %s: %s: %w (name another Mooncake trace with --trace PATH)", checkout, checkoutTrace, err)
	case err != nil:
		return rowTrace{}, fmt.Errorf("--trace %s: %w", traceFlag, err)
	case scan.Rows == 0:
		return rowTrace{}, fmt.Errorf("%s: no usable rows: a Mooncake trace is one JSON object a line", file)
	}
	t := rowTrace{path: filepath.ToSlash(relativeTo(rowAbsDir, file)), count: min(scan.Rows, traceWindowMax), sha: scan.SHA256}
	t.what = fmt.Sprintf("%s: %d usable rows, the window is the first %d", what, scan.Rows, t.count)
	if scan.Rows > traceWindowMax {
		t.what += " (the protocol's 5,000-request window)"
	}
	return t, nil
}

// relativeTo is abs relative to the folder dir when it can be, abs itself otherwise, so a row
// and what it names can move together.
func relativeTo(dir, abs string) string {
	if r, err := filepath.Rel(dir, abs); err == nil {
		return r
	}
	return abs
}
