#!/usr/bin/env bash
# checkout-shape.sh [--core-path]: one checkout shape of Dynamo's built and run end to end with
# real cargo (issue 23). Makes the fixture checkout (scripts/dynamo-checkout.sh, the given
# shape), writes its desk-loop row (kvparity init-row --checkout: HEAD against the working
# tree), builds both arms and runs the determinism stage headless: both arms must be STABLE
# and, the working tree being HEAD's content, parity PASS. Prints kvparity's summary and the
# build records' shape facts (the replay core edited, the patch table, the profile).
#
# The checkout is made in a fixed folder (~/.cache/kvparity/shape-SHAPE, $DESK_DIR-SHAPE, or
# $CHECKOUT itself) so its lineage serves the next run; the campaign goes to a temporary folder.
# CI sets CHECKOUT to the desk loop's checkout folder: the desk loop then rebuilds the other
# shape in the same lineage, where the dependencies this run compiled are reused.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shape=plain
[[ "${1:-}" == "--core-path" ]] && shape=core-path
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-shape.XXXXXX")"
trap 'rm -rf "$work"' EXIT
bin="${KVPARITY_BIN:-$work/kvparity}"
[[ -n "${KVPARITY_BIN:-}" ]] || (cd "$root" && go build -o "$bin" .)
# shellcheck source=fixture-marker.sh
source "$root/scripts/fixture-marker.sh"
checkout="${CHECKOUT:-${DESK_DIR:-$HOME/.cache/kvparity/shape}-$shape/dynamo}"
# Deleted and made again only when a fixture script made it (its marker), like desk-loop.sh's:
# CI points CHECKOUT at the desk loop's folder, which the desk loop then remakes.
fixture_clear "$checkout" checkout-shape.sh CHECKOUT
mkdir -p "$(dirname "$checkout")"
bash "$root/scripts/dynamo-checkout.sh" "$checkout" ${1:-} >/dev/null
fixture_mark "$checkout" checkout-shape.sh
"$bin" init-row --checkout "$checkout" -o "$work/row.toml" 2>/dev/null
"$bin" build "$work/row.toml" --json >"$work/builds.json"
python3 - "$work/builds.json" <<'PY'
import json, sys
for arm, b in json.load(open(sys.argv[1])).items():
    patch = open(b["applied_patch"]).read()
    core = [l for l in patch.splitlines() if l.startswith("--- a/") and "replayer.rs" in l]
    print(f"{arm:9} {b['source'][:60]} · {b['compiled_units']} units compiled, {b.get('fresh_units', 0)} fresh · {b['build_seconds']:.0f} s")
    print(f"          replay core edited: {core[0][6:] if core else '?'} · profile: {b['profile'][:70]}")
PY
status=0
"$bin" run "$work/row.toml" --campaign "$work/campaign" --stage determinism >"$work/run.out" 2>"$work/run.err" || status=$?
tail -12 "$work/run.out"
if ((status != 0)); then
	echo "checkout-shape $shape: FAIL: kvparity run exited $status" >&2
	tail -20 "$work/run.err" >&2
	exit 1
fi
echo "checkout-shape $shape: PASS (both arms STABLE, parity PASS)"
