#!/usr/bin/env bash
# desk-digests.sh OUT [ROW.toml ...]
#
# The desk profile's claim, shown on real Dynamo (issue 44 item 2): a desk build's determinism
# and parity verdicts carry over to the release build because the replay's outputs do not depend
# on the profile. For each row (default: the shipped rows of real Dynamo — the 1.5.1-vs-1.6.1
# row, the 1.6.1 slowdown-10 row and the four authoritative rows), two copies are written to OUT:
# ROW-release (the row as shipped) and ROW-desk (both arms with profile = "desk"), each with its
# perturbations off (the plain repetitions' digests are what is compared), and each runs
# `kvparity run --stage determinism --json` into OUT/campaigns. Every arm's repetitions must give
# one digest, the same under both profiles.
#
# The release builds come from the build cache when a campaign built them before; the desk
# builds compile the registry's crates once per crate version in the desk profile (target/
# kvparity-desk beside target/release in the same lineage), then the variants only what they
# change. Each build's time is printed from its build.json.
#
# stdout: one line per row and arm, "ROW ARM release=DIGEST12 desk=DIGEST12 equal|DIFFERENT",
# then the build times; the last line is "desk-digests: N of N arms equal". Exit 1 when any
# digest differs or a run fails.
set -euo pipefail

die() { echo "desk-digests: $*" >&2; exit 1; }
say() { echo "desk-digests: $*" >&2; }

(($# >= 1)) || die "usage: desk-digests.sh OUT [ROW.toml ...]"
out="$1"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
rows=("$@")
if ((${#rows[@]} == 0)); then
	rows=("$root/rows/dynamo-1.5.1-vs-1.6.1.toml" "$root/rows/dynamo-1.6.1-slowdown-10.toml" "$root"/rows/authoritative/*.toml)
fi
mkdir -p "$out/rows" "$out/campaigns" "$out/json"
bin="$out/kvparity"
(cd "$root" && go build -o "$bin" .)

# write_copy ROW PROFILE: the row with its name suffixed, perturbations off and, for desk,
# profile = "desk" after each arm's features.
write_copy() {
	python3 - "$1" "$2" "$out/rows" <<'PY'
import os, re, sys
src, profile, dest = sys.argv[1:]
text = open(src).read()
name = re.search(r'^name\s*=\s*"([^"]+)"', text, re.M).group(1)
text = re.sub(r'^name\s*=\s*"[^"]+"', f'name = "{name}-{profile}"', text, count=1, flags=re.M)
def table(text, head, edit):
    m = re.search(r'^\[' + re.escape(head) + r'\]\n(.*?)(?=^\[|\Z)', text, re.M | re.S)
    if not m:
        sys.exit(f"desk-digests: {src}: no [{head}] table")
    return text[:m.start(1)] + edit(m.group(1)) + text[m.end(1):]
if profile == "desk":
    for arm in ("baseline", "candidate"):
        text = table(text, arm, lambda body: re.sub(r'^(features\s*=.*)$', r'\1\nprofile  = "desk"', body, count=1, flags=re.M))
def perturbations_off(body):
    body, n = re.subn(r'^perturbations\s*=.*$', 'perturbations = []', body, flags=re.M)
    return body if n else 'perturbations = []\n' + body
text = table(text, "determinism", perturbations_off)
path = os.path.join(dest, f"{name}-{profile}.toml")
open(path, "w").write(text)
print(path)
PY
}

fail=0
for row in "${rows[@]}"; do
	for profile in release desk; do
		copy="$(write_copy "$row" "$profile")"
		name="$(basename "$copy" .toml)"
		say "$name: determinism"
		start=$(date +%s)
		status=0
		"$bin" run "$copy" --stage determinism --json --campaign "$out/campaigns/$name" >"$out/json/$name.json" 2>"$out/json/$name.err" || status=$?
		say "$name: exit $status after $(($(date +%s) - start)) s"
		if ((status != 0 && status != 1)); then
			tail -5 "$out/json/$name.err" >&2
			fail=1
		fi
	done
done

python3 - "$out" "${rows[@]}" <<'PY' || fail=1
import json, os, re, sys
out, rows = sys.argv[1], sys.argv[2:]
total = equal = 0
builds = {}
bad = False
for row in rows:
    name = re.search(r'^name\s*=\s*"([^"]+)"', open(row).read(), re.M).group(1)
    docs = {}
    for profile in ("release", "desk"):
        try:
            docs[profile] = json.load(open(os.path.join(out, "json", f"{name}-{profile}.json")))
        except Exception as e:
            print(f"{name}: {profile}: no result ({e})")
            bad = True
    if len(docs) < 2:
        continue
    for arm in ("baseline", "candidate"):
        digests = {}
        for profile, d in docs.items():
            ds = {r.get("digest") for r in d["arms"][arm]["runs"] if r.get("digest")}
            digests[profile] = ds
        total += 1
        same = len(digests["release"]) == 1 and digests["release"] == digests["desk"]
        equal += same
        show = lambda ds: ",".join(sorted(x[:12] for x in ds)) or "none"
        print(f"{name} {arm} release={show(digests['release'])} desk={show(digests['desk'])} {'equal' if same else 'DIFFERENT'}")
    for profile in ("release", "desk"):
        camp = os.path.join(out, "campaigns", f"{name}-{profile}")
        try:
            arts = json.load(open(os.path.join(camp, "artifacts.json")))
        except Exception:
            continue
        for a in arts["artifacts"]:
            b = a.get("build") or {}
            key = (b.get("source"), b.get("variant", ""), b.get("build_profile", "release") or "release")
            if b and key not in builds:
                builds[key] = (b.get("build_seconds", 0), b.get("cached", False), b.get("compiled_units", 0))
for (src, variant, profile), (secs, cached, units) in sorted(builds.items(), key=lambda kv: [str(x) for x in kv[0]]):
    print(f"build {src}{' ' + variant if variant else ''} {profile}: {secs:.0f} s, {units} units compiled{' (cached)' if cached else ''}")
print(f"desk-digests: {equal} of {total} arms equal")
sys.exit(0 if equal == total and not bad else 1)
PY
exit $fail
