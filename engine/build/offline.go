package build

import (
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"kvparity/internal/digest"
)

// Builds are offline: the dependencies are vendored from the source's own Cargo.lock (`cargo
// vendor --locked`) and cargo builds with --offline, so every build is pinned to the lock the
// source ships (recorded as the published lock). A changed Cargo.lock is vendored again by
// itself (the lineage's vendor/ is kept only for the lock it was made from). A manifest that
// declares what the lock does not lock — a developer added a dependency and did not update
// Cargo.lock — cannot be built that way, and kvparity does not resolve it in its copy: the
// versions would be whatever the registry offers that day, in a lock the checkout does not have,
// and the record would claim a pin that is not there. The error says so in words, names the
// manifests that changed since the vendoring, and the one command that updates the lock.

// manifestDigests is the SHA-256 of every Cargo.toml of the source tree at root, by slash path:
// the tree's own manifests, not those under vendor/, patches/ (kvparity's), target/ or a hidden
// folder.
func manifestDigests(root string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "vendor" || d.Name() == "patches" || d.Name() == "target" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.Name() != "Cargo.toml" || !d.Type().IsRegular() {
			return nil
		}
		sum, err := digest.File(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = sum
		return nil
	})
	return out, err
}

// changedManifests lists the manifests edited, added or removed between then and now, sorted.
func changedManifests(then, now map[string]string) []string {
	var out []string
	for p, sum := range now {
		if then[p] != sum {
			out = append(out, p)
		}
	}
	for p := range then {
		if _, ok := now[p]; !ok {
			out = append(out, p+" (removed)")
		}
	}
	sort.Strings(out)
	return out
}

// unresolvedOffline says cargo failed because the manifests declare what the lock does not
// lock: its offline resolution error, or vendoring's under --locked.
func unresolvedOffline(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	for _, mark := range []string{"you're using offline mode (--offline)", "retry without the offline flag",
		"forgotten to be re-vendored", "needs to be updated but --locked was passed"} {
		if strings.Contains(msg, mark) {
			return true
		}
	}
	return false
}

// lockNotUpdated words a build of a checkout whose manifests declare what its Cargo.lock does
// not lock: what changed (changed: the manifests edited since the lineage's dependencies were
// vendored; nil when unknown), why kvparity does not resolve it itself, and the one command
// that does. A source that is not a checkout's is returned as cargo said it.
func lockNotUpdated(s Spec, changed []string, err error) error {
	if !s.Checkout() {
		return err
	}
	what := "a manifest of the checkout declares a dependency its Cargo.lock does not lock"
	if len(changed) > 0 {
		what = fmt.Sprintf("%s changed since the dependencies were vendored and Cargo.lock did not", strings.Join(changed, ", "))
	}
	where := "the checkout"
	if s.Kind == "git" {
		where = "a checkout of commit " + orNone(s.Commit) + ", then commit Cargo.lock"
	}
	cmd := "cargo update --workspace --manifest-path " + shellQuote(filepath.Join(s.Repo, "Cargo.toml"))
	return &lockError{msg: fmt.Sprintf("Cargo.lock is out of date: %s, so cargo cannot resolve the new dependency offline. "+
		"kvparity builds offline from the checkout's own Cargo.lock, which pins the build, and does not resolve dependencies for it; "+
		"run `%s` in %s (it adds what the manifests declare to Cargo.lock and upgrades nothing else): the next build sees the new Cargo.lock and vendors again", what, cmd, where),
		err: err}
}

// A lockError is lockNotUpdated's: the words first, cargo's own output kept below them.
type lockError struct {
	msg string
	err error
}

func (e *lockError) Error() string { return e.msg + "\ncargo said: " + e.err.Error() }
func (e *lockError) Unwrap() error { return e.err }

// shellQuote is s as one shell word: bare when it holds only safe characters, else single-quoted.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// vendorConfig is the cargo configuration that builds the tree at root from vendor/ alone:
// crates.io replaced by the vendored sources, and so is every git source the lock names (a
// [patch.crates-io] entry or a dependency taken from a git repository, as Dynamo's llm-* are),
// each under the URL and reference its manifest gives, as `cargo vendor` prints them. Without
// those, an offline build of a tree with a git source reads cargo's own git database, which
// only a fetch on this machine has filled.
func vendorConfig(lock string) (string, error) {
	var l struct {
		Package []struct {
			Source string `toml:"source"`
		} `toml:"package"`
	}
	if _, err := toml.DecodeFile(lock, &l); err != nil {
		return "", fmt.Errorf("%s: %w", lock, err)
	}
	var b strings.Builder
	b.WriteString("[source.crates-io]\nreplace-with = \"vendored-sources\"\n\n")
	seen := map[string]bool{}
	var gits []string
	for _, p := range l.Package {
		// git+URL?REFERENCE#COMMIT: the source is URL and REFERENCE, the commit the lock's pin.
		id, ok := strings.CutPrefix(p.Source, "git+")
		if !ok {
			continue
		}
		id, _, _ = strings.Cut(id, "#")
		if !seen[id] {
			seen[id] = true
			gits = append(gits, id)
		}
	}
	sort.Strings(gits)
	for _, id := range gits {
		repo, query, _ := strings.Cut(id, "?")
		fmt.Fprintf(&b, "[source.%s]\ngit = %s\n", tomlString("git+"+id), tomlString(repo))
		if kind, value, ok := strings.Cut(query, "="); ok && (kind == "branch" || kind == "tag" || kind == "rev") {
			if v, err := url.QueryUnescape(value); err == nil { // the lock escapes a branch's "/" and the like
				value = v
			}
			fmt.Fprintf(&b, "%s = %s\n", kind, tomlString(value))
		}
		b.WriteString("replace-with = \"vendored-sources\"\n\n")
	}
	b.WriteString("[source.vendored-sources]\ndirectory = \"vendor\"\n\n[net]\noffline = true\n")
	return b.String(), nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
