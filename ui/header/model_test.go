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

// A desk row's header says so at every width that names the row: in full when the line has
// room, as "desk build" when it gives up detail.
func TestHeaderSaysADeskBuild(t *testing.T) {
	info := engine.CampaignInfo{Row: "dynamo-HEAD-vs-worktree", TraceSpec: "lib/bench/testdata/mooncake_trace_1000.jsonl",
		TraceSHA256: "e2bec9bc", Window: "offset 0 · 1000 requests", Host: engine.HostInfo{Cores: 2}, DeskBuild: "desk build, not the release artifact"}
	m := New(theme.NewStyles(true, false), info)
	for _, c := range []struct {
		w    int
		want string
	}{
		{180, "row dynamo-HEAD-vs-worktree · desk build, not the release artifact · trace"},
		{100, "row dynamo-HEAD-vs-worktree · desk build · trace"},
		{60, "desk build"},
	} {
		m.SetSize(c.w, 1)
		if s := ansi.Strip(m.View()); !strings.Contains(s, c.want) || ansi.StringWidth(s) != c.w {
			t.Errorf("width %d: %q, want %q", c.w, s, c.want)
		}
	}
}
