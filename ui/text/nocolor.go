package text

import (
	"strings"

	"github.com/charmbracelet/colorprofile"
)

// StripColour removes the colours of every SGR sequence in s and keeps the rest (bold,
// underline, reverse...). It is how a pane styled elsewhere (the diff pane) honours NO_COLOR.
// The work is colorprofile's ASCII downsampling, the same Bubble Tea applies to the whole
// program under NO_COLOR; this applies it to one pane's string so View stays colour-free too.
func StripColour(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	w := colorprofile.Writer{Forward: &b, Profile: colorprofile.ASCII}
	_, _ = w.WriteString(s) // a strings.Builder never fails
	return b.String()
}
