#!/usr/bin/env bash
# dynamo-checkout.sh DEST [--version 1.4.2|1.5.1|1.6.1] [--core-path] [--faithful]
#
# Builds at DEST a git repository shaped like NVIDIA Dynamo's (github.com/ai-dynamo/dynamo) from
# the crates it published as 1.5.1 (or --version), for tests of kvparity's git sources: the
# members sit where each crate's .cargo_vcs_info.json says they sit in Dynamo's tree (lib/bench,
# lib/kv-router, ...), each with the manifest as written in the repository (Cargo.toml.orig,
# `workspace = true` keys), under a root Cargo.toml that defines what they inherit, and a
# Cargo.lock that starts from the one that version's dynamo-bench ships. Two commits with fixed
# authors and dates, so the SHAs are the same on every machine: the base, and a one-line
# behaviour-neutral edit in lib/kv-router.
# stdout gets exactly two lines, `base=<sha>` and `edit=<sha>`; progress goes to stderr.
#
#   --version V   the Dynamo release the crates come from: 1.5.1 (the default; replay core
#                 aisimulate-core 0.12.0), 1.6.1 (aisimulate-core 0.13.0, and one more member,
#                 dynamo-custom-policy-builtin at lib/router-plugins/builtin) or 1.4.2 (no
#                 separate replay core: the replay lives in dynamo-mocker, with KVBM offload
#                 replay behind dynamo-bench's mocker-kvbm-offload; seed000-kvbm.sh uses it).
#   --core-path   the replay core (aisimulate-core) is in the checkout as a path member
#                 (lib/aisimulate-core) instead of a registry dependency.
#   --faithful    Dynamo's shape where the fixture is otherwise small: its release profile (thin
#                 LTO, one codegen unit), every library that release published from Dynamo's
#                 tree as a path member (dynamo-llm, dynamo-runtime, dynamo-memory, ...), a Python
#                 package beside the workspace (lib/bindings/python), and Dynamo's git patch of
#                 llm-multimodal and llm-tokenizer, from a local bare repository made here
#                 ($KVPARITY_FIXTURE_GIT, default /tmp/kvparity-fixture-git: a fixed place, since
#                 its file:// URL is in the commits and so in their SHAs).
#
# The crates come from $KVPARITY_FIXTURE_CACHE (default ~/.cache/kvparity/fixture-crates), filled
# on first use by `cargo vendor` of a throwaway probe crate (cargo reads the package registry; no
# other network). See scripts/dynamo-checkout.md for what is faithful and what is invented.
set -euo pipefail

die() { echo "dynamo-checkout: $*" >&2; exit 1; }
say() { echo "dynamo-checkout: $*" >&2; }

USAGE="usage: dynamo-checkout.sh DEST [--version 1.4.2|1.5.1|1.6.1] [--core-path] [--faithful]"
DEST=""
CORE_PATH=0
FAITHFUL=0
VERSION=1.5.1
while (($#)); do
	arg="$1"
	shift
	case "$arg" in
	--core-path) CORE_PATH=1 ;;
	--faithful) FAITHFUL=1 ;;
	--version=*) VERSION="${arg#--version=}" ;;
	--version) (($#)) || die "--version needs a value ($USAGE)"; VERSION="$1"; shift ;;
	-h | --help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $arg ($USAGE)" ;;
	*) [[ -z "$DEST" ]] || die "two destinations given: $DEST and $arg"; DEST="$arg" ;;
	esac
done
[[ -n "$DEST" ]] || die "$USAGE"
# What each release's fixture holds: its replay core, and its members in the order Dynamo's
# root manifest lists its libraries (1.6.1's plugin crate, which mocker needs, after kv-router).
case "$VERSION" in
1.4.2)
	CORE=""
	MEMBERS=(dynamo-tokens dynamo-kv-hashing dynamo-truthy dynamo-data-gen dynamo-mocker dynamo-kv-router dynamo-bench)
	;;
1.5.1)
	CORE=aisimulate-core@0.12.0
	MEMBERS=(dynamo-tokens dynamo-kv-hashing dynamo-truthy dynamo-data-gen dynamo-mocker dynamo-kv-router dynamo-bench)
	;;
1.6.1)
	CORE=aisimulate-core@0.13.0
	MEMBERS=(dynamo-tokens dynamo-kv-hashing dynamo-truthy dynamo-data-gen dynamo-mocker dynamo-kv-router
		dynamo-custom-policy-builtin dynamo-bench)
	;;
*) die "--version $VERSION: this script knows 1.4.2, 1.5.1 and 1.6.1 (their replay cores and member sets)" ;;
esac
[[ -n "$CORE" ]] || ((!CORE_PATH)) || die "--core-path: Dynamo $VERSION has no separate replay core"

if [[ -e "$DEST" ]] && [[ -n "$(ls -A "$DEST")" ]]; then
	die "$DEST exists and is not empty: the fixture is built only in a new or empty folder"
fi
for tool in cargo git python3; do
	command -v "$tool" >/dev/null || die "$tool is not on PATH"
done
python3 -c 'import tomllib' 2>/dev/null || die "python3 has no tomllib (needs Python 3.11 or newer)"

# The crate [patch.crates-io] points at a vendored copy of itself: small, without dependencies,
# and compiled into offline_replay_bench (dynamo-kv-router and tempfile use it).
PATCH_CRATE=fastrand
CACHE="${KVPARITY_FIXTURE_CACHE:-$HOME/.cache/kvparity/fixture-crates}"

