package diffview

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"kvparity/internal/jsonscan"
)

// Dynamo's release replay (python -m dynamo.replay) writes a run in two files of its own
// layout: --report-jsonl, one per-request record per line, in the order requests finished,
// and --report-json, the run summary (one pretty-printed object). A release run is laid out
// as a canonical report holds the same values ({"per_request":[…],"summary":{…}}), so one
// diff, one pairing and one canonical profile apply: the summary's wall-clock fields are the
// profile's /summary exclusions. Messages name the file and line a value came from.

// A ReleaseRun names the outputs of one release replay; either may be "".
type ReleaseRun struct {
	Records string // --report-jsonl: one per-request record per line
	Summary string // --report-json: the run summary
}

// label names the run in the diff's heading.
func (r ReleaseRun) label() string {
	switch {
	case r.Records != "" && r.Summary != "":
		return r.Records + " + " + r.Summary
	case r.Records != "":
		return r.Records
	}
	return r.Summary
}

// DiffRelease diffs two release replays' outputs (each: records, summary or both).
func DiffRelease(a, b ReleaseRun) (*Diff, error) {
	da, err := loadRelease(a)
	if err != nil {
		return nil, err
	}
	db, err := loadRelease(b)
	if err != nil {
		return nil, err
	}
	d, err := diffDocs(da, db)
	if err != nil {
		return nil, err
	}
	d.A, d.B = Side{Label: a.label(), ReportPath: a.Records}, Side{Label: b.label(), ReportPath: b.Records}
	return d, nil
}

// A releaseOrigin maps offsets of a laid-out release run back to its files: one span per
// record line and one for the summary, in the order they are laid out.
type releaseOrigin struct {
	spans []originSpan
	desc  string // what was laid out, for the diff's note
}

type originSpan struct {
	off  int    // where the span starts in the laid-out text
	file string // the file it came from
	line int    // its first line there
	text []byte // the file's bytes from that line on (a summary spans lines)
}

func (o *releaseOrigin) where(off int) string {
	k := sort.Search(len(o.spans), func(i int) bool { return o.spans[i].off > off }) - 1
	if k < 0 {
		return fmt.Sprintf("%s:1:1", o.spans[0].file)
	}
	s := o.spans[k]
	rel := min(off-s.off, len(s.text))
	line := s.line + bytes.Count(s.text[:rel], []byte{'\n'})
	col := rel - (bytes.LastIndexByte(s.text[:rel], '\n') + 1) + 1
	return fmt.Sprintf("%s:%d:%d", s.file, line, col)
}

// loadRelease reads one release run's files and lays them out as a report.
func loadRelease(r ReleaseRun) (*Doc, error) {
	if r.Records == "" && r.Summary == "" {
		return nil, fmt.Errorf("a release run needs its per-request records (--report-jsonl) or its summary (--report-json)")
	}
	var text []byte
	o := &releaseOrigin{}
	var desc []string
	text = append(text, '{')
	if r.Records != "" {
		src, err := os.ReadFile(r.Records)
		if err != nil {
			return nil, err
		}
		text = append(text, `"per_request":[`...)
		n := 0
		for line, rest, no := []byte(nil), src, 0; len(rest) > 0; {
			no++
			if k := bytes.IndexByte(rest, '\n'); k >= 0 {
				line, rest = rest[:k], rest[k+1:]
			} else {
				line, rest = rest, nil
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if n > 0 {
				text = append(text, ',')
			}
			o.spans = append(o.spans, originSpan{off: len(text), file: r.Records, line: no, text: line})
			text = append(text, line...)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no per-request record (empty file)", r.Records)
		}
		text = append(text, ']')
		desc = append(desc, fmt.Sprintf("%d per-request record(s) of %s as /per_request", n, r.Records))
	}
	if r.Summary != "" {
		src, err := os.ReadFile(r.Summary)
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(src)) == 0 {
			return nil, fmt.Errorf("%s: no summary object (empty file)", r.Summary)
		}
		if len(text) > 1 {
			text = append(text, ',')
		}
		text = append(text, `"summary":`...)
		o.spans = append(o.spans, originSpan{off: len(text), file: r.Summary, line: 1, text: src})
		text = append(text, src...)
		desc = append(desc, "the summary "+r.Summary+" as /summary")
	}
	text = append(text, '}')
	o.desc = strings.Join(desc, " and ")
	name := r.Records
	if name == "" {
		name = r.Summary
	}
	d, err := scanDoc(&Doc{name: name, line: 1, origin: o}, text, true)
	if err != nil {
		return nil, err
	}
	if v, ok := d.Root["summary"]; ok && d.Kind(v) != jsonscan.Object {
		return nil, fmt.Errorf("%s: the summary must be a JSON object", d.where(d.start(v)))
	}
	return d, nil
}

// releaseNote says how a release run was read (one note per side laid out).
func releaseNote(side string, d *Doc) string {
	return fmt.Sprintf("%s is a release replay's output: %s, compared by key (a release writes its keys in no byte order)", side, d.origin.desc)
}

// A fileShape is what a report file holds, read from its first value.
type fileShape int

const (
	shapeCanonical      fileShape = iota // a canonical report line (or anything else: parseDoc judges it)
	shapeReleaseRecords                  // one per-request record per line
	shapeReleaseSummary                  // one summary object
)

// sniffShape reads the first value of src: a record (an object with a uuid and no
// per_request) starts a release replay's --report-jsonl; one object that holds none of a
// report's sections (per_request, summary, metadata, coverage) is its --report-json.
func sniffShape(src []byte) fileShape {
	first := src
	if k := bytes.IndexByte(src, '\n'); k >= 0 {
		first = src[:k]
	}
	var sc jsonscan.Scanner
	i := jsonscan.SkipSpace(first, 0)
	if _, err := sc.ScanAt(first, i); err != nil {
		// A value that spans lines: the pretty-printed summary (or a report parseDoc reads).
		first = src
		i = jsonscan.SkipSpace(first, 0)
		if _, err := sc.ScanAt(first, i); err != nil {
			return shapeCanonical
		}
	}
	if sc.Tape[0].Kind != jsonscan.Object {
		return shapeCanonical
	}
	has := func(k string) bool { _, ok := sc.Member(0, k); return ok }
	switch {
	case reportSections(has):
		return shapeCanonical
	case has("uuid"):
		return shapeReleaseRecords
	}
	return shapeReleaseSummary
}

// reportSections says a root holds one of a canonical report's sections.
func reportSections(has func(string) bool) bool {
	return has("per_request") || has("summary") || has("metadata") || has("coverage")
}

// loadAny loads a canonical report, or a release replay's records or summary laid out as one.
// A file read as a report whose root holds a section of one is a report; anything else is
// judged by its first value (sniffShape), so a canonical report is scanned once.
func loadAny(path string) (*Doc, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := parseDoc(path, src, true)
	if err == nil && reportSections(func(k string) bool { _, ok := d.Root[k]; return ok }) {
		return d, nil
	}
	switch sniffShape(src) {
	case shapeReleaseRecords:
		return loadRelease(ReleaseRun{Records: path})
	case shapeReleaseSummary:
		return loadRelease(ReleaseRun{Summary: path})
	}
	return d, err
}
