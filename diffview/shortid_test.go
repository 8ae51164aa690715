package diffview

import (
	"fmt"
	"testing"
)

func TestShortIDsKeepTheDistinguishingPart(t *testing.T) {
	padded := []string{"00000000-0000-0000-0000-00000000007d", "00000000-0000-0000-0000-0000000003db",
		"00000000-0000-0000-0000-000000000370"}
	got := ShortIDs(padded, 4)
	for id, want := range map[string]string{padded[0]: "…007d", padded[1]: "…03db", padded[2]: "…0370"} {
		if got[id] != want {
			t.Errorf("%s → %s, want %s", id, got[id], want)
		}
	}
	random := []string{"3f2a0001-4a1b-9c2d-000000000000", "3f2a0002-4a1b-9c2d-000000000000"}
	if got := ShortIDs(random, 4); got[random[0]] != "3f2a0001…" || got[random[1]] != "3f2a0002…" {
		t.Errorf("random: %v", got)
	}
	if got := ShortIDs([]string{padded[0]}, 4); got[padded[0]] != "…007d" {
		t.Errorf("a lone padded id: %v", got)
	}
	if got := ShortIDs([]string{"e4f5a6b7-c8d9-4a1b-9c2d-112233445566"}, 4); got["e4f5a6b7-c8d9-4a1b-9c2d-112233445566"] != "e4f5a6b7…" {
		t.Errorf("a lone random id: %v", got)
	}
	if got := ShortIDs([]string{"req-1", "req-2"}, 4); got["req-1"] != "req-1" {
		t.Errorf("short ids stay whole: %v", got)
	}
	// 5000 sequential padded uuids: four hex digits tell them apart.
	var many []string
	for i := 1; i <= 5000; i++ {
		many = append(many, fmt.Sprintf("00000000-0000-0000-0000-%012x", i))
	}
	s := ShortIDs(many, 4)
	if s[many[0]] != "…0001" || s[many[4999]] != "…1388" {
		t.Errorf("many: %s %s", s[many[0]], s[many[4999]])
	}
}
