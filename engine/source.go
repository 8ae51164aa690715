package engine

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// An arm may name its source instead of a prebuilt binary (protocol stage 1 automated):
//
//	source = "crate:dynamo-bench@1.6.1"         a published version of Dynamo's bench crate
//	source = "git:/src/dynamo@<40-hex commit>"   a local checkout, read at that commit only
//
// kvparity builds the protocol's artifact from it (build.go) and pins the binary as usual.

// SourceKind is how an arm's source is obtained.
type SourceKind string

const (
	SourceCrate SourceKind = "crate"
	SourceGit   SourceKind = "git"
)

// A Source is a parsed `source` key.
type Source struct {
	Kind    SourceKind
	Crate   string // crate: the package name (dynamo-bench)
	Version string // crate: the exact version
	Repo    string // git: the checkout's path (absolute once the row is loaded)
	Commit  string // git: the full commit SHA
}

var (
	crateName    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	crateVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)
	fullSHA      = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// ParseSource reads a `source` value; errors say what a valid one looks like.
func ParseSource(s string) (Source, error) {
	kind, rest, ok := strings.Cut(s, ":")
	switch {
	case !ok:
	case kind == string(SourceCrate):
		name, version, ok := strings.Cut(rest, "@")
		if !ok || !crateName.MatchString(name) || !crateVersion.MatchString(version) {
			return Source{}, fmt.Errorf("%q: a published crate is crate:NAME@EXACT.VERSION, e.g. crate:dynamo-bench@1.6.1", s)
		}
		return Source{Kind: SourceCrate, Crate: name, Version: version}, nil
	case kind == string(SourceGit):
		i := strings.LastIndexByte(rest, '@')
		if i <= 0 || !fullSHA.MatchString(rest[i+1:]) {
			return Source{}, fmt.Errorf("%q: a checkout is git:PATH@FULL-COMMIT-SHA (40 lowercase hex digits; never a branch)", s)
		}
		return Source{Kind: SourceGit, Repo: rest[:i], Commit: rest[i+1:]}, nil
	}
	return Source{}, fmt.Errorf("%q: use crate:NAME@VERSION or git:PATH@COMMIT", s)
}

// String is the canonical spelling (what rows and reports show).
func (s Source) String() string {
	if s.Kind == SourceGit {
		return "git:" + s.Repo + "@" + s.Commit
	}
	return "crate:" + s.Crate + "@" + s.Version
}

// Revision is the immutable identity a source pins: the commit, or the published version.
func (s Source) Revision() string {
	if s.Kind == SourceGit {
		return s.Commit
	}
	return s.Crate + "@" + s.Version
}

// withBaseDir resolves a relative checkout path against the row file's folder.
func (s Source) withBaseDir(dir string) Source {
	if s.Kind == SourceGit && !filepath.IsAbs(s.Repo) {
		s.Repo = filepath.Join(dir, s.Repo)
	}
	return s
}
