#!/usr/bin/env bash
# clone-builds.sh OUT
#
# A second clone's first build (issue 44 item 4): a lineage is a repository's (its root commits),
# not a checkout path's, so a clone at another path builds in the first clone's kept folders.
# Makes the Dynamo-shaped checkout (scripts/dynamo-checkout.sh) at OUT/a/dynamo and builds its
# desk row (init-row --checkout: HEAD against the working tree) — every dependency, unless an
# earlier build of the same repository is in the build cache, which is what each new clone path
# paid before; then `git clone` of it at OUT/b/dynamo, built the same way; then another clone at
# OUT/c/dynamo with the desk loop's one-line router edit in its working tree.
#
# stdout: per clone, the wall time of `kvparity build` (both arms) and the load, then each arm's
# build time, units compiled and fresh, lineage and whether it was incremental. Everything is
# written under OUT; the builds go to the build cache as usual.
set -euo pipefail

die() { echo "clone-builds: $*" >&2; exit 1; }
(($# == 1)) || die "usage: clone-builds.sh OUT"
out="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
[[ ! -e "$out/a" && ! -e "$out/b" && ! -e "$out/c" ]] || die "$out already holds a run (a, b or c): name a new folder"
mkdir -p "$out/a" "$out/b" "$out/c"
bin="$out/kvparity"
(cd "$root" && go build -o "$bin" .)
now() { date +%s.%N; }

bash "$root/scripts/dynamo-checkout.sh" "$out/a/dynamo" >"$out/a/shas.txt"
git clone -q "$out/a/dynamo" "$out/b/dynamo"
git clone -q "$out/a/dynamo" "$out/c/dynamo"
python3 - "$out/c/dynamo/lib/kv-router/src/scheduling/selector/default.rs" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
a = "let adjusted_prefill_blocks = (load.raw_prefill_blocks - overlap_credit_blocks).max(0.0);"
if a not in s:
    sys.exit(f"clone-builds: the cost line is not in {p}")
open(p, "w").write(s.replace(a, "let adjusted_prefill_blocks = load.raw_prefill_blocks;", 1))
PY

for c in a b c; do
	"$bin" init-row --checkout "$out/$c/dynamo" -o "$out/$c/row.toml" 2>/dev/null
	t=$(now)
	"$bin" build "$out/$c/row.toml" --json >"$out/$c/build.json" 2>"$out/$c/build.err" || { tail -20 "$out/$c/build.err" >&2; exit 1; }
	echo "clone $c: kvparity build (both arms) $(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s wall; load $(cut -d' ' -f1-3 /proc/loadavg)"
	python3 - "$out/$c/build.json" <<'PY'
import json, sys
for arm, b in json.load(open(sys.argv[1])).items():
    print(f"  {arm}: {b['build_seconds']:.1f} s, {b['compiled_units']} units compiled, {b.get('fresh_units', 0)} fresh, "
          f"{b['lineage']}, incremental {b.get('incremental', False)}")
PY
done
