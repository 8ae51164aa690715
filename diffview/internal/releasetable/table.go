package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"kvparity/diffview"
	"kvparity/diffview/diagnose"
)

// A pair is one line of the manifest: two release runs.
type pair struct {
	Name string
	A, B diffview.ReleaseRun
}

// readPairs reads a manifest (name, A records, B records, A summary, B summary per line).
func readPairs(path string) ([]pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []pair
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 tab-separated fields (name, A records, B records, A summary, B summary), got %d", path, n, len(fs))
		}
		out = append(out, pair{fs[0], diffview.ReleaseRun{Records: fs[1], Summary: fs[3]}, diffview.ReleaseRun{Records: fs[2], Summary: fs[4]}})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no pair", path)
	}
	return out, nil
}

// A tableRow is one pair measured.
type tableRow struct {
	Pair         string   `json:"pair"`
	Differing    int      `json:"differing"`
	Causes       []string `json:"causes"` // "code explains" of every named signature, in the diagnosis's order
	Unclassified int      `json:"unclassified"`
	Of           int      `json:"of"` // the pointers the signatures' shares are of
	Seconds      float64  `json:"seconds"`
	First        string   `json:"first_divergence"`
	Notes        []string `json:"notes,omitempty"`
}

// Share is the unclassified share of the differing pointers (0 when equal).
func (r tableRow) Share() float64 {
	if r.Of == 0 {
		return 0
	}
	return float64(r.Unclassified) / float64(r.Of)
}

// measure diffs every pair and reads its diagnosis.
func measure(pairs []pair) ([]tableRow, error) {
	var rows []tableRow
	for _, p := range pairs {
		t0 := time.Now()
		d, err := diagnose.DiffRelease(p.A, p.B)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		r := tableRow{Pair: p.Name, Differing: d.Count, Seconds: time.Since(t0).Seconds(), Causes: []string{}, Notes: d.Notes}
		if d.First != nil {
			r.First = d.First.String()
		}
		for _, s := range d.Diagnosis {
			r.Of = s.Of
			if s.Code == diagnose.SigUnclassified {
				r.Unclassified = s.Explains
				continue
			}
			r.Causes = append(r.Causes, fmt.Sprintf("%s %d", s.Code, s.Explains))
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// markdown is the per-pair table, then the median and worst unclassified share.
func markdown(rows []tableRow) string {
	var b strings.Builder
	b.WriteString("| pair | differing pointers | causes named (explains) | unclassified | share | diff s |\n|---|---:|---|---:|---:|---:|\n")
	shares := make([]float64, 0, len(rows))
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %.1f%% | %.2f |\n", r.Pair, r.Differing, strings.Join(r.Causes, ", "), r.Unclassified, 100*r.Share(), r.Seconds)
		shares = append(shares, r.Share())
	}
	slices.Sort(shares)
	if len(shares) > 0 {
		fmt.Fprintf(&b, "\n%d pairs; unclassified share: median %.1f%%, worst %.1f%%\n", len(rows), 100*shares[len(shares)/2], 100*shares[len(shares)-1])
	}
	return b.String()
}
