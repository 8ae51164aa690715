package header

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/ui/theme"
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
		if !strings.Contains(s, c.want) || ansi.StringWidth(s) != c.w || !strings.HasSuffix(s, "? help ") {
			t.Errorf("width %d: %q", c.w, s)
		}
	}
	m.SetSize(30, 1)
	if s := m.View(); ansi.StringWidth(s) > 30 {
		t.Errorf("narrow header overflows: %q", ansi.Strip(s))
	}
}
