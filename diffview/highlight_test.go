package diffview

import (
	"reflect"
	"testing"
)

func TestHighlightNumbersAndStrings(t *testing.T) {
	as, bs := Highlight("812.406", "812.529076")
	if as[0] != (Segment{"812.", false}) || bs[0] != (Segment{"812.", false}) {
		t.Fatalf("common prefix: %v | %v", as, bs)
	}
	join := func(ss []Segment) (all, changed string) {
		for _, s := range ss {
			all += s.Text
			if s.Changed {
				changed += s.Text
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
	as, bs = Highlight(`"lifo"`, `"fifo"`)
	want := []Segment{{`"`, false}, {"l", true}, {`ifo"`, false}}
	if !reflect.DeepEqual(as, want) {
		t.Fatalf("A %v", as)
	}
	if bs[1] != (Segment{"f", true}) {
		t.Fatalf("B %v", bs)
	}
	as, bs = Highlight("", "7")
	if len(as) != 0 || !reflect.DeepEqual(bs, []Segment{{"7", true}}) {
		t.Fatalf("added: %v %v", as, bs)
	}
}
