package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A sourceKind is one way of obtaining the source tree a build compiles. Adding a kind (a
// Python package, a container image) is one file implementing it plus one line in kinds.
type sourceKind interface {
	// resolve pins what s names to an immutable identity (a ref to its full commit, a
	// working tree to the digest of its contents), filling s's resolved fields.
	resolve(ctx context.Context, s *Spec) error
	// fetch writes the pinned tree into dst, an empty folder except for what the lineage
	// keeps (vendor/), and records what it fetched in info.
	fetch(ctx context.Context, s Spec, work, dst string, info *Info) error
	// checkout is true when the kind builds from a developer's checkout: its builds share a
	// lineage (one kept source and target folder) so a small edit compiles incrementally.
	checkout() bool
}

// kinds registers the source kinds by the prefix a row spells them with.
var kinds = map[string]sourceKind{
	"crate":    crateKind{},
	"git":      gitKind{},
	"worktree": worktreeKind{},
}

// Kinds are the source kinds a row may name, for errors and help.
func Kinds() []string { return []string{"crate", "git", "worktree"} }

func kindOf(s Spec) (sourceKind, error) {
	k, ok := kinds[s.Kind]
	if !ok {
		return nil, fmt.Errorf("source %s: unknown kind %q (kinds: %s)", s, s.Kind, strings.Join(Kinds(), ", "))
	}
	return k, nil
}

// crateKind is a published crate from the package registry.
type crateKind struct{}

func (crateKind) resolve(context.Context, *Spec) error { return nil } // the version is exact
func (crateKind) checkout() bool                       { return false }
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
	return fetchGit(ctx, work, dst, s.Repo, s.Commit)
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
