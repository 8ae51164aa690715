package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A sourceKind is one way of obtaining the source tree a build compiles: the obtain step of
// engine/arm's Cargo-built kinds (crate, git, worktree). Adding one is a file implementing it
// plus one line in kinds, and its arm kind in engine/arm (doc.go).
type sourceKind interface {
	// parse reads what follows "KIND:" in a row's source key; errors say what a valid one
	// looks like.
	parse(whole, rest string) (Spec, error)
	// resolve pins what s names to an immutable identity (a ref to its full commit, a
	// working tree to the digest of its contents), filling s's resolved fields.
	resolve(ctx context.Context, s *Spec) error
	// fetch writes the pinned tree into dst, an empty folder except for what the lineage
	// keeps (vendor/), and records what it fetched in info.
	fetch(ctx context.Context, s Spec, work, dst string, info *Info) error
	// checkout is true when the kind builds from a developer's checkout, a path: all its
	// revisions share one lineage (lineage.go), and a relative path is the row's folder's.
	checkout() bool
	// name is the source as a row names it; identity the source pinned (what the cache key
	// and a cached record name); revision what a campaign records it as before it is built.
	name(s Spec) string
	identity(s Spec) string
	revision(s Spec) string
	// moves says what s names can change without the row changing; follow names the folders
	// where such a change shows (follow.go).
	moves(s Spec) bool
	follow(ctx context.Context, s Spec) ([]string, error)
}

// kinds registers the source kinds by the prefix a row spells them with.
var kinds = map[string]sourceKind{
	"crate":    crateKind{},
	"git":      gitKind{},
	"worktree": worktreeKind{},
}

// kindNames are the source kinds a row may name, for errors and help.
func kindNames() []string {
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParseSpec reads a row's source key (KIND:REST) into the spec it names, without features.
func ParseSpec(s string) (Spec, error) {
	kind, rest, ok := strings.Cut(s, ":")
	if k, known := kinds[kind]; ok && known {
		return k.parse(s, rest)
	}
	return Spec{}, fmt.Errorf("%q: use crate:NAME@VERSION, git:PATH@REF or worktree:PATH", s)
}

// Revision is the identity a source names before it is built: the published version, the
// commit or ref, the checkout whose working tree is built (its content is pinned by the build).
func (s Spec) Revision() string { return kindCall(s, sourceKind.revision) }

// String is the source as a row names it.
func (s Spec) String() string { return kindCall(s, sourceKind.name) }

// identity is the source pinned: a commit for a ref, the content digest for a working tree.
// The cache key and a cached entry's record name it.
func (s Spec) identity() string { return kindCall(s, sourceKind.identity) }

// kindCall asks s's kind (a spec of no known kind names itself by its kind).
func kindCall(s Spec, f func(sourceKind, Spec) string) string {
	k, ok := kinds[s.Kind]
	if !ok {
		return s.Kind + ":" + s.Repo
	}
	return f(k, s)
}

// Checkout says the source is a developer's checkout (a path, resolved against the row's folder).
func (s Spec) Checkout() bool {
	k, ok := kinds[s.Kind]
	return ok && k.checkout()
}

// WithBaseDir resolves a relative checkout path against the row file's folder.
func (s Spec) WithBaseDir(dir string) Spec {
	if s.Checkout() && !filepath.IsAbs(s.Repo) {
		s.Repo = filepath.Join(dir, s.Repo)
	}
	return s
}

var (
	crateName    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	crateVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)
	fullSHA      = regexp.MustCompile(`^[0-9a-f]{40}$`)
	// gitRef is what git accepts as a ref name or revision, roughly: no spaces, no "..", no
	// leading '-', none of ~^:?*[\ (git rev-parse decides the rest when the campaign pins it).
	gitRef = regexp.MustCompile(`^[^-\s~^:?*\[\\][^\s~^:?*\[\\]*$`)
)

func kindOf(s Spec) (sourceKind, error) {
	k, ok := kinds[s.Kind]
	if !ok {
		return nil, fmt.Errorf("source %s: unknown kind %q (kinds: %s)", s, s.Kind, strings.Join(kindNames(), ", "))
	}
	return k, nil
}

// crateKind is a published crate from the package registry.
type crateKind struct{}

func (crateKind) resolve(context.Context, *Spec) error { return nil } // the version is exact
func (crateKind) parse(whole, rest string) (Spec, error) {
	name, version, ok := strings.Cut(rest, "@")
	if !ok || !crateName.MatchString(name) || !crateVersion.MatchString(version) {
		return Spec{}, fmt.Errorf("%q: a published crate is crate:NAME@EXACT.VERSION, e.g. crate:dynamo-bench@1.6.1", whole)
	}
	return Spec{Kind: "crate", Crate: name, Version: version}, nil
}
func (crateKind) checkout() bool           { return false }
func (crateKind) name(s Spec) string       { return "crate:" + s.Crate + "@" + s.Version }
func (k crateKind) identity(s Spec) string { return k.name(s) }
func (crateKind) revision(s Spec) string   { return s.Crate + "@" + s.Version }
func (crateKind) moves(Spec) bool          { return false }
func (k crateKind) follow(_ context.Context, s Spec) ([]string, error) {
	return nil, fmt.Errorf("%s is a published version, which never changes: nothing to follow", k.name(s))
}
func (crateKind) fetch(ctx context.Context, s Spec, work, dst string, info *Info) error {
	if s.Crate != BenchPackage {
		return fmt.Errorf("source %s: the protocol's artifact is %s's %s, not a target of %s", s, BenchPackage, BenchTarget, s.Crate)
	}
	sum, err := fetchCrate(ctx, work, dst, s.Crate, s.Version)
	info.CrateSHA256 = sum
	return err
}