# Fixed identities and dates: the SHAs depend on nothing of this machine, its git config included.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="kvparity fixture" GIT_AUTHOR_EMAIL="fixture@kvparity.invalid"
export GIT_COMMITTER_NAME="kvparity fixture" GIT_COMMITTER_EMAIL="fixture@kvparity.invalid"

TMPDIRS=()
cleanup() { for d in "${TMPDIRS[@]}"; do rm -rf "$d"; done; }
trap cleanup EXIT

# The TOML work (reading manifests and locks, writing the root manifest): Python's tomllib.
read -r -d '' PY <<'PYEOF' || true
import json, os, sys, tomllib

def load(path):
    with open(path, "rb") as f:
        return tomllib.load(f)

def q(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(q(x) for x in v) + "]"
    raise TypeError(v)

def inline(d):
    return "{ " + ", ".join(f"{k} = {q(v)}" for k, v in d.items()) + " }"

DEP_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")

def dep_tables(man):
    """(label, table) for every dependency table, target-specific ones included."""
    for t in DEP_TABLES:
        if t in man:
            yield t, [t], man[t]
    for cfg, tt in man.get("target", {}).items():
        for t in DEP_TABLES:
            if t in tt:
                yield f"target.'{cfg}'.{t}", ["target", cfg, t], tt[t]

def dig(man, keys):
    for k in keys:
        man = man.get(k, {})
    return man

def cmd_vcs_path(info):
    print(load_json(info)["path_in_vcs"])

def load_json(path):
    with open(path) as f:
        return json.load(f)

def cmd_root_manifest(out, version, pin, patch_name, patch_rel, member_patches, *members):
    """members: NAME=REL=ORIG=NORMALIZED (ORIG empty for a member kept with its normalized manifest);
    member_patches: comma-separated members that published crates outside the checkout depend on;
    pin=1: the published Dynamo crates outside the checkout required at exactly their version
    (only while Cargo.lock is completed, so that it holds them at this release)."""
    member_patches = [m for m in member_patches.split(",") if m]
    ms = []
    for m in members:
        name, rel, orig, norm = m.split("=", 3)
        ms.append((name, rel, orig, norm))
    paths = {name: rel for name, rel, _, _ in ms}
    pkg_keys = ["version", "edition", "authors", "license", "homepage", "repository"]
    pkg_vals = {}
    deps = {}  # key -> {"version": set, "package": set, "df": [(norm, orig, where)], "feat": [(norm, orig)]}
    order = []
    for name, rel, orig, norm in ms:
        if not orig:
            continue
        o, n = load(orig), load(norm)
        where = f"{rel}/Cargo.toml"
        for k, v in o["package"].items():
            if isinstance(v, dict) and v.get("workspace") is True:
                if k not in pkg_keys:
                    pkg_keys.append(k)
                nv = n["package"].get(k)
                if nv is None:
                    sys.exit(f"{where}: package.{k} inherits from the workspace but the published manifest has no package.{k}")
                if pkg_vals.setdefault(k, nv) != nv:
                    sys.exit(f"{where}: package.{k} = {nv!r} in the published manifest, another member has {pkg_vals[k]!r}")
        for label, keys, table in dep_tables(o):
            for key, spec in table.items():
                if not (isinstance(spec, dict) and spec.get("workspace") is True):
                    continue
                ns = dig(n, keys).get(key)
                if ns is None:
                    sys.exit(f"{where}: [{label}] {key} inherits from the workspace, but the published manifest has no such dependency")
                if isinstance(ns, str):
                    ns = {"version": ns}
                d = deps.get(key)
                if d is None:
                    d = deps[key] = {"version": set(), "package": set(), "df": [], "feat": []}
                    order.append(key)
                d["version"].add(ns.get("version"))
                d["package"].add(ns.get("package"))
                d["df"].append((ns.get("default-features", True), spec.get("default-features"), f"{where} [{label}] {key}"))
                d["feat"].append((ns.get("features", []), spec.get("features", [])))
    for k in pkg_keys:
        if k not in pkg_vals:
            # Asked for by kvparity's brief even if no member inherits it: take it from any member.
            for name, rel, orig, norm in ms:
                v = load(norm)["package"].get(k)
                if v is not None:
                    pkg_vals[k] = v
                    break
    pkg_vals["version"] = version

    entries = {}
    for key in order:
        d = deps[key]
        if len(d["version"]) != 1:
            sys.exit(f"workspace dependency {key}: the published manifests require different versions {sorted(map(str, d['version']))}")
        if len(d["package"]) != 1:
            sys.exit(f"workspace dependency {key}: renamed differently by different members")
        # default-features: what the published manifest has where the member says nothing.
        df = {n for n, o, _ in d["df"] if o is None}
        if len(df) > 1:
            sys.exit(f"workspace dependency {key}: default-features differ between members: {d['df']}")
        ws_df = df.pop() if df else all(n for n, _, _ in d["df"])
        for n, o, where in d["df"]:
            if o is not None and (ws_df and not o):
                sys.exit(f"{where}: default-features = false under a workspace dependency that keeps them")
        # features: the published list is the workspace's followed by the member's own.
        feats = []
        for n, o in d["feat"]:
            for f in n:
                if f not in o and f not in feats:
                    feats.append(f)
        for n, o in d["feat"]:
            if not set(feats) <= set(n):
                sys.exit(f"workspace dependency {key}: features {feats} are not all in a member's published {n}")
        e = {}
        if key in paths:
            e["path"] = paths[key]
        e["version"] = d["version"].pop()
        pkg = d["package"].pop()
        if pkg:
            e["package"] = pkg
        if not ws_df:
            e["default-features"] = False
        if feats:
            e["features"] = feats
        entries[key] = e
    core = [n for n, _, orig, _ in ms if not orig]
    for name in core:
        # A member kept with its normalized manifest (the replay core with --core-path).
        # The requirement stays the published one (mocker's "=0.12.0" in 1.5.1), so the members' manifests
        # mean what they mean in the release.
        v = entries.get(name, {}).get("version")
        if v is None:
            sys.exit(f"{paths[name]}: no member depends on {name}")
        entries[name] = {"path": paths[name], "version": v}

    local = [n for n, *_ in ms if n in entries and n != "aisimulate-core"]
    dynamo_published = sorted(k for k in entries if k not in paths and k.startswith("dynamo-"))
    for k in dynamo_published:
        if pin == "1" and not entries[k]["version"].startswith("="):
            entries[k]["version"] = "=" + entries[k]["version"]
    replay = [k for k in ("aisimulate-core",) if k in entries]
    external = sorted(k for k in entries if k not in local and k not in dynamo_published and k not in replay)

    # --faithful: Dynamo's profiles, and its git patch (NAME=URL=REV,...) from the stand-in repository.
    faithful = os.environ.get("FIXTURE_FAITHFUL") == "1"
    git_patches = [g.split("=", 2) for g in os.environ.get("FIXTURE_GIT_PATCHES", "").split(",") if g]
    w = []
    w.append("# Root manifest of a kvparity test fixture, modeled on the one of NVIDIA Dynamo's repository")
    w.append("# (github.com/ai-dynamo/dynamo) and generated by kvparity's scripts/dynamo-checkout.sh from the")
    if faithful:
        w.append(f"# crates Dynamo published as {version}. Every library that release published from Dynamo's")
        w.append("# tree is a member; the profiles and the git patch are Dynamo's (scripts/dynamo-checkout.md).")
    else:
        w.append(f"# crates Dynamo published as {version}. Only the libraries dynamo-bench needs are members.")
    w.append("")
    w.append("[workspace]")
    w.append("members = [")
    for _, rel, _, _ in ms:
        w.append(f"    {q(rel)},")
    w.append("]")
    w.append('resolver = "3"')
    w.append("")
    w.append("[workspace.package]")
    for k in pkg_keys:
        w.append(f"{k} = {q(pkg_vals[k])}")
    w.append("")
    w.append("[workspace.dependencies]")
    w.append("# Local crates")
    for k in local:
        w.append(f"{k} = {inline(entries[k])}")
    if dynamo_published:
        w.append("")
        w.append("# Path members of Dynamo's repository that this checkout leaves out: their published crates")
        w.append("# (Cargo.lock holds them at this release, as a path would).")
        for k in dynamo_published:
            w.append(f"{k} = {inline(entries[k])}")
    if replay:
        w.append("")
        w.append("# Replay core (github.com/ai-dynamo/aisimulate)" +
                 (", here in the checkout as a path member" if "aisimulate-core" in paths else ""))
        for k in replay:
            w.append(f"{k} = {inline(entries[k])}")
    w.append("")
    w.append("# External dependencies")
    for k in external:
        w.append(f"{k} = {inline(entries[k])}")
    w.append("")
    if faithful:
        w.append("# Dynamo's profiles, as its root manifest has them.")
        w.append("[profile.dev.package]")
        w.append("insta.opt-level = 3")
        w.append("")
        w.append("[profile.release]")
        w.append("# These make the build much slower but shrink the binary, and could help performance")
        w.append("codegen-units = 1")
        w.append('lto = "thin"')
        w.append("")
        w.append("[profile.profiling]")
        w.append('inherits = "release"')
        w.append("debug = true")
        w.append("strip = false")
    else:
        w.append("[profile.release]")
        w.append('# Dynamo sets codegen-units = 1 and lto = "thin" here: a smaller, maybe faster binary for a')
        w.append("# build several times slower. The fixture only has to build quickly in tests, so it keeps")
        w.append("# cargo's defaults (codegen-units 16) and says so with an explicit lto = false.")
        w.append("lto = false")
    w.append("")
    w.append("# Like Dynamo's manifest, this one ends with [patch.crates-io].")
    if member_patches:
        w.append(f"# {', '.join(member_patches)}: the published crates above need it through the registry;")
        w.append("# in Dynamo's tree they use the path member, and so they do here.")
    w.append(f"# {patch_name}: a vendored copy ({patch_rel}) of the very version Cargo.lock pins, so")
    w.append("# nothing changes but where its source comes from.")
    if git_patches:
        w.append(f"# {', '.join(n for n, _, _ in git_patches)}: from a git repository at a fixed commit, as Dynamo takes")
        w.append("# them from github.com/lightseekorg/smg; here a local bare repository that holds the very versions")
        w.append("# the published dynamo-llm locks (made by dynamo-checkout.sh).")
    w.append("[patch.crates-io]")
    for m in member_patches:
        w.append(f"{m} = {inline({'path': paths[m]})}")
    w.append(f"{patch_name} = {inline({'path': patch_rel})}")
    for n, url, rev in git_patches:
        w.append(f"{n} = {inline({'git': url, 'rev': rev})}")
    with open(out, "w") as f:
        f.write("\n".join(w) + "\n")

def cmd_deps_match(workspace_meta, *pairs):
    """Every member NAME=PUBLISHED_METADATA depends on exactly what its published manifest says."""
    def specs(pkg):
        return sorted(json.dumps({k: (sorted(v) if k == "features" else v) for k, v in d.items()
                                  if k not in ("source", "path", "registry")}, sort_keys=True)
                      for d in pkg["dependencies"])
    ws = {p["name"]: p for p in load_json(workspace_meta)["packages"]}
    bad = 0
    for pair in pairs:
        name, meta = pair.split("=", 1)
        pub = [p for p in load_json(meta)["packages"] if p["name"] == name][0]
        # A dev-dependency on a path member without a version (dynamo-llm's on dynamo-bench) is
        # one that `cargo package` leaves out of the published manifest.
        own = dict(ws[name], dependencies=[d for d in ws[name]["dependencies"]
                                           if not (d["kind"] == "dev" and d["req"] == "*" and d["name"] in ws)])
        a, b = specs(own), specs(pub)
        for d in sorted(set(a) ^ set(b)):
            print(f"{name}: {'checkout' if d in a else 'published'} only: {d}", file=sys.stderr)
            bad += 1
    if bad:
        sys.exit(f"{bad} dependency specs of the checkout's members differ from the published manifests")

def cmd_registry_members(lock, *members):
    """Members that the lock also holds as registry packages (wanted by a published crate)."""
    print(",".join(sorted({p["name"] for p in load(lock)["package"] if p["name"] in members and p.get("source")})))

def cmd_lock_version(lock, name):
    vs = sorted({p["version"] for p in load(lock)["package"] if p["name"] == name})
    if len(vs) != 1:
        sys.exit(f"{lock}: {len(vs)} versions of {name} ({', '.join(vs)}): cannot tell which to patch")
    print(vs[0])

def cmd_lock_diff(published, new, *members):
    pub = [p for p in load(published)["package"] if p["name"] not in members]
    now = {(p["name"], p["version"]): p for p in load(new)["package"]}
    changed = [f"{p['name']} {p['version']}" for p in pub if (p["name"], p["version"]) not in now]
    resourced = [f"{p['name']} {p['version']}" for p in pub
                 if (p["name"], p["version"]) in now and now[(p["name"], p["version"])].get("source") != p.get("source")]
    pubkeys = {(p["name"], p["version"]) for p in load(published)["package"]}
    added = [k for k in now if k not in pubkeys]
    print(f"third-party packages in the published lock: {len(pub)}; changed versions: {len(changed)}"
          f"{' (' + ', '.join(changed) + ')' if changed else ''}; same version, other source: {len(resourced)}"
          f"{' (' + ', '.join(resourced) + ')' if resourced else ''}; packages added for the workspace: {len(added)}", file=sys.stderr)
    print(len(changed))

def cmd_restore_dropped(published, new, *members):
    """Puts back a third-party version of the published lock that the workspace's resolve dropped
    for another version of the same crate (1.4.2: prost-build 0.13.5's heck 0.4.1 became heck
    0.5.0 once a member's dev-dependency brought heck 0.5): the published dependents point at it
    again. `cargo metadata --locked` then checks that cargo accepts the lock as it stands."""
    pub = load(published)["package"]
    with open(new) as f:
        text = f.read()
    head, *blocks = text.split("\n[[package]]\n")
    now = load(new)["package"]
    have = {(p["name"], p["version"]) for p in now}
    names = {}
    for p in now:
        names.setdefault(p["name"], []).append(p["version"])
    pubnames = {}
    for p in pub:
        pubnames.setdefault(p["name"], []).append(p["version"])
    dropped = [p for p in pub if p.get("source") and p["name"] not in members
               and (p["name"], p["version"]) not in have and p["name"] in names]
    if os.environ.get("FIXTURE_FAITHFUL") == "1":
        # --faithful: a member's dev-dependency at the registry's newest can need a newer version
        # of a crate the release pinned (toml_datetime 1.1.1 -> 1.1.3): a lock holds one version
        # per compatible range, so only a version whose range the resolve left empty comes back.
        def compat(v):
            parts = [int(x) if x.isdigit() else x for x in v.split("+")[0].split("-")[0].split(".")]
            return tuple(parts[:1]) if parts[0] != 0 else tuple(parts[:2]) if parts[1] != 0 else tuple(parts[:3])
        dropped = [p for p in dropped if compat(p["version"]) not in {compat(v) for v in names[p["name"]]}]
    if not dropped:
        return
    def ref_version(refs, dep):  # "heck" or "heck 0.4.1" -> the version it names
        name, _, v = dep.partition(" ")
        return name, (v.split(" ")[0] if v else refs[name][0])
    wants = {}  # (dependent name, version) -> {dep name: version}
    for p in pub:
        for d in p.get("dependencies", []):
            n, v = ref_version(pubnames, d)
            if any(x["name"] == n and x["version"] == v for x in dropped):
                wants.setdefault((p["name"], p["version"]), {})[n] = v
    restored = {x["name"] for x in dropped}
    out = [head]
    for b in blocks:
        m = load_str(b)
        key = (m["name"], m["version"])
        lines = []
        for line in b.split("\n"):
            st = line.strip()
            if st.startswith('"') and st.endswith('",'):
                n, v = ref_version(names, st[1:-2])
                if n in restored:
                    v = wants.get(key, {}).get(n, v)
                    line = f' "{n} {v}",'
            lines.append(line)
        out.append("\n".join(lines))
    def order(block):  # cargo's: by name, then version
        m = load_str(block)
        return (m["name"], [int(p) if p.isdigit() else p for p in m["version"].replace("-", ".").split(".")])
    for x in dropped:
        entry = f'name = "{x["name"]}"\nversion = "{x["version"]}"\nsource = "{x["source"]}"'
        if "checksum" in x:
            entry += f'\nchecksum = "{x["checksum"]}"'
        if x.get("dependencies"):
            entry += "\ndependencies = [\n" + "".join(f' "{d}",\n' for d in x["dependencies"]) + "]"
        entry += "\n"
        at = next((i for i in range(1, len(out)) if order(out[i]) > order(entry)), len(out))
        if at == len(out):  # the last block has no blank line after it
            out[-1] = out[-1].rstrip("\n") + "\n"
            entry = entry.rstrip("\n") + "\n"
        out.insert(at, entry)
    print(f"restored from the published lock: {', '.join(x['name'] + ' ' + x['version'] for x in dropped)}", file=sys.stderr)
    with open(new, "w") as f:
        f.write("\n[[package]]\n".join(out))

def cmd_faithful_candidates(lock, version, *members):
    """The Dynamo libraries at exactly this release that the published dynamo-llm's lock holds
    (dynamo-llm itself included) and the fixture does not already have."""
    names = sorted({p["name"] for p in load(lock)["package"] if p["version"] == version
                    and p["name"].startswith(("dynamo-", "kvbm-")) and p["name"] not in members})
    print(" ".join(names))

def cmd_vcs_sha(info):
    print(load_json(info)["git"]["sha1"])

# Dynamo's root manifest's order of its libraries (a stored 1.2.0 copy); libraries it does not
# list (kv-hashing, truthy, router-plugins/builtin, rl, ...) go after the one they follow here.
DYNAMO_ORDER = ["lib/llm", "lib/runtime", "lib/config", "lib/tokenizers", "lib/tokens", "lib/kv-hashing",
                "lib/truthy", "lib/data-gen", "lib/mocker", "lib/kv-router", "lib/router-plugins/builtin",
                "lib/memory", "lib/kvbm-common", "lib/kvbm-config", "lib/kvbm-engine", "lib/kvbm-kernels",
                "lib/kvbm-logical", "lib/kvbm-physical", "lib/protocols", "lib/parsers", "lib/rl", "lib/bench"]

def cmd_member_order(*pairs):
    """NAME=REL pairs, printed as names in Dynamo's order (unknown paths before lib/bench, by path)."""
    def key(pair):
        rel = pair.split("=", 1)[1]
        if rel in DYNAMO_ORDER:
            return (DYNAMO_ORDER.index(rel), rel)
        return (DYNAMO_ORDER.index("lib/bench") - 0.5, rel)
    print(" ".join(p.split("=", 1)[0] for p in sorted(pairs, key=key)))

def cmd_merge_locks(out, *locks):
    """One lock of every package the published locks hold (--faithful: dynamo-bench's and
    dynamo-llm's, both cut by `cargo package` from the one lock of Dynamo's tree at the release,
    so a package both hold is the same version in both). Dependencies are written as NAME VERSION: one
    lock's lone version of a crate need not be the merged lock's only one."""
    pkgs = {}
    fmt = 1
    for path in locks:
        lock = load(path)
        fmt = max(fmt, lock.get("version", 1))
        versions = {}
        for p in lock["package"]:
            versions.setdefault(p["name"], []).append(p["version"])
        for p in lock["package"]:
            deps = []
            for d in p.get("dependencies", []):
                name, _, rest = d.partition(" ")
                deps.append(d if rest else f"{name} {versions[name][0]}")
            entry = dict(p, dependencies=deps) if deps else {k: v for k, v in p.items() if k != "dependencies"}
            key = (p["name"], p["version"], p.get("source"))
            if key in pkgs:
                # Each lock has the dependencies its own features turn on: the merged one has all.
                have = pkgs[key].get("dependencies", [])
                deps = have + [d for d in deps if d not in have]
                entry = dict(pkgs[key], dependencies=deps) if deps else pkgs[key]
            pkgs[key] = entry
    w = ["# This file is automatically @generated by Cargo.", "# It is not intended for manual editing.", f"version = {fmt}"]
    def vkey(k):
        return (k[0], [int(x) if x.isdigit() else x for x in k[1].replace("-", ".").replace("+", ".").split(".")], k[2] or "")
    for key in sorted(pkgs, key=vkey):
        p = pkgs[key]
        w.append("")
        w.append("[[package]]")
        for k in ("name", "version", "source", "checksum"):
            if k in p:
                w.append(f"{k} = {q(p[k])}")
        if p.get("dependencies"):
            w.append("dependencies = [")
            w.extend(f" {q(d)}," for d in p["dependencies"])
            w.append("]")
    with open(out, "w") as f:
        f.write("\n".join(w) + "\n")

def load_str(block):
    return tomllib.loads(block.split("\ndependencies = [")[0])

globals()["cmd_" + sys.argv[1].replace("-", "_")](*sys.argv[2:])
PYEOF
py() { python3 -c "$PY" "$@"; }

# fetch_crates NAME@VERSION...: makes sure $CACHE/NAME-VERSION holds each crate as published.
fetch_crates() {
	local missing=() spec name ver
	for spec in "$@"; do
		name="${spec%@*}" ver="${spec#*@}"
		[[ -d "$CACHE/$name-$ver" ]] || missing+=("$spec")
	done
	((${#missing[@]})) || return 0
	say "fetching ${missing[*]} from the package registry (cargo vendor) into $CACHE"
	local probe
	probe="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-fixture-probe.XXXXXX")"
	TMPDIRS+=("$probe")
	mkdir -p "$probe/src" "$CACHE"
	: >"$probe/src/lib.rs"
	{
		printf '[package]\nname = "kvparity-fixture-probe"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n'
		for spec in "${missing[@]}"; do
			printf '%s = { version = "=%s", default-features = false }\n' "${spec%@*}" "${spec#*@}"
		done
	} >"$probe/Cargo.toml"
	(cd "$probe" && cargo vendor --versioned-dirs vendor >/dev/null 2>"$probe/vendor.log") ||
		{ cat "$probe/vendor.log" >&2; die "cargo vendor of ${missing[*]} failed"; }
	for spec in "${missing[@]}"; do
		name="${spec%@*}" ver="${spec#*@}"
		[[ -d "$probe/vendor/$name-$ver" ]] || die "cargo vendor brought no $name-$ver"
		rm -rf "$CACHE/.partial-$name-$ver"
		cp -R "$probe/vendor/$name-$ver" "$CACHE/.partial-$name-$ver"
		rm -f "$CACHE/.partial-$name-$ver/.cargo-checksum.json" # vendoring's own file, not the crate's
		mv "$CACHE/.partial-$name-$ver" "$CACHE/$name-$ver"      # whole or absent
	done
}

specs=()
for m in "${MEMBERS[@]}"; do specs+=("$m@$VERSION"); done
[[ -z "$CORE" ]] || specs+=("$CORE")
fetch_crates "${specs[@]}"
PUBLISHED_LOCK="$CACHE/dynamo-bench-$VERSION/Cargo.lock"
[[ -f "$PUBLISHED_LOCK" ]] || die "dynamo-bench $VERSION ships no Cargo.lock ($PUBLISHED_LOCK)"
PATCH_VERSION="$(py lock-version "$PUBLISHED_LOCK" "$PATCH_CRATE")"
fetch_crates "$PATCH_CRATE@$PATCH_VERSION"

# --faithful: the members are every library the release published from Dynamo's tree (the
# crates at this version in the published dynamo-llm's lock whose .cargo_vcs_info.json names the
# release commit), in Dynamo's order; the git patch's crates are the versions that lock pins.
GIT_PATCH_CRATES=(llm-multimodal llm-tokenizer)
if ((FAITHFUL)); then
	fetch_crates "dynamo-llm@$VERSION"
	LLM_LOCK="$CACHE/dynamo-llm-$VERSION/Cargo.lock"
	[[ -f "$LLM_LOCK" ]] || die "dynamo-llm $VERSION ships no Cargo.lock ($LLM_LOCK)"
	release="$(py vcs-sha "$CACHE/dynamo-bench-$VERSION/.cargo_vcs_info.json")"
	read -r -a extra <<<"$(py faithful-candidates "$LLM_LOCK" "$VERSION" "${MEMBERS[@]}")"
	extra_specs=()
	for m in "${extra[@]}"; do extra_specs+=("$m@$VERSION"); done
	((${#extra_specs[@]})) && fetch_crates "${extra_specs[@]}"
	pairs=()
	for m in "${MEMBERS[@]}" "${extra[@]}"; do
		info="$CACHE/$m-$VERSION/.cargo_vcs_info.json"
		sha="$(py vcs-sha "$info")"
		if [[ "$sha" != "$release" ]]; then
			say "--faithful: $m $VERSION was published from $sha, not the release commit $release: left a registry crate"
			continue
		fi
		pairs+=("$m=$(py vcs-path "$info")")
	done
	read -r -a MEMBERS <<<"$(py member-order "${pairs[@]}")"
	say "--faithful: ${#MEMBERS[@]} members: ${MEMBERS[*]}"
	git_specs=()
	for n in "${GIT_PATCH_CRATES[@]}"; do git_specs+=("$n@$(py lock-version "$LLM_LOCK" "$n")"); done
	fetch_crates "${git_specs[@]}"
fi

mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-fixture.XXXXXX")"
TMPDIRS+=("$TMP")

# --faithful: the stand-in for the git repository Dynamo patches crates from (lightseekorg/smg):
# a bare repository with one commit (fixed author and date) that holds the published crates,
# each in a folder of its name, with its normalized manifest (it stands alone). Its place is
# fixed, as the file:// URL goes into the checkout's manifest and lock; a repository already
# there gains the commit when it lacks it.
if ((FAITHFUL)); then
	GIT_ROOT="${KVPARITY_FIXTURE_GIT:-/tmp/kvparity-fixture-git}"
	[[ "$GIT_ROOT" == /* ]] || die "KVPARITY_FIXTURE_GIT must be an absolute path: $GIT_ROOT"
	stage="$TMP/smg"
	for spec in "${git_specs[@]}"; do
		name="${spec%@*}" ver="${spec#*@}"
		mkdir -p "$stage/$name"
		cp -R "$CACHE/$name-$ver/." "$stage/$name/"
		rm -f "$stage/$name/.cargo_vcs_info.json" "$stage/$name/.cargo-checksum.json" "$stage/$name/.cargo-ok" \
			"$stage/$name/Cargo.lock" "$stage/$name/Cargo.toml.orig"
	done
	git -C "$stage" init -q -b main
	git -C "$stage" add -A
	GIT_AUTHOR_DATE="2025-12-01T00:00:00+0000" GIT_COMMITTER_DATE="2025-12-01T00:00:00+0000" \
		git -C "$stage" commit -q -m "${git_specs[*]}, as published (kvparity fixture: a stand-in for lightseekorg/smg)"
	git_rev="$(git -C "$stage" rev-parse HEAD)"
	# One repository for every release: each crate set's commit on a branch named after it.
	bare="$GIT_ROOT/smg.git"
	branch="published/$(IFS=_; echo "${git_specs[*]}" | tr @ -)"
	if [[ ! -e "$bare" ]]; then
		mkdir -p "$GIT_ROOT"
		rm -rf "$GIT_ROOT/.partial-smg-$$.git"
		git init -q --bare "$GIT_ROOT/.partial-smg-$$.git"
		mv -T "$GIT_ROOT/.partial-smg-$$.git" "$bare" 2>/dev/null || rm -rf "$GIT_ROOT/.partial-smg-$$.git" # else another run made it
	fi
	if ! git --git-dir "$bare" cat-file -e "$git_rev^{commit}" 2>/dev/null; then
		git --git-dir "$bare" fetch -q "$stage" "+HEAD:refs/heads/$branch" ||
			die "could not add commit $git_rev to $bare: remove it, or set KVPARITY_FIXTURE_GIT to another folder"
		say "added ${git_specs[*]} to the git patch's repository $bare (commit $git_rev, branch $branch)"
	fi
	git_patches=()
	for n in "${GIT_PATCH_CRATES[@]}"; do git_patches+=("$n=file://$bare=$git_rev"); done
	export FIXTURE_FAITHFUL=1
	FIXTURE_GIT_PATCHES="$(IFS=,; echo "${git_patches[*]}")"
	export FIXTURE_GIT_PATCHES
fi
if ((FAITHFUL)); then
	# The lock starts from every package the published dynamo-bench and dynamo-llm lock: the
	# release's pins for the whole tree the workspace resolves, not the registry's newest.
	py merge-locks "$TMP/published.lock" "$PUBLISHED_LOCK" "$LLM_LOCK"
	PUBLISHED_LOCK="$TMP/published.lock"
fi
say "laying out $DEST"

# place SRC REL: copies a published crate to REL as it is in the repository: the manifest as
# written there (Cargo.toml.orig), without the files packaging added (normalized Cargo.toml,
# the package's own Cargo.lock, .cargo_vcs_info.json).
place() {
	local src="$1" rel="$2"
	mkdir -p "$DEST/$rel"
	cp -R "$src/." "$DEST/$rel/"
	rm -f "$DEST/$rel/.cargo_vcs_info.json" "$DEST/$rel/.cargo-checksum.json" "$DEST/$rel/.cargo-ok" \
		"$DEST/$rel/Cargo.lock" "$DEST/$rel/Cargo.toml"
	mv "$DEST/$rel/Cargo.toml.orig" "$DEST/$rel/Cargo.toml"
}

member_args=()
member_names=()
for m in "${MEMBERS[@]}"; do
	src="$CACHE/$m-$VERSION"
	rel="$(py vcs-path "$src/.cargo_vcs_info.json")"
	[[ "$rel" == lib/* ]] || die "$m $VERSION says it lives at $rel in Dynamo's repository, not under lib/"
	place "$src" "$rel"
	member_args+=("$m=$rel=$DEST/$rel/Cargo.toml=$src/Cargo.toml")
	member_names+=("$m")
done
if ((CORE_PATH)); then
	# aisimulate-core lives in another repository (ai-dynamo/aisimulate, crates/core), whose
	# workspace its Cargo.toml.orig inherits from: the normalized manifest stands alone.
	src="$CACHE/${CORE%@*}-${CORE#*@}"
	rel=lib/aisimulate-core
	mkdir -p "$DEST/$rel"
	cp -R "$src/." "$DEST/$rel/"
	rm -f "$DEST/$rel/.cargo_vcs_info.json" "$DEST/$rel/.cargo-checksum.json" "$DEST/$rel/.cargo-ok" \
		"$DEST/$rel/Cargo.lock" "$DEST/$rel/Cargo.toml.orig"
	member_args+=("${CORE%@*}=$rel==$src/Cargo.toml")
	member_names+=("${CORE%@*}")
fi
PATCH_REL="third_party/$PATCH_CRATE"
mkdir -p "$DEST/$PATCH_REL"
cp -R "$CACHE/$PATCH_CRATE-$PATCH_VERSION/." "$DEST/$PATCH_REL/"
rm -f "$DEST/$PATCH_REL/.cargo-checksum.json" "$DEST/$PATCH_REL/.cargo-ok"

py root-manifest "$DEST/Cargo.toml" "$VERSION" 1 "$PATCH_CRATE" "$PATCH_REL" "" "${member_args[@]}"
printf '/target\n' >"$DEST/.gitignore"
cat >"$DEST/README.md" <<EOF
# kvparity fixture: a Dynamo-shaped checkout

Not NVIDIA Dynamo's repository: a test fixture made by kvparity's scripts/dynamo-checkout.sh
from the crates Dynamo published as $VERSION, laid out where they live in Dynamo's tree.
EOF
# --faithful: the non-Rust part beside the workspace, where Dynamo has its Python bindings. Not
# a workspace member and no Cargo project: plain Python, so no cargo build ever sees it.
if ((FAITHFUL)); then
	py_dir="$DEST/lib/bindings/python"
	mkdir -p "$py_dir/src/dynamo"
	cat >"$py_dir/pyproject.toml" <<EOF
# kvparity fixture: stands where Dynamo's Python bindings are (lib/bindings/python), outside the
# Cargo workspace. Dynamo's build a Rust extension with maturin; this package is plain Python.
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "ai-dynamo-runtime"
version = "$VERSION"
description = "kvparity fixture: a stand-in for Dynamo's Python bindings, not NVIDIA's package"
requires-python = ">=3.10"

[tool.setuptools.packages.find]
where = ["src"]
EOF
	cat >"$py_dir/src/dynamo/__init__.py" <<EOF
"""kvparity fixture: a stand-in for Dynamo's Python package (lib/bindings/python)."""

__version__ = "$VERSION"
EOF
	printf '__pycache__/\n*.egg-info/\n' >>"$DEST/.gitignore"
	cat >>"$DEST/README.md" <<EOF

With --faithful: every library $VERSION published from Dynamo's tree, Dynamo's release profile
and git patch, and a Python package at lib/bindings/python.
EOF
fi

# Cargo.lock: the published one, completed by cargo for the workspace (path members, and the
# optional dependencies a workspace resolves that a lone package's lock leaves out).
complete_lock() {
	cp "$PUBLISHED_LOCK" "$DEST/Cargo.lock"
	say "completing Cargo.lock for the workspace (cargo metadata)"
	(cd "$DEST" && cargo metadata --format-version 1 >/dev/null 2>"$TMP/metadata.log") ||
		{ cat "$TMP/metadata.log" >&2; die "cargo metadata in $DEST failed"; }
}
complete_lock
# A published crate outside the checkout (dynamo-runtime) that needs a member would bring a second,
# registry copy of it: patch crates-io with the members it names, and resolve again.
member_patches="$(py registry-members "$DEST/Cargo.lock" "${member_names[@]}")"
if [[ -n "$member_patches" ]]; then
	say "patching crates-io with the members $member_patches"
	py root-manifest "$DEST/Cargo.toml" "$VERSION" 1 "$PATCH_CRATE" "$PATCH_REL" "$member_patches" "${member_args[@]}"
	complete_lock
	[[ -z "$(py registry-members "$DEST/Cargo.lock" "${member_names[@]}")" ]] ||
		die "Cargo.lock still holds registry copies of members after patching crates-io"
fi
# --faithful: only where no compatible version is left. The members' dev-dependencies that
# neither published lock holds (dynamo-runtime's rstest, ...) come at the registry's newest, and
# some need a newer version of a crate the release pinned (toml_datetime): cargo's upgrade
# stands, and lock-diff counts it.
py restore-dropped "$PUBLISHED_LOCK" "$DEST/Cargo.lock" "${member_names[@]}"
# The manifest as committed requires what the published manifests require (dynamo-runtime ^VERSION);
# the lock, completed under the pin, already satisfies it and must not change.
py root-manifest "$DEST/Cargo.toml" "$VERSION" 0 "$PATCH_CRATE" "$PATCH_REL" "$member_patches" "${member_args[@]}"
(cd "$DEST" && cargo metadata --locked --offline --format-version 1 >/dev/null) ||
	die "cargo metadata --locked --offline in $DEST failed: Cargo.lock is not complete"
# The inherited dependencies must come out as the published manifests have them.
(cd "$DEST" && cargo metadata --no-deps --locked --offline --format-version 1 >"$TMP/ws.json")
pairs=()
for m in "${MEMBERS[@]}"; do
	cargo metadata --no-deps --offline --format-version 1 --manifest-path "$CACHE/$m-$VERSION/Cargo.toml" >"$TMP/$m.json"
	pairs+=("$m=$TMP/$m.json")
done
py deps-match "$TMP/ws.json" "${pairs[@]}"
changed="$(py lock-diff "$PUBLISHED_LOCK" "$DEST/Cargo.lock" "${member_names[@]}")"
[[ "$changed" == 0 ]] || ((FAITHFUL)) || die "Cargo.lock changed $changed versions of the published lock"

faithful_note=""
((!FAITHFUL)) || faithful_note=", --faithful"
git -C "$DEST" init -q -b main
git -C "$DEST" add -A
GIT_AUTHOR_DATE="2026-01-01T00:00:00+0000" GIT_COMMITTER_DATE="2026-01-01T00:00:00+0000" \
	git -C "$DEST" commit -q -m "Dynamo $VERSION libraries, as published (kvparity fixture$faithful_note)"
base="$(git -C "$DEST" rev-parse HEAD)"

edit_file="$DEST/lib/kv-router/src/lib.rs"
[[ -f "$edit_file" ]] || die "$edit_file is missing"
printf '// kvparity fixture: a behaviour-neutral one-line edit, so tests have a second commit.\n' >>"$edit_file"
git -C "$DEST" add lib/kv-router/src/lib.rs
GIT_AUTHOR_DATE="2026-01-02T00:00:00+0000" GIT_COMMITTER_DATE="2026-01-02T00:00:00+0000" \
	git -C "$DEST" commit -q -m "kv-router: a comment line (behaviour-neutral)"
edit="$(git -C "$DEST" rev-parse HEAD)"

echo "base=$base"
echo "edit=$edit"
