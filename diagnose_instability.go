package main

import (
	"strings"

	"kvparity/diffview/diagnose"
)

// diagnoseInstability is engine.Options.Diagnose: what the diff of two differing canonical reports
// of one revision says, in words — the diagnosis's (diffview/diagnose: its two most specific
// signatures) and the first divergence. An UNSTABLE arm's reason quotes it, so the cause it names
// is the evidence's, the same the diff pane shows. The two are repetitions of one build: values
// that moved are entropy, never a timing model that changed.
func diagnoseInstability(a, b string) (string, error) {
	d, err := diagnose.DiffRepetitionFiles(a, b)
	if err != nil {
		return "", err
	}
	var sigs []string
	for _, s := range d.Diagnosis[:min(2, len(d.Diagnosis))] {
		sigs = append(sigs, s.String())
	}
	if len(sigs) == 0 {
		return "", nil
	}
	words := strings.Join(sigs, "; ")
	if d.First != nil {
		words += " (first divergence: " + d.First.String() + ")"
	}
	return words, nil
}
