package diffview

import (
	"fmt"

	"kvparity/internal/pointer"
	"kvparity/report"
)

// The diff compares the canonical forms of the two reports under the canonical profile: the
// profile's excluded pointers (wall time and the throughputs derived from it) are not compared,
// since no digest holds them, and the diff says which of them differed (Diff.Excluded). The
// default profile is the protocol's (report.DefaultProfile); a campaign's kept reports are
// canonical already, so the same profile finds nothing to exclude there.

// An exclusionNode is one level of the profile's exclusion pointers as a trie of segments.
type exclusionNode struct {
	children map[string]*exclusionNode
	excluded bool
}

func compileExclusions(ptrs []string) *exclusionNode {
	root := &exclusionNode{}
	for _, p := range ptrs {
		segs, err := pointer.Parse(p)
		if err != nil || len(segs) == 0 {
			continue // report.Profile.Validate refuses these where a profile is read
		}
		n := root
		for _, s := range segs {
			if n.children == nil {
				n.children = map[string]*exclusionNode{}
			}
			c := n.children[s]
			if c == nil {
				c = &exclusionNode{}
				n.children[s] = c
			}
			n = c
		}
		n.excluded = true
	}
	return root
}

// defaultExclusions is the protocol's profile, compiled once.
var defaultExclusions = compileExclusions(report.DefaultProfile().Exclusions)

// An Exclusion is one excluded pointer whose values differ (A or B "" when absent).
type Exclusion struct {
	Pointer string `json:"pointer"`
	A       string `json:"a,omitempty"`
	B       string `json:"b,omitempty"`
}

func (x Exclusion) String() string {
	return fmt.Sprintf("%s %s → %s", x.Pointer, short(x.A), short(x.B))
}

// child is the trie node under n for segment s (nil when no exclusion goes through it).
func (n *exclusionNode) child(s string) *exclusionNode {
	if n == nil {
		return nil
	}
	return n.children[s]
}
