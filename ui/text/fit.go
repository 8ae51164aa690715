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
