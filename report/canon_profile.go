package report

import (
	"fmt"
	"strconv"

	"kvparity/internal/pointer"
)

// A Profile is the row's [canonical] table: the closed list of RFC 6901 pointers removed
// before digesting, and the arrays that are explicitly unordered, each sorted by one member of
// its elements (pointer -> member name).
type Profile struct {
	Exclusions []string
	Unordered  map[string]string
}

// DefaultProfile is the protocol's closed allowlist: exactly the three /summary timing fields
// (the skill's Stage 2 list and the design's row), and /per_request sorted by uuid.
//
// /planner/html_report_path is deliberately not included although the harness lists it in
// metadata.result_exclusions: the harness already drops it itself (and passes planner = null),
// the protocol's list is closed at three, and a row that wants it must say so.
func DefaultProfile() Profile {
	return Profile{
		Exclusions: []string{
			"/summary/wall_time_ms",
			"/summary/processed_tokens_per_s",
			"/summary/processed_output_tokens_per_s",
		},
		Unordered: map[string]string{"/per_request": "uuid"},
	}
}

// Validate checks that every pointer is a well-formed RFC 6901 pointer that names something
// below the root, and that every unordered array names a sort member.
func (p Profile) Validate() error {
	for _, e := range p.Exclusions {
		if _, err := pointer.Parse(e); err != nil {
			return fmt.Errorf("canonical profile: exclusion %q: %w", e, err)
		}
		if e == "" {
			return fmt.Errorf("canonical profile: exclusion \"\" would remove the whole record")
		}
	}
	for ptr, key := range p.Unordered {
		if _, err := pointer.Parse(ptr); err != nil {
			return fmt.Errorf("canonical profile: unordered %q: %w", ptr, err)
		}
		if ptr == "" {
			return fmt.Errorf("canonical profile: unordered \"\": the record root is an object, not an array")
		}
		if key == "" {
			return fmt.Errorf("canonical profile: unordered %q has no sort member", ptr)
		}
	}
	return nil
}

// A ptrNode is one level of the profile compiled into a trie over reference tokens, so the
// emitter follows it alongside the document and pays nothing below paths the profile never
// names (nil node).
type ptrNode struct {
	kids     map[string]*ptrNode
	exclude  bool
	cuts     bool // some child is excluded: members of this object may be cut out
	sortBy   string
	unsorted bool // sortBy applies here
}

func (n *ptrNode) child(tok []byte) *ptrNode {
	if n == nil || n.kids == nil {
		return nil
	}
	return n.kids[string(tok)]
}

func (n *ptrNode) childIndex(i int) *ptrNode {
	if n == nil || n.kids == nil {
		return nil
	}
	return n.kids[strconv.Itoa(i)]
}

func compileProfile(p Profile) (*ptrNode, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	root := &ptrNode{}
	walk := func(ptr string) *ptrNode {
		toks, _ := pointer.Parse(ptr)
		n := root
		for _, t := range toks {
			if n.kids == nil {
				n.kids = map[string]*ptrNode{}
			}
			c := n.kids[t]
			if c == nil {
				c = &ptrNode{}
				n.kids[t] = c
			}
			n = c
		}
		return n
	}
	for _, e := range p.Exclusions {
		walk(e).exclude = true
	}
	for ptr, key := range p.Unordered {
		n := walk(ptr)
		n.unsorted = true
		n.sortBy = key
	}
	markCuts(root)
	return root, nil
}

func markCuts(n *ptrNode) {
	for _, c := range n.kids {
		if c.exclude {
			n.cuts = true
		}
		markCuts(c)
	}
}

// A ProfileNode is one level of a compiled profile: the node of one reference token of the
// pointers the profile names, for a walk that follows it alongside a document (the diff's
// exclusions). The zero value names nothing below it.
type ProfileNode struct{ n *ptrNode }

// CompileProfile validates p and compiles it into its trie of reference tokens.
func CompileProfile(p Profile) (ProfileNode, error) {
	n, err := compileProfile(p)
	return ProfileNode{n}, err
}

// Child is the node of member name or element index tok below n.
func (n ProfileNode) Child(tok string) ProfileNode {
	if n.n == nil || n.n.kids == nil {
		return ProfileNode{}
	}
	return ProfileNode{n.n.kids[tok]}
}

// Excluded says the profile removes the value at n.
func (n ProfileNode) Excluded() bool { return n.n != nil && n.n.exclude }

// Names says some pointer of the profile goes through n.
func (n ProfileNode) Names() bool { return n.n != nil }
