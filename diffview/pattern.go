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

// matchPattern reports whether pointer ptr is covered by pattern pat.
func matchPattern(pat, ptr string) bool {
	return Compile(pat).Match(ptr)
}

// A Matcher is a pointer pattern split once, for matching many pointers (a filter or an
// exception record over tens of thousands of differing pointers). Its zero value matches
// nothing.
type Matcher struct {
	segs    []string
	literal []bool // the segment has no glob character: compared as a string
	ok      bool
}

// Compile splits pattern pat for repeated matching. An empty pattern, or one that does not
// start with "/", matches nothing (as MatchPattern says).
func Compile(pat string) Matcher {
	if pat == "" || pat[0] != '/' {
		return Matcher{}
	}
	m := Matcher{segs: strings.Split(pat[1:], "/"), ok: true}
	m.literal = make([]bool, len(m.segs))
	for i, s := range m.segs {
		m.literal[i] = s != "**" && !strings.ContainsAny(s, `*?[\`)
	}
	return m
}

// Match reports whether the pointer matches, without allocating.
func (m Matcher) Match(ptr string) bool {
	if !m.ok || ptr == "" {
		return false
	}
	return m.match(0, strings.TrimPrefix(ptr, "/"), true)
}

// match matches segments from i on against rest, the pointer's remaining segments joined by
// "/" (has says whether any segment remains: "" is one empty segment when has is set).
func (m Matcher) match(i int, rest string, has bool) bool {
	for i < len(m.segs) {
		if m.segs[i] == "**" {
			// zero or more whole segments: try every split point
			if m.match(i+1, rest, has) {
				return true
			}
			for has {
				_, tail, more := strings.Cut(rest, "/")
				rest, has = tail, more
				if m.match(i+1, rest, has) {
					return true
				}
			}
			return false
		}
		if !has {
			return false
		}
		seg, tail, more := strings.Cut(rest, "/")
		if m.literal[i] {
			if seg != m.segs[i] {
				return false
			}
		} else if ok, _ := path.Match(m.segs[i], seg); !ok {
			return false
		}
		i, rest, has = i+1, tail, more
	}
	return !has
}
