package diffview

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Pointer patterns say which differing pointers an exception record covers.
//
// Syntax: an RFC 6901 JSON pointer ("/summary/mean_ttft_ms") whose segments may be shell
// globs as in path.Match — "*" any run of characters within one segment, "?" one character,
// "[...]" a class — and "{a,b,...}" alternatives within one segment (a key set: the names a
// renaming took out and put in), plus the segment "**", which matches zero or more whole
// segments. Examples:
//
//	/summary/*_ttft_ms                   every ttft statistic in the summary
//	/per_request/*/routing_history/**    anything inside any request's routing history
//	/per_request/17/decode_admit_ms      one field of one record (by its index in B)
//	/coverage/pressure/**                all pressure evidence
//	/metadata/execution/{aic_x,ais_x}    exactly these members (a renamed key, both names)
//
// A pattern matches a pointer only as a whole: "/summary" does not cover "/summary/x";
// write "/summary/**" for that. Segments use pointer escapes (~0 for "~", ~1 for "/"); a
// backslash makes a glob character literal ("\*", "\{"). Alternatives do not nest, and none
// may be "**".

// ValidatePattern reports why p is not a usable pointer pattern.
func ValidatePattern(p string) error {
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
		alts, err := expandBraces(seg)
		if err != nil {
			return fmt.Errorf("pointer pattern %q: segment %q: %v", p, seg, err)
		}
		for _, alt := range alts {
			if strings.Contains(alt, "**") {
				return fmt.Errorf("pointer pattern %q: '**' must be a whole segment", p)
			}
			if _, err := path.Match(alt, ""); err != nil {
				return fmt.Errorf("pointer pattern %q: bad glob in segment %q", p, seg)
			}
		}
	}
	return nil
}

// maxAlternatives bounds what one segment's "{...}" groups expand to.
const maxAlternatives = 4096

// expandBraces spells out the "{a,b,...}" alternatives of one segment ("ai{c,s}_*" is
// "aic_*" and "ais_*"); a segment without them is itself. A backslash escapes the next
// character (kept, for path.Match), and a brace inside a "[...]" class is literal.
func expandBraces(seg string) ([]string, error) {
	open, shut := -1, -1
	var commas []int
	class := false
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '{':
			if open >= 0 {
				return nil, fmt.Errorf("nested '{'")
			}
			open = i
		case c == ',' && open >= 0:
			commas = append(commas, i)
		case c == '}':
			if open < 0 {
				return nil, fmt.Errorf("'}' without '{'")
			}
			shut = i
		}
		if shut >= 0 {
			break
		}
	}
	switch {
	case open < 0:
		return []string{seg}, nil
	case shut < 0:
		return nil, fmt.Errorf("'{' without '}'")
	}
	var alts []string
	for k, from := 0, open+1; k <= len(commas); k++ {
		to := shut
		if k < len(commas) {
			to = commas[k]
		}
		alts, from = append(alts, seg[from:to]), to+1
	}
	rest, err := expandBraces(seg[shut+1:])
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(alts)*len(rest))
	for _, a := range alts {
		for _, r := range rest {
			if len(out) == maxAlternatives {
				return nil, fmt.Errorf("more than %d alternatives", maxAlternatives)
			}
			out = append(out, seg[:open]+a+r)
		}
	}
	return out, nil
}

// MatchPattern reports whether pointer ptr is covered by pattern pat.
func MatchPattern(pat, ptr string) bool {
	return Compile(pat).Match(ptr)
}

// A Matcher is a pointer pattern split once, for matching many pointers (a filter or an
// exception record over tens of thousands of differing pointers). Its zero value matches
// nothing.
type Matcher struct {
	segs    []string
	literal []bool     // the segment has no glob character: compared as a string
	alts    [][]string // the segment's "{...}" alternatives spelled out (nil: none)
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
	m.alts = make([][]string, len(m.segs))
	for i, s := range m.segs {
		m.literal[i] = s != "**" && !strings.ContainsAny(s, `*?[\{`)
		if s != "**" && strings.Contains(s, "{") {
			if alts, err := expandBraces(s); err == nil {
				m.alts[i] = alts
			}
		}
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
		switch {
		case m.literal[i]:
			if seg != m.segs[i] {
				return false
			}
		case m.alts[i] != nil:
			if !slices.ContainsFunc(m.alts[i], func(alt string) bool { ok, _ := path.Match(alt, seg); return ok }) {
				return false
			}
		default:
			if ok, _ := path.Match(m.segs[i], seg); !ok {
				return false
			}
		}
		i, rest, has = i+1, tail, more
	}
	return !has
}

// Matchers are a list of pointer patterns compiled once (an exception record's, a selection's):
// a pointer matches when one of them does.
type Matchers []Matcher

// CompileAll compiles a list of pointer patterns (blank ones are skipped).
func CompileAll(patterns []string) Matchers {
	ms := make(Matchers, 0, len(patterns))
	for _, p := range patterns {
		if p = strings.TrimSpace(p); p != "" {
			ms = append(ms, Compile(p))
		}
	}
	return ms
}

// Match reports whether one of the patterns matches ptr.
func (rm Matchers) Match(ptr string) bool {
	for _, m := range rm {
		if m.Match(ptr) {
			return true
		}
	}
	return false
}
