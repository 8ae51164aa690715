package header

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

func TestHeaderDropsDetailToFit(t *testing.T) {
	info := engine.CampaignInfo{Row: "vllm-disagg", TraceSpec: "generated:conversation?seed=7&requests=5000",
		TraceSHA256: "b8cbb061", Window: "offset 0 · 5000 requests", Host: engine.HostInfo{Hostname: "node7", Cores: 2}}
	m := New(theme.NewStyles(true, false), info)
	for _, c := range []struct {
		w    int
		want string
	}{
		{160, "trace generated:conversation?seed=7&requests=5000 (offset 0 · 5000 requests) b8cb… · host node7 2 cores"},
		{100, "trace conversation?seed=7&requests=5000 b8cb… · host 2 cores"},
		{80, "trace conversation b8cb… · host 2 cores"},
	} {
		m.SetSize(c.w, 1)
		s := ansi.Strip(m.View())
		if !strings.Contains(s, c.want) || ansi.StringWidth(s) != c.w {
			t.Errorf("width %d: %q", c.w, s)
		}
	}
	m.SetSize(30, 1)
	if s := m.View(); ansi.StringWidth(s) > 30 {
		t.Errorf("narrow header overflows: %q", ansi.Strip(s))
	}
	// With verdicts the right end names them, whole words first.
	v := verdict.Decide(verdict.Inputs{Baseline: verdict.Of(verdict.Stable, ""), Candidate: verdict.Of(verdict.Stable, ""),
		Parity: verdict.Of(verdict.Pass, ""), Evidence: verdict.Of(verdict.Pass, "")})
	m.SetVerdicts(&v, nil)
	for w, want := range map[int]string{160: "semantic PASS · performance UNDECIDED · footprint UNDECIDED · overall UNDECIDED (v why) ",
		100: "trace conversation b8cb…    semantic PASS · overall UNDECIDED (v why) ",
		40:  " kvparity     overall UNDECIDED (v why) "} {
		m.SetSize(w, 1)
		if s := ansi.Strip(m.View()); !strings.HasSuffix(s, want) || ansi.StringWidth(s) != w {
			t.Errorf("width %d with verdicts: %q", w, s)
		}
	}
}
