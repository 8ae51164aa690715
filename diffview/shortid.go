package diffview

import "strings"

// ShortIDs shortens ids to the part that tells them apart on screen: the shortest prefix or
// suffix (at least `least` characters) that is unique among them, whichever is shorter, marked
// with "…" where characters were left out. Zero-padded uuids, which differ only at the end
// (00000000-0000-0000-0000-00000000007d), read "…007d"; random ones read by their head
// ("3f2a0001…"). A lone id is shortened the same way: to its significant tail when it is
// zero-padded, to its first 8 characters otherwise. Ids short enough stay whole.
func ShortIDs(ids []string, least int) map[string]string {
	least = max(least, 1)
	set := map[string]bool{}
	var uniq []string
	for _, id := range ids {
		if !set[id] {
			set[id] = true
			uniq = append(uniq, id)
		}
	}
	out := make(map[string]string, len(uniq))
	if len(uniq) == 0 {
		return out
	}
	longest := 0
	for _, id := range uniq {
		longest = max(longest, len(id))
	}
	pre, suf := longest, longest
	if len(uniq) == 1 {
		id := uniq[0]
		sig := strings.TrimLeft(id, "0-")
		if len(id)-len(sig) >= 8 {
			suf = max(least, len(sig))
		} else {
			pre = max(least, 8)
		}
	} else {
		pre = uniqueLen(uniq, least, longest, func(s string, k int) string { return s[:k] })
		suf = uniqueLen(uniq, least, longest, func(s string, k int) string { return s[len(s)-k:] })
	}
	for _, id := range uniq {
		switch {
		case len(id) <= least+1 || min(pre, suf) >= len(id):
			out[id] = id
		case suf < pre:
			out[id] = "…" + id[len(id)-suf:]
		default:
			out[id] = id[:pre] + "…"
		}
	}
	return out
}

// uniqueLen is the smallest k ≥ least for which part(id, k) differs between all ids (ids
// shorter than k are whole), or longest.
func uniqueLen(ids []string, least, longest int, part func(string, int) string) int {
	for k := least; k < longest; k++ {
		seen := make(map[string]bool, len(ids))
		ok := true
		for _, id := range ids {
			p := id
			if len(id) > k {
				p = part(id, k)
			}
			if seen[p] {
				ok = false
				break
			}
			seen[p] = true
		}
		if ok {
			return k
		}
	}
	return longest
}
