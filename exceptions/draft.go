package exceptions

import (
	"fmt"
	"strconv"

	"kvparity/diffview"
)

// DraftRecord proposes the pointer patterns, requests, events and "what differs" of an
// exception record covering Changes[i] for each i in sel (in that order). Up to eight
// pointers are listed exactly; beyond that, per-request pointers are generalised to
// "/per_request/*/<field>..." so the record stays readable.
func DraftRecord(d *diffview.Diff, sel []int) ExceptionRecord {
	var rec ExceptionRecord
	seenP, seenR, seenE := map[string]bool{}, map[string]bool{}, map[string]bool{}
	general := len(sel) > 8
	for _, ci := range sel {
		c := &d.Changes[ci]
		ptr := c.Pointer
		if general {
			if segs := diffview.SplitPointer(ptr); len(segs) >= 2 && segs[0] == "per_request" {
				if _, err := strconv.Atoi(segs[1]); err == nil {
					segs[1] = "*"
					ptr = diffview.PointerOf(segs)
				}
			}
		}
		if !seenP[ptr] {
			seenP[ptr] = true
			rec.Pointers = append(rec.Pointers, ptr)
		}
		if c.Request != "" && !seenR[c.Request] && len(rec.Requests) < 20 {
			seenR[c.Request] = true
			rec.Requests = append(rec.Requests, c.Request)
		}
		if t, ok, ev := d.EventAt(ci); ok && len(rec.Events) < 12 {
			e := ev
			if t > -1e308 {
				e = fmt.Sprintf("%s @ %s ms", ev, diffview.FormatMs(t))
			}
			if !seenE[e] {
				seenE[e] = true
				rec.Events = append(rec.Events, e)
			}
		}
	}
	rec.Differs = d.Describe(sel)
	return rec
}
