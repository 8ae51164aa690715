package diffpane

import (
	"reflect"
	"testing"
)

func TestHighlightNumbersAndStrings(t *testing.T) {
	as, bs := highlight("812.406", "812.529076")
	if as[0] != (segment{"812.", false}) || bs[0] != (segment{"812.", false}) {
		t.Fatalf("common prefix: %v | %v", as, bs)
	}
	join := func(ss []segment) (all, changed string) {
		for _, s := range ss {
			all += s.text
			if s.changed {
				changed += s.text
			}
		}
		return
	}
	if all, ch := join(as); all != "812.406" || ch == "" {
		t.Fatalf("A side %v", as)
	}
	if all, ch := join(bs); all != "812.529076" || ch == "" {
		t.Fatalf("B side %v", bs)
	}
	as, bs = highlight(`"lifo"`, `"fifo"`)
	want := []segment{{`"`, false}, {"l", true}, {`ifo"`, false}}
	if !reflect.DeepEqual(as, want) {
		t.Fatalf("A %v", as)
	}
	if bs[1] != (segment{"f", true}) {
		t.Fatalf("B %v", bs)
	}
	as, bs = highlight("", "7")
	if len(as) != 0 || !reflect.DeepEqual(bs, []segment{{"7", true}}) {
		t.Fatalf("added: %v %v", as, bs)
	}
}
