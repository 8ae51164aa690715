package theme

import (
	"strings"
	"testing"
)

func TestLightAndDarkDiffer(t *testing.T) {
	dark, light := NewStyles(true, false), NewStyles(false, false)
	if dark.Good.Render("PASS") == light.Good.Render("PASS") {
		t.Fatal("light and dark backgrounds should get different greens")
	}
}

func TestNoColorKeepsEmphasisWithoutColour(t *testing.T) {
	s := NewStyles(true, true)
	for _, out := range []string{s.Verdict("FAIL"), s.Verdict("STABLE"), s.Selected.Render("x"), s.Banner.Render("x"),
		s.Diff.GroupSel.Render("x"), s.Diff.Del.Render("x"), s.Diff.Ins.Render("x")} {
		if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
			t.Fatalf("NO_COLOR output carries a colour: %q", out)
		}
		if !strings.Contains(out, "\x1b[") {
			t.Fatalf("NO_COLOR output lost its emphasis: %q", out)
		}
	}
}

func TestVerdictWords(t *testing.T) {
	s := NewStyles(true, false)
	if s.Verdict("") != "" {
		t.Fatal("no verdict renders nothing")
	}
	if s.Verdict("PASS") != s.Good.Render("PASS") || s.Verdict("UNSTABLE") != s.Bad.Render("UNSTABLE") ||
		s.Verdict("INCONCLUSIVE") != s.Warn.Render("INCONCLUSIVE") {
		t.Fatal("verdict words are styled by meaning")
	}
}