// gitKind is one commit of a local checkout, read through git's objects only.
type gitKind struct{}

func (gitKind) checkout() bool { return true }

func (gitKind) name(s Spec) string {
	ref := s.Ref
	if ref == "" {
		ref = s.Commit
	}
	return "git:" + s.Repo + "@" + ref
}
func (gitKind) identity(s Spec) string { return "git:" + s.Repo + "@" + s.Commit }
func (gitKind) revision(s Spec) string {
	if s.Commit != "" {
		return s.Commit
	}
	return s.Ref
}
func (gitKind) moves(s Spec) bool { return !fullSHA.MatchString(s.Ref) && s.Ref != "" }
func (k gitKind) follow(_ context.Context, s Spec) ([]string, error) {
	if !k.moves(s) {
		return nil, fmt.Errorf("%s names a commit, which never moves: name a branch or HEAD (git:%s@HEAD) or the working tree (worktree:%s) to follow the checkout", k.name(s), s.Repo, s.Repo)
	}
	return gitMetaDirs(s.Repo)
}

func (gitKind) parse(whole, rest string) (Spec, error) {
	i := strings.LastIndexByte(rest, '@')
	// HEAD~8, HEAD^ and main@{1} name other commits as refs move, and @{...}'s '@' would be
	// taken for the path's separator (main@{1}'s checkout "PATH@main", "no such folder").
	if ref := rest[i+1:]; i > 0 && (strings.HasPrefix(ref, "{") || strings.ContainsAny(ref, "~^")) {
		return Spec{}, fmt.Errorf("%q: a revision expression (~, ^, @{...}) is not a ref a row can hold: name the commit it resolves to by its full SHA, git:PATH@SHA (kvparity init-row --checkout writes it)", whole)
	}
	if i <= 0 || !gitRef.MatchString(rest[i+1:]) || strings.Contains(rest[i+1:], "..") {
		return Spec{}, fmt.Errorf("%q: a checkout's commit is git:PATH@REF (a branch, tag, HEAD, or a short or full commit SHA)", whole)
	}
	s := Spec{Kind: "git", Repo: rest[:i], Ref: rest[i+1:]}
	if fullSHA.MatchString(s.Ref) {
		s.Commit = s.Ref
	}
	return s, nil
}

func (gitKind) resolve(ctx context.Context, s *Spec) error {
	if err := checkoutDir(s.Repo); err != nil {
		return err
	}
	ref := s.Ref
	if ref == "" {
		ref = s.Commit
	}
	commit, err := ResolveRef(ctx, s.Repo, ref)
	if err != nil {
		return err
	}
	s.Commit = commit
	return nil
}

func (gitKind) fetch(ctx context.Context, s Spec, work, dst string, info *Info) error {
	info.Commit = s.Commit
	if s.Ref != s.Commit {
		info.Ref = s.Ref // named by a branch, tag or short SHA: recorded beside the commit
	}
	return fetchGit(ctx, work, dst, s.Repo, s.Commit)
}

// Resolve pins what s names now: a ref's commit, a working tree's base commit and content
// digest (Commit and Snapshot). Watch mode compares it with the pinned build.
func Resolve(ctx context.Context, s Spec) (Spec, error) {
	k, err := kindOf(s)
	if err != nil {
		return s, err
	}
	err = k.resolve(ctx, &s)
	return s, err
}

// ResolveRef names the full commit SHA a ref of repo points to now (a branch, tag, HEAD, a
// short or full SHA).
func ResolveRef(ctx context.Context, repo, ref string) (string, error) {
	if err := checkoutDir(repo); err != nil {
		return "", err
	}
	if ref == "" || strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("%s: %q is not a ref (a branch, tag, HEAD or commit)", repo, ref)
	}
	out, err := run(ctx, repo, gitEnv, "git", "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s has no commit %s (no branch, tag or commit of that name)", repo, ref)
	}
	return strings.TrimSpace(string(out)), nil
}

// gitEnv keeps git from taking the index lock to refresh it: kvparity only reads a checkout.
var gitEnv = []string{"GIT_OPTIONAL_LOCKS=0"}

// checkoutDir says what is wrong with repo as a checkout, in its own words: a missing folder
// is a missing folder, not git failing to start in it.
func checkoutDir(repo string) error {
	st, err := os.Stat(repo)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("checkout %s: no such folder", repo)
	case err != nil:
		return fmt.Errorf("checkout %s: %w", repo, err)
	case !st.IsDir():
		return fmt.Errorf("checkout %s: not a folder", repo)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		return fmt.Errorf("checkout %s: not a git checkout (no .git in it)", repo)
	}
	return nil
}
