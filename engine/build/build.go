package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"kvparity/internal/atomicfile"
	"kvparity/internal/digest"
)

// recipe versions the build procedure itself: a change to how kvparity builds invalidates
// every cached build.
// 2: line tables in every build (CARGO_PROFILE_RELEASE_DEBUG), so a profile of either arm
// resolves source lines, and both arms are built identically with them.
const recipe = "kvparity-build/2"

// lineTables is the debug-info level every build gets: line tables only (no types or
// variables), which changes no generated code.
const lineTables = "line-tables-only"

// A Spec is what to build: one source (a published crate, a commit of a checkout, or a
// checkout's working tree), with the row's features.
type Spec struct {
	Kind    string // a registered source kind: "crate", "git" or "worktree" (kinds.go)
	Crate   string // crate: package name
	Version string // crate: exact version
	Repo    string // git, worktree: the checkout's path
	Ref     string // git: the ref as the row names it (a branch, tag, HEAD, a short or full SHA)
	// Commit is git's full commit SHA (Build resolves Ref to it) and a worktree's base commit.
	Commit string
	// Snapshot is a worktree's content digest (Build takes it): the worktree's identity.
	Snapshot string
	Features []string
	// Variant is the stand-in revision built instead of the published code (zero: none).
	Variant Variant
	// Profile is ProfileDesk for the desk loop's fast build (desk.go); "" or ProfileRelease
	// is the checkout's release profile, the protocol's artifact.
	Profile string
}

// variant is the spec's stand-in variant ("" for the published code itself).
func (s Spec) variant() string { return s.Variant.String() }

// Options configure a build.
type Options struct {
	// Cache is the folder builds are kept in ("" = $KVPARITY_BUILD_CACHE, else the user cache
	// directory's kvparity/builds). It is outside every campaign: a second campaign of the same
	// sources reuses the binary.
	Cache string
	// Progress receives the build's phases and, while compiling, its unit count and crate.
	Progress func(Progress)
}

// A Progress is one step of a build, for the workbench and the headless printer.
type Progress struct {
	Source  string
	Phase   string // toolchain, fetching, vendoring, patching, compiling, cached, done
	Units   int    // compiled units so far (compiling)
	Current string // the crate being compiled ("tokio v1.47.1")
	Elapsed time.Duration
	// Warning is why a cache entry was refused (phase "rebuilding"): the build starts over.
	Warning string
}

// Info is how a binary was built: recorded in artifacts.json, the journal and the report.
type Info struct {
	Recipe      string   `json:"recipe,omitempty"` // how kvparity built it (recipe); absent from records before it was recorded
	Source      string   `json:"source"`
	Package     string   `json:"package"`
	Version     string   `json:"version"`
	CrateSHA256 string   `json:"crate_sha256,omitempty"` // the registry checksum of the published .crate
	Commit      string   `json:"commit,omitempty"`
	Features    []string `json:"features"`
	Profile     string   `json:"profile"` // "release" and the manifest's settings for it
	// BuildProfile is ProfileDesk for a desk build (desk.go), empty for the release profile.
	BuildProfile string `json:"build_profile,omitempty"`
	Rustc        string `json:"rustc"` // rustc -vV
	Cargo        string `json:"cargo"` // cargo -V
	// PublishedLockSHA256 is the Cargo.lock as the source ships it; LockSHA256 the one the
	// build used: cargo rewrites it for the timing extension's patched copy of the replay
	// crate (a path source, no registry checksum) and the harness's added dependency.
	PublishedLockSHA256 string `json:"published_lockfile_sha256"`
	LockSHA256          string `json:"lockfile_sha256"`
	ReplayCrate         string `json:"replay_crate"` // the crate whose run_inner the extension times
	// ExtensionSHA256 is the timing extension's checksum: the same for every version (the
	// determinism patch of protocol stage 1.3); AppliedPatchSHA256 is this version's diff.
	ExtensionSHA256    string   `json:"timing_extension_sha256"`
	AppliedPatchSHA256 string   `json:"applied_patch_sha256"`
	AppliedPatch       string   `json:"applied_patch"` // path of the diff in the cache
	Command            []string `json:"command"`
	// Env is what kvparity set for the command; InheritedEnv the variables of the caller's
	// environment it ran with that change what is compiled (RUSTFLAGS, CARGO_PROFILE_*...).
	Env          []string `json:"environment"`
	InheritedEnv []string `json:"inherited_environment"`
	CacheKey     string   `json:"cache_key"`
	Binary       string   `json:"binary"` // the built executable in the cache
	BinarySHA256 string   `json:"binary_sha256"`
	Units        int      `json:"compiled_units"` // units cargo compiled (not those it found fresh)
	FreshUnits   int      `json:"fresh_units,omitempty"`
	// Ref is the ref a git source was named by, when not its full commit; Lineage the kept
	// folder the build compiled in (lineage.go), Incremental whether its target folder held an
	// earlier build, ChangedFiles how many source files differed from that build's.
	Ref          string `json:"ref,omitempty"`
	Lineage      string `json:"lineage,omitempty"`
	Incremental  bool   `json:"incremental,omitempty"`
	ChangedFiles int    `json:"changed_files,omitempty"`
	// SnapshotSHA256 is a worktree's content digest; WorktreeDiff its diff against its base
	// commit (Commit), kept in the cache entry and copied into the campaign.
	SnapshotSHA256     string `json:"snapshot_sha256,omitempty"`
	WorktreeDiff       string `json:"worktree_diff,omitempty"`
	WorktreeDiffSHA256 string `json:"worktree_diff_sha256,omitempty"`
	worktreeDiff       string
	BuildSeconds       float64 `json:"build_seconds"`
	Cached             bool    `json:"cached,omitempty"`
	// Variant is the stand-in variant built in ("slowdown-10"), and VariantPatch its diff on
	// top of the timing extension (kept apart: it is the candidate's change, not a determinism
	// patch).
	Variant            string `json:"variant,omitempty"`
	VariantPatch       string `json:"variant_patch,omitempty"`
	VariantPatchSHA256 string `json:"variant_patch_sha256,omitempty"`
}

