package diffview

import (
	"fmt"
	"sync"

	"kvparity/report"
)

// The diff compares the canonical forms of the two reports under the canonical profile: the
// profile's excluded pointers (wall time and the throughputs derived from it) are not compared,
// since no digest holds them, and the diff says which of them differed (Diff.Excluded). The
// default profile is the protocol's (report.DefaultProfile); a campaign's kept reports are
// canonical already, so the same profile finds nothing to exclude there.

// defaultExclusions is the protocol's profile, compiled on the first diff (report's own trie,
// which the canonicalization follows too).
var defaultExclusions = sync.OnceValue(func() report.ProfileNode {
	n, err := report.CompileProfile(report.DefaultProfile())
	if err != nil {
		panic("the default canonical profile does not compile: " + err.Error())
	}
	return n
})

// An Exclusion is one excluded pointer whose values differ (A or B "" when absent).
type Exclusion struct {
	Pointer string `json:"pointer"`
	A       string `json:"a,omitempty"`
	B       string `json:"b,omitempty"`
}

func (x Exclusion) String() string {
	return fmt.Sprintf("%s %s → %s", x.Pointer, Short(x.A), Short(x.B))
}
