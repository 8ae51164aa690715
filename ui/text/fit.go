// Package text holds the small rendering helpers every pane shares: fitting lines into a box
// without wrapping, short digests, durations and sparklines.
package text

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Fit joins lines into exactly h lines of at most w cells: longer lines are truncated with an
// ellipsis (never wrapped, so a narrow terminal cannot push the layout out of place), missing
// lines are blank, and surplus lines are dropped.
func Fit(lines []string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(Pad(Trunc(lines[i], w), w))
		} else {
			b.WriteString(strings.Repeat(" ", w))
		}
	}
	return b.String()
}

// Trunc cuts s (which may hold ANSI styling) to w cells, marking the cut with "…".
func Trunc(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Pad right-pads s with spaces to w cells.
func Pad(s string, w int) string {
	n := ansi.StringWidth(s)
	if n >= w {
		return s
	}
	return s + strings.Repeat(" ", w-n)
}

// Width is the display width of s, ANSI styling excluded.
func Width(s string) int { return ansi.StringWidth(s) }

// SideBySide joins two boxes of the same height line by line with a separator column. Both
// boxes must already be fitted (Fit) so every line has its box's width.
func SideBySide(left, right, sep string) string {
	l := strings.Split(left, "\n")
	r := strings.Split(right, "\n")
	n := max(len(l), len(r))
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(l) {
			b.WriteString(l[i])
		}
		b.WriteString(sep)
		if i < len(r) {
			b.WriteString(r[i])
		}
	}
	return b.String()
}

// Wrap breaks plain text into at most rows lines of at most w cells, at spaces where it can and
// inside a word (a long path) where it must; lines after the first start with indent. What
// does not fit in the last line is cut with "…". It never returns fewer than one line.
func Wrap(s string, w, rows int, indent string) []string {
	if w <= 0 || rows <= 0 {
		return []string{""}
	}
	var out []string
	rest := []rune(s)
	for len(rest) > 0 && len(out) < rows {
		prefix := ""
		if len(out) > 0 {
			prefix = indent
			for len(rest) > 0 && rest[0] == ' ' {
				rest = rest[1:]
			}
		}
		room := max(1, w-ansi.StringWidth(prefix))
		if ansi.StringWidth(string(rest)) <= room {
			out = append(out, prefix+string(rest))
			rest = nil
			break
		}
		if len(out) == rows-1 {
			out = append(out, prefix+ansi.Truncate(string(rest), room, "…"))
			rest = nil
			break
		}
		// Break at the last space that keeps the line within room, else at room.
		cutAt := 0
		width := 0
		for i, r := range rest {
			width += ansi.StringWidth(string(r))
			if width > room {
				break
			}
			if r == ' ' {
				cutAt = i
			}
			if cutAt == 0 && i+1 == room {
				cutAt = -(i + 1) // no space yet: a hard break here unless one comes
			}
		}
		switch {
		case cutAt > 0:
			out = append(out, prefix+string(rest[:cutAt]))
			rest = rest[cutAt:]
		default:
			n := max(1, -cutAt)
			out = append(out, prefix+string(rest[:n]))
			rest = rest[n:]
		}
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// Flow packs parts into lines of at most w cells, separated by sep, never splitting a part: a
// key figure moves to the next line whole instead of being cut (only a part wider than w on its
// own is cut). Parts may hold ANSI styling.
func Flow(parts []string, sep string, w int) []string {
	var out []string
	line := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		switch {
		case line == "":
			line = p
		case Width(line)+Width(sep)+Width(p) <= w:
			line += sep + p
		default:
			out = append(out, Trunc(line, w))
			line = p
		}
	}
	if line != "" {
		out = append(out, Trunc(line, w))
	}
	return out
}
