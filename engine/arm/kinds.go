package arm

import (
	"fmt"
	"slices"

	"kvparity/engine/build"
)

// kinds registers the arm kinds, asked in order: a new kind is one file implementing Kind and
// one line here.
var kinds = []Kind{
	builtinKind{},
	Binary{},
	crateKind{},
	gitKind{},
	worktreeKind{},
}

// Of is the kind of an arm's table. A source no kind claims is refused in engine/build's words
// (the source kinds it knows).
func Of(s Spec) (Kind, error) {
	for _, k := range kinds {
		if k.Claims(s) {
			return k, nil
		}
	}
	if _, err := build.ParseSpec(s.Source); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%q: no arm kind claims it", s.Source)
}

// Register adds k (a comparable value) ahead of the registered kinds until the returned func
// removes it: for a test that adds a kind (a kind of the product is one line in kinds).
func Register(k Kind) (remove func()) {
	kinds = append([]Kind{k}, kinds...)
	return func() {
		if i := slices.IndexFunc(kinds, func(x Kind) bool { return x == k }); i >= 0 {
			kinds = slices.Delete(kinds, i, i+1)
		}
	}
}
