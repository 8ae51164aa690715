package logpane

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
)

func TestRingKeepsTheNewestLines(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	for i := 0; i < capacity+10; i++ {
		m, _ = m.Update(engine.LogLine{Run: "det/baseline-1", Line: fmt.Sprintf("line %d", i)})
	}
	if m.Len() != capacity || m.total != capacity+10 {
		t.Fatalf("len %d total %d", m.Len(), m.total)
	}
	m.SetSize(40, 3)
	s := ansi.Strip(m.View())
	if !strings.Contains(s, fmt.Sprintf("line %d", capacity+9)) || !strings.Contains(s, fmt.Sprintf("line %d", capacity+8)) {
		t.Fatalf("the tail must show the newest lines:\n%s", s)
	}
	if m.at(0).text != "line 10" {
		t.Fatalf("oldest kept line %q", m.at(0).text)
	}
}

func TestScrollBackWhenFocused(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	for i := 0; i < 10; i++ {
		m.Note(fmt.Sprintf("note %d", i))
	}
	m.SetSize(40, 3)
	m.Focus()
	m, _ = m.Update(keyPress('k'))
	m, _ = m.Update(keyPress('k'))
	s := ansi.Strip(m.View())
	if !strings.Contains(s, "note 7") || strings.Contains(s, "note 9") || !strings.Contains(s, "scrolled back") {
		t.Fatalf("view:\n%s", s)
	}
	m.Blur()
	m, _ = m.Update(keyPress('j'))
	if m.back != 2 {
		t.Fatal("a blurred pane ignores keys")
	}
}

func TestLongLinesWrapAndPagesScroll(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	long := "add repetition refused: candidate is UNSTABLE — stop and diagnose the leak; never add repetitions to average an entropy leak away"
	m.Note(long)
	m.SetSize(40, 6)
	s := ansi.Strip(m.View())
	if strings.Contains(s, "…") || !strings.Contains(s, "entropy leak") || !strings.Contains(s, "away") {
		t.Fatalf("a long line must wrap, not be cut:\n%s", s)
	}
	for i := 0; i < 30; i++ {
		m.Note(fmt.Sprintf("note %d", i))
	}
	m.Focus()
	m, _ = m.Update(keyPress2("pgup"))
	if m.back != 4 {
		t.Fatalf("pgup scrolls a page: back %d", m.back)
	}
	m.SetZoomed(true)
	if !strings.Contains(ansi.Strip(m.View()), "zoomed (z)") {
		t.Fatal("a zoomed log says so")
	}
}

// Older lines scrolled off the top are counted in the title.
func TestOlderLinesAreCounted(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	for i := 0; i < 10; i++ {
		m.Note(fmt.Sprintf("line %d", i))
	}
	m.SetSize(80, 4) // title and three lines
	if s := ansi.Strip(m.View()); !strings.Contains(s, "↑ 7 older (↑/k scrolls, z zooms)") || !strings.Contains(s, "line 9") {
		t.Fatalf("older lines are counted:\n%s", s)
	}
}
