package campaignreport

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClipKeepsUTF8(t *testing.T) {
	ascii := strings.Repeat("a", 70)
	if got := clip(ascii); got != strings.Repeat("a", 57)+"..." {
		t.Errorf("clip(70 x a) = %q", got)
	}
	if got := clip("short"); got != "short" {
		t.Errorf("clip(short) = %q", got)
	}
	// 56 ASCII bytes then a 3-byte rune straddling byte 57: the cut must fall before it.
	s := strings.Repeat("a", 56) + "€" + strings.Repeat("b", 10)
	got := clip(s)
	if !utf8.ValidString(got) || got != strings.Repeat("a", 56)+"..." {
		t.Errorf("clip(%q) = %q, want valid UTF-8 cut before the rune", s, got)
	}
}
