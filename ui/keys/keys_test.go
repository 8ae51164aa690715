package keys

import (
	"slices"
	"testing"

	"charm.land/bubbles/v2/key"
)

// The workbench-wide bindings must not share a key: the root matches them in one switch, so a
// shared key would silently shadow a binding.
func TestGlobalBindingsDoNotShareKeys(t *testing.T) {
	k := Default()
	seen := map[string]string{}
	for _, col := range k.FullHelp() {
		for _, b := range col {
			for _, s := range b.Keys() {
				if other, dup := seen[s]; dup {
					t.Errorf("key %q is bound to both %q and %q", s, other, b.Help().Desc)
				}
				seen[s] = b.Help().Desc
			}
		}
	}
}

func TestFooterEndsWithHelpAndQuit(t *testing.T) {
	k := Default()
	short := k.ShortHelp()
	last := []key.Binding{short[len(short)-2], short[len(short)-1]}
	if last[0].Help().Desc != "help" || last[1].Help().Desc != "quit" {
		t.Fatalf("the footer keeps help and quit last, got %q %q", last[0].Help().Desc, last[1].Help().Desc)
	}
	for _, b := range short {
		if b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("binding %v has no help text", b.Keys())
		}
	}
}

// The diff pane's list and record-list keys never take a global key: S stays determinism, x
// stop stage, + add repetition, whatever has focus. The two shared keys mean the same thing
// everywhere: e drafts an exception record, esc backs out of the newest thing (a pane's
// record list or filter first, then the status message).
func TestDiffPaneKeysDoNotShadowGlobalKeys(t *testing.T) {
	k := Default()
	global := map[string]string{}
	for _, b := range k.Globals() {
		for _, s := range b.Keys() {
			global[s] = b.Help().Desc
		}
	}
	d := k.DiffPane
	shared := map[string]bool{"e": true, "esc": true}
	for _, b := range []key.Binding{d.Up, d.Down, d.PageUp, d.PageDown, d.Top, d.Bottom, d.Toggle, d.Collapse,
		d.ExpandAll, d.CollapseAll, d.NextDiff, d.PrevDiff, d.Filter, d.ClearFilter, d.Mark, d.NewException,
		d.Cover, d.GroupBy, d.Diagnosis, d.WholeDiagnosis, d.Records, d.CopyPointer, d.CopyValue, d.Edit, d.Delete} {
		for _, s := range b.Keys() {
			if g, ok := global[s]; ok && !shared[s] {
				t.Errorf("diff pane key %q (%s) shadows the global %q", s, b.Help().Desc, g)
			}
		}
	}
	for _, s := range []string{"S", "x", "+", "p", "r", "d", "w", "s", "v", "z", "o", "q", "?", "tab"} {
		if _, ok := global[s]; !ok {
			t.Errorf("%q should be a global key", s)
		}
	}
}

// g, gg and G are navigation only (vim, lazygit): no key that starts processes is g or G, or
// a letter's other case next to a navigation key; g goes to the top, G to the bottom.
func TestNavigationKeysNeverStartAStage(t *testing.T) {
	k := Default()
	for _, b := range []key.Binding{k.StartDeterminism, k.StartPerf, k.Investigate, k.Rerun, k.AddRepetition, k.Watch} {
		for _, s := range b.Keys() {
			switch s {
			case "g", "G", "j", "k", "J", "K", "h", "l", "home", "end", "up", "down", "pgup", "pgdown":
				t.Errorf("%q (%s) starts processes but is a navigation key", s, b.Help().Desc)
			}
		}
	}
	for _, b := range []key.Binding{k.Top, k.DiffPane.Top} {
		if !slices.Contains(b.Keys(), "g") {
			t.Errorf("g should go to the top (%v)", b.Keys())
		}
	}
	for _, b := range []key.Binding{k.End, k.DiffPane.Bottom} {
		if !slices.Contains(b.Keys(), "G") {
			t.Errorf("G should go to the bottom (%v)", b.Keys())
		}
	}
}
