package stats

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Go benchmark format (golang.org/design/14313-benchmark-format), so that benchstat and other
// x/perf tools can read kvparity samples. Formatting only; no statistics here.

// A BenchLine is one result line: Benchmark<Name> <iters> <value> <unit>.
type BenchLine struct {
	Name  string // without the "Benchmark" prefix, e.g. "Replay/arm=baseline"
	Value float64
	Unit  string // e.g. "ns/op", "ms/op", "ratio"
}

// A BenchUnit declares how benchstat treats a unit: `Unit <unit> assume=nothing better=lower`.
type BenchUnit struct {
	Unit   string
	Assume string // "nothing" or "exact"
	Better string // "lower" or "higher"
}

// WriteBench writes configuration lines (key: value, keys sorted by the caller's order), unit
// metadata, then one result line per value with iteration count 1 (each sample is one process).
func WriteBench(w io.Writer, config [][2]string, units []BenchUnit, lines []BenchLine) error {
	bw := bufio.NewWriter(w)
	for _, kv := range config {
		if err := checkConfigKey(kv[0]); err != nil {
			return err
		}
		fmt.Fprintf(bw, "%s: %s\n", kv[0], strings.ReplaceAll(kv[1], "\n", " "))
	}
	for _, u := range units {
		fmt.Fprintf(bw, "Unit %s assume=%s better=%s\n", u.Unit, u.Assume, u.Better)
	}
	for _, l := range lines {
		if l.Name == "" || strings.ContainsAny(l.Name, " \t\n") {
			return fmt.Errorf("stats: benchmark name %q must be non-empty without spaces", l.Name)
		}
		if l.Unit == "" || strings.ContainsAny(l.Unit, " \t\n") {
			return fmt.Errorf("stats: benchmark unit %q must be non-empty without spaces", l.Unit)
		}
		fmt.Fprintf(bw, "Benchmark%s 1 %s %s\n", l.Name, strconv.FormatFloat(l.Value, 'f', -1, 64), l.Unit)
	}
	return bw.Flush()
}

// Config keys start with a lower-case letter and hold no spaces or upper-case letters.
func checkConfigKey(k string) error {
	if k == "" || !(k[0] >= 'a' && k[0] <= 'z') || strings.ContainsAny(k, " \t\n:") || strings.ToLower(k) != k {
		return fmt.Errorf("stats: benchmark configuration key %q must start lower-case and hold no spaces, colons or upper case", k)
	}
	return nil
}
