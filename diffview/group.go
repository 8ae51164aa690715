package diffview

import "sort"

// A groupKind orders groups the way a reader triages: run-level first, then requests.
type groupKind int

const (
	groupSummary groupKind = iota
	groupMetadata
	groupCoverage
	groupEvents  // an ordered event array (coverage/pressure/records, a request's histories)
	groupRequest // a request's scalar fields
	groupOther
)

// orderedArrays are the semantically ordered arrays of a per-request record: each is its own
// group so a reordering inside one is visible at a glance.
var orderedArrays = map[string]bool{"routing_history": true, "admission_history": true, "pressure_record_ordinals": true}

// A Group is a set of changes that belong together, with a stable key and a title.
type Group struct {
	Key     string // e.g. "summary", "request 0000…0001", "request 0000…0001 routing_history"
	Title   string
	kind    groupKind
	Request string // uuid for request groups
	Changes []int  // indexes into Diff.Changes, in document order
}

func groupOf(c *Change) (key, title string, kind groupKind) {
	segs := SplitPointer(c.Pointer)
	top := ""
	if len(segs) > 0 {
		top = segs[0]
	}
	switch top {
	case "summary":
		return "summary", "summary", groupSummary
	case "metadata":
		return "metadata", "metadata", groupMetadata
	case "coverage":
		if len(segs) >= 3 && segs[1] == "pressure" && segs[2] == "records" {
			return "coverage/pressure/records", "coverage · pressure records", groupEvents
		}
		return "coverage", "coverage", groupCoverage
	case "per_request":
		if c.Request != "" {
			title := "request " + c.Request
			if c.RequestA != "" {
				title += " (A: " + c.RequestA + ")"
			}
			if len(segs) >= 3 && orderedArrays[segs[2]] {
				return "request " + c.Request + " " + segs[2], title + " · " + segs[2], groupEvents
			}
			return "request " + c.Request, title, groupRequest
		}
		return "per_request", "per_request", groupOther
	}
	return top, top, groupOther
}

func groupChanges(cs []Change) []Group {
	idx := map[string]int{}
	var gs []Group
	firstAt := map[string]int{}
	for i := range cs {
		key, title, kind := groupOf(&cs[i])
		g, ok := idx[key]
		if !ok {
			g = len(gs)
			idx[key] = g
			firstAt[key] = i
			gs = append(gs, Group{Key: key, Title: title, kind: kind, Request: cs[i].Request})
		}
		gs[g].Changes = append(gs[g].Changes, i)
	}
	// Run-level groups first, then requests in document order, each request's scalar fields
	// before its event arrays.
	rank := func(g Group) int {
		switch g.kind {
		case groupSummary, groupMetadata, groupCoverage:
			return int(g.kind)
		case groupEvents:
			if g.Request == "" {
				return 3
			}
		}
		return 4
	}
	// A request's position is where any of its groups first appears.
	reqAt := map[string]int{}
	for _, g := range gs {
		if g.Request == "" {
			continue
		}
		if at, ok := reqAt[g.Request]; !ok || firstAt[g.Key] < at {
			reqAt[g.Request] = firstAt[g.Key]
		}
	}
	sort.SliceStable(gs, func(i, j int) bool {
		ri, rj := rank(gs[i]), rank(gs[j])
		if ri != rj {
			return ri < rj
		}
		if gs[i].Request != "" && gs[j].Request != "" {
			if ai, aj := reqAt[gs[i].Request], reqAt[gs[j].Request]; ai != aj {
				return ai < aj
			}
			if gs[i].kind != gs[j].kind {
				return gs[i].kind == groupRequest // scalar fields before event arrays
			}
		}
		return firstAt[gs[i].Key] < firstAt[gs[j].Key]
	})
	return gs
}
