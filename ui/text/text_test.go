package text

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestFitTruncatesPadsAndNeverWraps(t *testing.T) {
	got := Fit([]string{"short", "a much longer line than the box", "\x1b[1mbold and long line\x1b[0m"}, 10, 4)
	lines := strings.Split(got, "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != 10 {
			t.Errorf("line %d is %d wide: %q", i, w, l)
		}
	}
	if ansi.Strip(lines[1]) != "a much lo…" {
		t.Errorf("truncation %q", ansi.Strip(lines[1]))
	}
	if Fit([]string{"x"}, 0, 3) != "" || Fit([]string{"x"}, 3, 0) != "" {
		t.Error("an empty box renders nothing")
	}
}

func TestFormats(t *testing.T) {
	check := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("got %q want %q", got, want)
		}
	}
	check(Dur(850*time.Millisecond), "850ms")
	check(Dur(1900*time.Millisecond), "1.9s")
	check(Dur(123*time.Second), "2m03s")
	check(Dur(3720*time.Second), "1h02m")
	check(VirtualTime(812_345), "812 s")
	check(VirtualTime(2_500), "2.5 s")
	check(Bytes(12_900_000), "12.3 MB")
	check(Growth(1000, 1008), "+0.8%")
	check(Growth(0, 5), "n/a")
	check(Short("dd6938abcdef", 6), "dd6938…")
	check(Spark([]int{0, 1, 8, 4}), "·▁█▄")
	check(Plural(1, "event"), "1 event")
	check(Plural(3, "event"), "3 events")
}

func TestStripColourKeepsAttributes(t *testing.T) {
	in := "\x1b[1;38;2;121;192;255mA\x1b[m \x1b[31;4mB\x1b[0m \x1b[48;5;236mC\x1b[39m"
	got := StripColour(in)
	// The same three checks as before, independent of how resets are spelt: the text is intact,
	// bold stays on A and underline on B, and no colour parameter (3x, 4x, 9x, 10x, 38/48;…) is left.
	if plain := ansi.Strip(got); plain != "A B C" {
		t.Fatalf("text changed: %q from %q", plain, got)
	}
	if !strings.HasPrefix(got, "\x1b[1mA") || !strings.Contains(got, "\x1b[4mB") {
		t.Fatalf("bold or underline lost: %q", got)
	}
	for _, seq := range sgrParams.FindAllStringSubmatch(got, -1) {
		for _, p := range strings.Split(seq[1], ";") {
			if n, err := strconv.Atoi(p); err == nil && (n >= 30 && n <= 49 || n >= 90 && n <= 107) {
				t.Fatalf("colour parameter %d left in %q", n, got)
			}
		}
	}
}

var sgrParams = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

func TestWrapBreaksAtSpacesThenInsideWords(t *testing.T) {
	got := Wrap(" report written: /tmp/a/very/long/campaign/dir/report.md · o opens it", 30, 3, "  ")
	want := []string{" report written:", "  /tmp/a/very/long/campaign/di", "  r/report.md · o opens it"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("wrap:\n%q\nwant\n%q", got, want)
	}
	if got := Wrap("short", 30, 2, "  "); len(got) != 1 || got[0] != "short" {
		t.Fatalf("short: %q", got)
	}
	if got := Wrap(strings.Repeat("word ", 20), 12, 2, ""); len(got) != 2 || ansi.StringWidth(got[1]) > 12 || !strings.HasSuffix(got[1], "…") {
		t.Fatalf("cut last line: %q", got)
	}
}
