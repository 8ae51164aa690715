package diffview

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The headless commands (report, diff, run) and campaignreport link diffview, so it links no
// TUI: the Bubble Tea diff pane is package diffview/pane.
func TestLinksNoTUI(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("go list: %v", err)
		}
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "charm.land/") || strings.HasPrefix(p, "github.com/charmbracelet/") {
			t.Errorf("diffview links %s", p)
		}
	}
}
