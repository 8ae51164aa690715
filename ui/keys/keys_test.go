package keys

import (
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
