package diffview

import (
	"fmt"
	"path"
	"strings"
)

// Pointer patterns say which differing pointers an exception record covers.
//
// Syntax: an RFC 6901 JSON pointer ("/summary/mean_ttft_ms") whose segments may be shell
// globs as in path.Match — "*" any run of characters within one segment, "?" one character,
// "[...]" a class — plus the segment "**", which matches zero or more whole segments.
// Examples:
//
//	/summary/*_ttft_ms                   every ttft statistic in the summary
//	/per_request/*/routing_history/**    anything inside any request's routing history
//	/per_request/17/decode_admit_ms      one field of one record (by its index in B)
//	/coverage/pressure/**                all pressure evidence
//
// A pattern matches a pointer only as a whole: "/summary" does not cover "/summary/x";
// write "/summary/**" for that. Segments use pointer escapes (~0 for "~", ~1 for "/").

// validatePattern reports why p is not a usable pointer pattern.
func validatePattern(p string) error {
	if p == "" {
		return fmt.Errorf("empty pointer pattern")
	}
	if p[0] != '/' {
		return fmt.Errorf("pointer pattern %q must start with '/'", p)
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "**" {
			continue
		}
		if strings.Contains(seg, "**") {
			return fmt.Errorf("pointer pattern %q: '**' must be a whole segment", p)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("pointer pattern %q: bad glob in segment %q", p, seg)
		}
	}
	return nil
}

// MatchPattern reports whether pointer ptr is covered by pattern pat.
func MatchPattern(pat, ptr string) bool {
	if pat == "" || ptr == "" || pat[0] != '/' {
		return false
	}
	return matchSegs(strings.Split(pat[1:], "/"), strings.Split(strings.TrimPrefix(ptr, "/"), "/"))
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for k := 0; k <= len(segs); k++ {
				if matchSegs(rest, segs[k:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