// Revision is the revision a build is: a worktree's base commit and snapshot, a commit, or
// the published version.
func (i Info) Revision() string {
	switch {
	case i.SnapshotSHA256 != "":
		return fmt.Sprintf("worktree %.12s + snapshot %.12s", orNone(i.Commit), i.SnapshotSHA256)
	case i.Commit != "":
		return i.Commit
	}
	return i.Package + "@" + i.Version
}

// Toolchain is the one toolchain both arms are built with, read from rustc and cargo.
type Toolchain struct{ Rustc, Cargo string }

// readToolchain runs rustc -vV and cargo -V.
func readToolchain(ctx context.Context) (Toolchain, error) {
	r, err := run(ctx, "", nil, "rustc", "-vV")
	if err != nil {
		return Toolchain{}, err
	}
	c, err := run(ctx, "", nil, "cargo", "-V")
	if err != nil {
		return Toolchain{}, err
	}
	return Toolchain{Rustc: strings.TrimSpace(string(r)), Cargo: strings.TrimSpace(string(c))}, nil
}

// Build builds (or finds in the cache) the protocol's artifact for s: Dynamo's
// offline_replay_bench with the row's features and the timing extension, release profile. A
// checkout's builds (git, worktree) compile in their lineage's kept folders (lineage.go), so
// only what an edit changed is recompiled. A build that fails or is cancelled leaves no cache
// entry behind; after a build the cache is held to its size limit (prune.go).
func Build(ctx context.Context, s Spec, o Options) (Info, error) {
	start := time.Now()
	say := func(p Progress) {
		if o.Progress != nil {
			p.Source, p.Elapsed = s.String(), time.Since(start)
			o.Progress(p)
		}
	}
	cache := o.Cache
	if cache == "" {
		var err error
		if cache, err = DefaultCache(); err != nil {
			return Info{}, err
		}
	}
	limit, err := Limit() // read before the build: a bad setting must not cost a build first
	if err != nil {
		return Info{}, err
	}
	kind, err := kindOf(s)
	if err != nil {
		return Info{}, err
	}
	say(Progress{Phase: "toolchain"})
	tc, onPath, err := cacheToolchain(ctx, cache)
	if err != nil {
		return Info{}, err
	}
	if err := kind.resolve(ctx, &s); err != nil {
		return Info{}, err
	}
	req := newRequest(s, tc)
	key := cacheKey(req)
	dir := filepath.Join(cache, key)
	info, why, ok := cached(dir, req)
	if ok {
		touch(dir)
		say(Progress{Phase: "cached"})
		return info, nil
	}
	if !onPath {
		return Info{}, fmt.Errorf("source %s: this machine has no Rust toolchain and %s holds no build of it for %s (%s): build it where the toolchain is (kvparity build, or the matrix before it submits)",
			s, cache, firstLine(tc.Rustc), orNone(why))
	}
	warned := why != ""
	if warned {
		say(Progress{Phase: "rebuilding", Warning: refused(dir, why)})
	}
	// A refused entry that is a link is removed, never written through: the rebuild lands
	// in the cache, and what the link points to is left as it is.
	if isLink(dir) {
		if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Info{}, fmt.Errorf("build cache %s: removing the refused link: %w", dir, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Info{}, fmt.Errorf("build cache %s: %w", dir, err)
	}
	// One build per key at a time (both arms of an A/A row share it, so do two campaigns).
	unlock, err := lockDir(dir)
	if err != nil {
		return Info{}, err
	}
	defer unlock()
	info, why, ok = cached(dir, req) // built by whoever held the lock
	if ok {
		touch(dir)
		say(Progress{Phase: "cached"})
		return info, nil
	}
	if why != "" && !warned {
		say(Progress{Phase: "rebuilding", Warning: refused(dir, why)})
	}
	built := false
	defer func() {
		if !built { // a failed or cancelled build leaves nothing in the cache but its lineage
			os.RemoveAll(dir)
		}
	}()
	info, err = compile(ctx, s, req, cache, dir, say)
	if err != nil {
		return Info{}, err
	}
	info.BuildSeconds = time.Since(start).Seconds()
	js, _ := json.MarshalIndent(info, "", "  ")
	if err := atomicfile.Write(filepath.Join(dir, "build.json"), append(js, '\n'), 0o644); err != nil {
		return Info{}, err
	}
	built = true
	touch(dir)
	if _, err := Prune(cache, limit, dir); err != nil {
		say(Progress{Phase: "done", Warning: "the build cache could not be held to its size limit: " + err.Error()})
	}
	say(Progress{Phase: "done", Units: info.Units})
	return info, nil
}

// Cached finds s's finished build in the cache without building: ok is false when the cache
// has none (or one that fails its checks). Tests use it to run only what is already built.
func Cached(ctx context.Context, s Spec, o Options) (info Info, ok bool, err error) {
	cache := o.Cache
	if cache == "" {
		if cache, err = DefaultCache(); err != nil {
			return Info{}, false, err
		}
	}
	k, err := kindOf(s)
	if err != nil {
		return Info{}, false, err
	}
	tc, _, err := cacheToolchain(ctx, cache)
	if err != nil {
		return Info{}, false, err
	}
	if err := k.resolve(ctx, &s); err != nil {
		return Info{}, false, err
	}
	req := newRequest(s, tc)
	info, _, ok = cached(filepath.Join(cache, cacheKey(req)), req)
	return info, ok, nil
}

// FromCheckout says the build's source is a developer's checkout (a commit or a working
// tree), which a save or a commit can move; a published crate's never does.
func (i Info) FromCheckout() bool {
	kind, _, _ := strings.Cut(i.Source, ":")
	return Spec{Kind: kind}.Checkout()
}

// compile does the build of an entry dir whose lock is held: fetch, vendor, patch, cargo.
func compile(ctx context.Context, s Spec, req request, cache, dir string, say func(Progress)) (Info, error) {
	kind, _ := kindOf(s)
	tc := req.toolchain
	work := filepath.Join(dir, "work")
	os.RemoveAll(work) // an interrupted attempt: start over
	if err := os.MkdirAll(work, 0o755); err != nil {
		return Info{}, err
	}
	defer os.RemoveAll(work)
	info := Info{Recipe: recipe, Source: s.identity(), Package: BenchPackage, Features: slices.Clone(s.Features), Rustc: tc.Rustc, Cargo: tc.Cargo,
		ReplayCrate: ReplayCrate, ExtensionSHA256: ExtensionSHA256(), CacheKey: filepath.Base(dir), Variant: s.variant(),
		InheritedEnv: req.inherited}
	// Every build compiles in its lineage's kept folders (lineage.go), where what an earlier
	// build of the same source compiled is reused.
	lin := lineage{dir: filepath.Join(cache, lineageKey(req, lineageSource(ctx, s)))}
	if err := os.MkdirAll(lin.dir, 0o755); err != nil {
		return Info{}, err
	}
	unlock, err := lockDir(lin.dir)
	if err != nil {
		return Info{}, err
	}
	defer unlock()
	touch(lin.dir)
	rec, _ := json.Marshal(lineageRecord{Source: lineageSourceName(s), Features: sorted(s.Features)})
	if err := atomicfile.Write(filepath.Join(lin.dir, "lineage.json"), rec, 0o644); err != nil {
		return Info{}, err
	}
	stamps, err := lin.clear()
	if err != nil {
		return Info{}, err
	}
	root, target := lin.src(), lin.target()
	info.Lineage = filepath.Base(lin.dir)
	say(Progress{Phase: "fetching"})
	if err := kind.fetch(ctx, s, work, root, &info); err != nil {
		return Info{}, err
	}
	if info.worktreeDiff != "" {
		info.WorktreeDiff = filepath.Join(dir, "worktree.diff")
		if err := atomicfile.Write(info.WorktreeDiff, []byte(info.worktreeDiff), 0o644); err != nil {
			return Info{}, err
		}
		sum := sha256.Sum256([]byte(info.worktreeDiff))
		info.WorktreeDiffSHA256 = hex.EncodeToString(sum[:])
	}
	if kind.checkout() {
		if err := checkNoClash(root); err != nil {
			return Info{}, fmt.Errorf("source %s: %w", s, err)
		}
	}
	// The workspace root holds Cargo.lock; the package is dynamo-bench's folder in it.
	pkg, man, err := findPackage(root, BenchPackage)
	if err != nil {
		return Info{}, err
	}
	if info.PublishedLockSHA256, err = digest.File(filepath.Join(root, "Cargo.lock")); err != nil {
		return Info{}, fmt.Errorf("source %s: no Cargo.lock at %s: the build would not be pinned", s, root)
	}
	if err := copyFile(filepath.Join(root, "Cargo.lock"), filepath.Join(dir, "Cargo.lock.published")); err != nil {
		return Info{}, err
	}
	info.Version = man.Package.Version
	if err := checkManifest(filepath.Join(pkg, "Cargo.toml"), man, s.Features); err != nil {
		return Info{}, err
	}
	rootMan, err := readManifest(filepath.Join(root, "Cargo.toml"))
	if err != nil {
		return Info{}, err
	}
	info.Profile = profileOf(rootMan) + ", debug = \"" + lineTables + "\" (kvparity's CARGO_PROFILE_RELEASE_DEBUG, the same for every build)"
	if info.BuildProfile = s.recordedProfile(); s.desk() {
		info.Profile = deskProfileText(profileOf(rootMan))
	}

	// The manifests as the source has them, before the timing extension edits any: what the
	// lock must lock (offline.go).
	manifests, err := manifestDigests(root)
	if err != nil {
		return Info{}, err
	}
	vendored, atVendoring, err := lin.keepVendor(info.PublishedLockSHA256)
	if err != nil {
		return Info{}, err
	}
	var changedSinceVendoring []string
	if vendored && atVendoring != nil {
		changedSinceVendoring = changedManifests(atVendoring, manifests)
	}
	if !vendored {
		say(Progress{Phase: "vendoring"})
		if _, err := run(ctx, root, nil, "cargo", "vendor", "--locked", "vendor"); err != nil {
			if unresolvedOffline(err) {
				err = lockNotUpdated(s, nil, err)
			}
			return Info{}, fmt.Errorf("vendoring the dependencies of %s (from its own Cargo.lock): %w", s, err)
		}
		if err := lin.markVendored(info.PublishedLockSHA256, manifests); err != nil {
			return Info{}, err
		}
	}
	config, err := vendorConfig(filepath.Join(root, "Cargo.lock"))
	if err != nil {
		return Info{}, err
	}
	if err := os.MkdirAll(filepath.Join(root, ".cargo"), 0o755); err != nil {
		return Info{}, err
	}
	if err := os.WriteFile(filepath.Join(root, ".cargo", "config.toml"), []byte(config), 0o644); err != nil {
		return Info{}, err
	}

	say(Progress{Phase: "patching"})
	patch, core, err := applyExtension(root, pkg)
	if err != nil {
		return Info{}, err
	}
	info.AppliedPatch = filepath.Join(dir, "timing-extension.patch")
	if err := atomicfile.Write(info.AppliedPatch, []byte(patch), 0o644); err != nil {
		return Info{}, err
	}
	sum := sha256.Sum256([]byte(patch))
	info.AppliedPatchSHA256 = hex.EncodeToString(sum[:])
	if s.Variant != (Variant{}) {
		var vp string
		if s.Variant.ScaleEvents {
			vp, err = applyScaleEvents(root, core, pkg)
		} else {
			vp, err = applySlowdown(root, core, s.Variant.SlowdownPct)
		}
		if err != nil {
			return Info{}, err
		}
		info.VariantPatch = filepath.Join(dir, s.variant()+".patch")
		if err := atomicfile.Write(info.VariantPatch, []byte(vp), 0o644); err != nil {
			return Info{}, err
		}
		vsum := sha256.Sum256([]byte(vp))
		info.VariantPatchSHA256 = hex.EncodeToString(vsum[:])
	}
	// Unchanged files get their old times back: cargo recompiles what changed only.
	if info.ChangedFiles, err = lin.restore(stamps); err != nil {
		return Info{}, err
	}
	_, statErr := os.Stat(target)
	info.Incremental = statErr == nil

	args := append([]string{"build"}, s.profileArgs()...)
	args = append(args, "--offline", "--no-default-features", "--features", strings.Join(s.Features, ","),
		"--bench", BenchTarget, "--message-format=json-render-diagnostics")
	if pkg != root {
		args = append(args, "-p", BenchPackage)
	}
	info.Command = append([]string{"cargo"}, args...)
	env := buildEnv(target)
	info.Env = env
	say(Progress{Phase: "compiling"})
	exe, units, fresh, err := cargoBuild(ctx, root, env, args, BenchTarget, func(n int, current string) {
		say(Progress{Phase: "compiling", Units: n, Current: current})
	})
	if ctx.Err() != nil { // callers hold ctx: they exit with the interrupted status, not as for a broken build
		return Info{}, fmt.Errorf("building %s: cancelled (%d units had been compiled; the next build of this source continues from them)", s, units)
	}
	if unresolvedOffline(err) {
		err = lockNotUpdated(s, changedSinceVendoring, err)
	}
	if err != nil {
		return Info{}, fmt.Errorf("building %s: %w", s, err)
	}
	info.Units, info.FreshUnits = units, fresh
	if info.LockSHA256, err = digest.File(filepath.Join(root, "Cargo.lock")); err != nil {
		return Info{}, err
	}
	binDir := filepath.Join(dir, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return Info{}, err
	}
	info.Binary = filepath.Join(binDir, BenchTarget)
	if err := copyFile(exe, info.Binary); err != nil {
		return Info{}, err
	}
	if info.BinarySHA256, err = digest.File(info.Binary); err != nil {
		return Info{}, err
	}
	// The binary and its record stay in the entry, with the package's manifest and lock beside
	// the patch for review; the sources, vendored crates and target folder (gigabytes) stay in
	// the lineage.
	for _, keep := range []string{"Cargo.toml", "Cargo.lock"} {
		copyFile(filepath.Join(root, keep), filepath.Join(dir, keep))
	}
	return info, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// refused is the warning of a cache entry that is another build, or a damaged one.
func refused(dir, why string) string {
	return fmt.Sprintf("the cached build in %s cannot be used (%s): building it again", dir, why)
}

// profileOf states the release profile the manifest sets ("release (defaults)" when none).
func profileOf(m *manifest) string {
	p, ok := m.Profile["release"]
	if !ok || len(p) == 0 {
		return "release (cargo's defaults: opt-level 3, lto off, codegen-units 16)"
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s = %v", k, p[k])
	}
	return "release (" + strings.Join(parts, ", ") + ")"
}

// lockDir takes an exclusive flock on dir/.lock until the returned func is called.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// copyFile copies src to dst (mode 0755 for the executable).
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(src); err == nil && st.Mode()&0o111 != 0 {
		mode = 0o755
	}
	return atomicfile.Write(dst, b, mode)
}
