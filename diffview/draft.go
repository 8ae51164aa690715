package diffview

import (
	"fmt"
	"strconv"
)

// DraftRecord proposes the pointer patterns, requests, events and "what differs" of an
// exception record covering Changes[i] for each i in sel (in that order). Up to eight
// pointers are listed exactly; beyond that, per-request pointers are generalised to
// "/per_request/*/<field>..." so the record stays readable.
func (d *Diff) DraftRecord(sel []int) ExceptionRecord {
	var rec ExceptionRecord
	seenP, seenR, seenE := map[string]bool{}, map[string]bool{}, map[string]bool{}
	general := len(sel) > 8
	fields := map[string]int{}
	for _, ci := range sel {
		c := &d.Changes[ci]
		ptr := c.Pointer
		if general {
			if segs := splitPointer(ptr); len(segs) >= 2 && segs[0] == "per_request" {
				if _, err := strconv.Atoi(segs[1]); err == nil {
					segs[1] = "*"
					ptr = pointerOf(segs)
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
		if t, ok, ev := d.eventAt(ci); ok && len(rec.Events) < 12 {
			e := ev
			if t > -1e308 {
				e = fmt.Sprintf("%s @ %s ms", ev, fmtMs(t))
			}
			if !seenE[e] {
				seenE[e] = true
				rec.Events = append(rec.Events, e)
			}
		}
		fields[lastSeg(c.Pointer)]++
	}
	rec.Differs = fmt.Sprintf("%d pointer(s) in %d request(s): %s", len(sel), len(seenR), countList(fields))
	return rec
}
