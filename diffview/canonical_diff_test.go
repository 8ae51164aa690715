package diffview

import (
	"fmt"
	"testing"

	fx "kvparity/diffview/difftest"
)

// An event inserted into an ordered history is one added element (mode 9): the array is
// aligned, not compared position by position.
func TestDiffAlignsAnInsertedEvent(t *testing.T) {
	a := fx.Report(20, 0)
	hist := fx.Get(a, "/per_request/3/admission_history").([]any)
	events := make([]any, 0, 40)
	for k := 0; k < 40; k++ {
		events = append(events, map[string]any{"at_ms": fx.Num(float64(k) * 2.5), "pool": "decode", "tokens": fx.Int(k)})
	}
	fx.Set(a, "/coverage/kv_events", events)
	b := fx.Clone(a)
	ins := map[string]any{"at_ms": fx.Num(31.25), "pool": "decode", "tokens": fx.Int(999)}
	bev := append(append(append([]any{}, events[:13]...), ins), events[13:]...)
	fx.Set(b, "/coverage/kv_events", bev)
	fx.Set(b, "/per_request/3/admission_history", append(append([]any{}, hist...), hist[len(hist)-1]))
	d := mustDiff(t, a, b)
	if got := fmt.Sprint(d.Pointers()); got != "[/coverage/kv_events/13 /per_request/3/admission_history/2]" {
		t.Fatalf("pointers %s", got)
	}
	if d.Changes[0].Kind != Added || d.Changes[1].Kind != Added {
		t.Errorf("kinds %v %v", d.Changes[0].Kind, d.Changes[1].Kind)
	}
	// A removed element keeps A's index; a replaced one is compared field by field.
	bev = append(append([]any{}, events[:5]...), events[6:]...)
	changed := fx.Clone(map[string]any{"e": events[20]})["e"].(map[string]any)
	changed["tokens"] = fx.Int(-1)
	bev[19] = changed
	fx.Set(b, "/coverage/kv_events", bev)
	fx.Set(b, "/per_request/3/admission_history", hist)
	d = mustDiff(t, a, b)
	if got := fmt.Sprint(d.Pointers()); got != "[/coverage/kv_events/5 /coverage/kv_events/19/tokens]" || d.Changes[0].Kind != Removed {
		t.Fatalf("pointers %s kinds %v", got, d.Changes[0].Kind)
	}
}

// Every array whose elements carry a time is placed in virtual time (mode 8): a KV event at
// t=2.5 ms comes before a request's differing first token at t=20.25 ms.
func TestFirstDivergenceAcrossEveryTimedArray(t *testing.T) {
	a := fx.Report(10, 0)
	fx.Set(a, "/coverage/kv_events", []any{
		map[string]any{"at_ms": fx.Num(1), "blocks": fx.Int(3)},
		map[string]any{"at_ms": fx.Num(2.5), "blocks": fx.Int(4)},
		map[string]any{"published_at_ms": fx.Num(7), "blocks": fx.Int(5)},
	})
	b := fx.Clone(a)
	fx.Shift(b, "/per_request/0/first_token_ms", 0.5)
	fx.Set(b, "/coverage/kv_events/2/blocks", fx.Int(6))
	d := mustDiff(t, a, b)
	if d.First == nil || d.First.Pointer != "/coverage/kv_events/2/blocks" || d.First.AtMs != 7 || d.First.Event != "event #2 of kv_events" {
		t.Fatalf("first divergence %+v", d.First)
	}
	fx.Set(b, "/coverage/kv_events/1/blocks", fx.Int(9))
	if d = mustDiff(t, a, b); d.First.Pointer != "/coverage/kv_events/1/blocks" || d.First.AtMs != 2.5 {
		t.Fatalf("first divergence %+v", d.First)
	}
}
