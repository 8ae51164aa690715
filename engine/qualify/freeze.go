package qualify

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"kvparity/engine"
)

// commentHead starts the probe table a frozen row carries; a row qualified again has its old
// table replaced, never stacked.
const commentHead = "# Qualified by kvparity qualify (protocol stage 3)"

// Freeze writes the qualified row: the row file's text with the chosen capacity in [replay]
// args, the band it was qualified for declared in [determinism], and the probe table as a
// comment above [replay], the way the golden points read. Everything else of the file
// (comments, layout, other keys) is kept. The text is parsed back and must hold the chosen
// capacity and band, so a row layout the rewrite does not understand is an error, not a
// silently unchanged row.
func Freeze(text []byte, file string, r Result, about string) ([]byte, error) {
	if r.Outcome != Qualified {
		return nil, fmt.Errorf("%s: nothing to freeze: %s (%s)", file, r.Outcome, r.Why)
	}
	s := string(text)
	flag := regexp.QuoteMeta(r.Flag)
	pair := regexp.MustCompile(`("` + flag + `"\s*,\s*")(\d+)(")`)
	joined := regexp.MustCompile(`("` + flag + `=)(\d+)(")`)
	value := strconv.Itoa(r.Chosen)
	switch {
	case pair.MatchString(s):
		s = pair.ReplaceAllString(s, "${1}"+value+"${3}")
	case joined.MatchString(s):
		s = joined.ReplaceAllString(s, "${1}"+value+"${3}")
	default:
		return nil, fmt.Errorf("%s: [replay] args: no %q followed by a quoted number to set", file, r.Flag)
	}
	s = withBand(s, r.Band)
	s = withComment(s, Comment(r, about))
	row, err := engine.ParseRow([]byte(s), file)
	if err != nil {
		return nil, fmt.Errorf("the frozen row does not parse back: %w", err)
	}
	if got := row.ReplayArg(r.Flag); got != value {
		return nil, fmt.Errorf("%s: the frozen row reads %s %q, not the chosen %s", file, r.Flag, got, value)
	}
	if b := row.Band(); b != [2]int{r.Band.Min, r.Band.Max} {
		return nil, fmt.Errorf("%s: the frozen row reads pressure band %v, not %s", file, b, r.Band)
	}
	return []byte(s), nil
}

var (
	bandLine       = regexp.MustCompile(`(?m)^[ \t]*pressure_band\s*=.*$`) // the encoder indents a table's keys
	determinismHdr = regexp.MustCompile(`(?m)^\[determinism\]\s*$`)
	replayHdr      = regexp.MustCompile(`(?m)^\[replay\]\s*$`)
)

// withBand declares the band under [determinism] (replacing a declared one, at its indent).
func withBand(s string, b Band) string {
	line := fmt.Sprintf("pressure_band = [%d, %d]", b.Min, b.Max)
	if m := bandLine.FindString(s); m != "" {
		indent := m[:len(m)-len(strings.TrimLeft(m, " \t"))]
		return bandLine.ReplaceAllLiteralString(s, indent+line)
	}
	if loc := determinismHdr.FindStringIndex(s); loc != nil {
		return s[:loc[1]] + "\n" + line + s[loc[1]:]
	}
	return strings.TrimRight(s, "\n") + "\n\n[determinism]\n" + line + "\n"
}

// withComment puts the probe table right above [replay], replacing an earlier one.
func withComment(s, comment string) string {
	if i := strings.Index(s, commentHead); i >= 0 {
		end := i
		for end < len(s) && strings.HasPrefix(s[end:], "#") {
			nl := strings.IndexByte(s[end:], '\n')
			if nl < 0 {
				end = len(s)
				break
			}
			end += nl + 1
		}
		s = s[:i] + s[end:]
	}
	loc := replayHdr.FindStringIndex(s)
	if loc == nil {
		return strings.TrimRight(s, "\n") + "\n\n" + comment
	}
	return s[:loc[0]] + comment + s[loc[0]:]
}

// Comment is the probe table in the golden points' words, as comment lines.
func Comment(r Result, about string) string {
	kind := "pressure events"
	var first Probe
	for _, p := range r.Search {
		if p.Capacity == r.Chosen {
			first = p
		}
		if p.Kind != "" {
			kind = p.Kind
		}
	}
	text := fmt.Sprintf("%s %d gives %s (band %s), fully readmitted; %d fresh processes gave one digest %s and identical counters.",
		r.Flag, r.Chosen, events(first.Count, kind), r.Band, len(r.Confirm)+1, short(r.Digest))
	var near []string
	sorted := append(slices.Clone(r.Search), r.Edges...)
	slices.SortFunc(sorted, func(a, b Probe) int { return a.Capacity - b.Capacity })
	for _, p := range sorted {
		switch {
		case p.Capacity == r.Chosen:
		case p.Class == Flood:
			near = append(near, fmt.Sprintf("a flood at %d (%d)", p.Capacity, p.Count))
		case p.Class == Stalled:
			near = append(near, fmt.Sprintf("a stall at %d (no end within the probe timeout)", p.Capacity))
		default:
			near = append(near, fmt.Sprintf("%d at %d", p.Count, p.Capacity))
		}
	}
	if len(near) > 0 {
		text += " Nearby probes: " + strings.Join(near, ", ") + "."
	}
	if c := r.Candidate; c != nil {
		text += " The candidate at the same capacity (never tuned separately): " + c.describe(r.Band) + "."
	}
	return commentLines(strings.TrimPrefix(commentHead, "# ")+": "+about+". "+text, 98)
}

// commentLines wraps text into "# " lines of at most width characters.
func commentLines(text string, width int) string {
	var b strings.Builder
	line := "#"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > width && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
	return b.String()
}
