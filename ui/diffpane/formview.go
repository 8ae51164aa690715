package diffpane

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"kvparity/diffview"
	"kvparity/ui/keys"
)

// fieldLines renders one field: its label in a column of its own, then its value.
func (f exceptionForm) fieldLines(i int) []string {
	st := f.styles
	ff := f.fields[i]
	ls := st.Faint
	marker := "  "
	if i == f.focused && f.confirm == "" {
		ls, marker = st.Diff.Title, "▸ "
	}
	label := ls.Render(pad(marker+ff.label, formLabelW))
	if !ff.multi {
		return []string{label + ff.input.View()}
	}
	var out []string
	for k, l := range strings.Split(ff.area.View(), "\n") {
		if k == 0 {
			out = append(out, label+l)
		} else {
			out = append(out, strings.Repeat(" ", formLabelW)+l)
		}
	}
	return out
}

// confirmLines is the broad record's confirmation.
func (f exceptionForm) confirmLines(w int) []string {
	st := f.styles
	lines := []string{st.Banner.Render(pad(" BROAD RECORD: confirm before saving", w))}
	for _, l := range strings.Split(ansi.Wrap("This record "+f.confirm+". It explains a whole section of the report without naming "+
		"what changed there. Saved, it is flagged broad: true and marked BROAD in the pane and the campaign report.", w-2, ""), "\n") {
		lines = append(lines, st.Bad.Render("  "+l))
	}
	return append(lines, st.Bold.Render(cut(fmt.Sprintf("  %s save it flagged broad · %s keep editing (narrower patterns: %s groups by field pattern)",
		keys.Name(f.keys.Confirm), keys.Name(f.keys.Refuse), keys.Name(f.keys.GroupBy)), w)))
}

// view renders the form into at most h lines: the title, the patterns with their live count,
// any error or confirmation, then as many of the other fields as fit around the focused one.
func (f exceptionForm) view(d *diffview.Diff, w, h int) []string {
	st := f.styles
	title := "NEW EXCEPTION RECORD"
	if f.id != "" {
		title = "EDIT EXCEPTION RECORD " + f.id
	}
	hint := fmt.Sprintf("  %s next field · %s save · %s discard · workbench keys wait until you leave the form",
		keys.Name(f.keys.NextField), keys.Name(f.keys.Save), keys.Name(f.keys.Cancel))
	pinned := []string{st.Diff.Title.Render(cut(title, w)) + st.Faint.Render(cut(hint, w-len([]rune(title))))}
	pinned = append(pinned, f.fieldLines(0)...)
	if f.focused == 0 && f.confirm == "" {
		pinned = append(pinned, st.Faint.Render(cut("      comma-separated patterns, each checked and counted: * one step, ** any depth", w)))
	}
	pinned = append(pinned, f.coverageLines(d, w)...)
	if f.err != "" {
		pinned = append(pinned, st.Bad.Render(cut("cannot save: "+f.err, w)))
	}
	if f.note != "" {
		pinned = append(pinned, st.Warn.Render(cut("    "+f.note, w)))
	}
	if f.confirm != "" {
		pinned = append(pinned, f.confirmLines(w)...)
	}
	var rest []string
	focusFrom, focusTo := 0, 0
	for i := 1; i < len(f.fields); i++ {
		if i == f.focused {
			focusFrom = len(rest)
		}
		rest = append(rest, f.fieldLines(i)...)
		if i == f.focused {
			focusTo = len(rest)
		}
	}
	room := max(0, h-len(pinned))
	start := 0
	if focusTo > room {
		start = min(focusFrom, focusTo-room)
	}
	if start > 0 && start < focusFrom {
		rest[start] = st.Faint.Render(cut(strings.Repeat(" ", formLabelW)+"↑ more fields above", w))
	}
	end := min(len(rest), start+room)
	if end < len(rest) && end-1 >= focusTo {
		rest[end-1] = st.Faint.Render(cut(strings.Repeat(" ", formLabelW)+"↓ more fields below ("+keys.Name(f.keys.NextField)+")", w))
	}
	lines := append(pinned, rest[start:end]...)
	if len(lines) > h {
		lines = lines[:max(h, 0)]
	}
	return lines
}
