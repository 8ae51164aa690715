#!/usr/bin/env bash
# desk-loop.sh: the desk loop on a Dynamo checkout, in a real terminal, timed (issue 23).
#
# Builds kvparity and a checkout shaped like Dynamo's (scripts/dynamo-checkout.sh, from the
# published 1.5.1 crates), writes its desk-loop row (kvparity init-row --checkout: baseline
# HEAD, candidate the working tree), builds both arms (the first build of the checkout compiles
# everything; it is reported, not counted), and opens the workbench in a detached tmux session.
# There it presses S (determinism: both arms STABLE, parity PASS), then w (watch), then makes a
# one-line edit in lib/kv-router (the router's worker cost stops crediting the blocks a worker
# already caches: a routing regression) and waits for the new verdict and diff on screen. It prints the
# captured screens and the phases timed from the file write:
#
#   settle+snapshot   the edit until the rebuild starts (watch's debounce, the snapshot)
#   build             kvparity's incremental rebuild of the candidate (its build record)
#   pin               re-pinning it as the next generation (the journal's stale/pinned records)
#   determinism       the new generation's repetitions until the parity verdict
#   on screen         the verdict drawn in the workbench
#
# and then the rebuild-time ratio against plain incremental cargo for the same one-line change,
# run in the same kept folder with the same arguments and environment.
#
# usage: scripts/desk-loop.sh [--faithful]
#   --faithful           the checkout is dynamo-checkout.sh --faithful: Dynamo's release profile
#                        (thin LTO, one codegen unit), its breadth and its git patch; the row is
#                        written with init-row --profile release (unless PROFILE says otherwise),
#                        so the rebuilds are timed with that profile, kvparity's and plain cargo's
#                        (default LIMIT_S 1800, DESK_DIR ~/.cache/kvparity/desk-loop-faithful)
# env:   KVPARITY_BIN=path   use this binary instead of building one
#        CHECKOUT_ARGS=...   extra arguments of dynamo-checkout.sh (e.g. --core-path)
#        PROFILE=desk|release  the row's build profile (init-row --profile; default: init-row's
#                            desk, release with --faithful)
#        SIZE=WxH            terminal size (default 100x30)
#        CAPTURE_OUT=file    also write the captures and the phase table there
#        KEEP=1              keep the work folder (printed)
#        LIMIT_S=90          fail when edit → verdict on screen takes longer (1800 with --faithful)
#        DESK_DIR=dir        where the checkout is made (default ~/.cache/kvparity/desk-loop):
#                            a fixed place, so its lineage (kept build folders) serves the next
#                            run and only the first run compiles everything; its dynamo/ is
#                            deleted and made again only when this script made it (a marker in
#                            its .git, scripts/fixture-marker.sh), else the script refuses
set -euo pipefail

faithful=0
for arg in "$@"; do
	case "$arg" in
	--faithful) faithful=1 ;;
	*) echo "desk-loop: unknown argument $arg (usage: scripts/desk-loop.sh [--faithful])" >&2; exit 2 ;;
	esac
done
checkout_args="${CHECKOUT_ARGS:-}"
((!faithful)) || checkout_args="${checkout_args:+$checkout_args }--faithful"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=fixture-marker.sh
source "$root/scripts/fixture-marker.sh"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-desk.XXXXXX")"
sock="kvparity-desk-$$"
size="${SIZE:-100x30}"
limit="${LIMIT_S:-$( ((faithful)) && echo 1800 || echo 90)}"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	if [[ -n "${KEEP:-}" ]]; then echo "desk-loop: work folder kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
command -v tmux >/dev/null || { echo "desk-loop: tmux is not installed" >&2; exit 2; }
command -v cargo >/dev/null || { echo "desk-loop: cargo is not installed" >&2; exit 2; }

bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$work/kvparity"
	(cd "$root" && go build -o "$bin" .)
fi
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# ---- the checkout, its row and the first build (reported, not counted) ----
# The folder is named after the checkout's options (desk-loop-core-path, desk-loop-faithful):
# each shape keeps its own lineage.
suffix=""
for a in $checkout_args; do suffix+="-${a#--}"; done
desk="${DESK_DIR:-$HOME/.cache/kvparity/desk-loop}$suffix"
checkout="$desk/dynamo"
fixture_clear "$checkout" desk-loop.sh DESK_DIR
mkdir -p "$desk"
# shellcheck disable=SC2086
bash "$root/scripts/dynamo-checkout.sh" "$checkout" $checkout_args >"$work/fixture.out" 2>"$work/fixture.err" ||
	{ cat "$work/fixture.err" >&2; exit 1; }
fixture_mark "$checkout" desk-loop.sh
# A commit naming this run, so the first build is never a cache hit. A hit pins the binary an
# earlier run built from the same tree but leaves the lineage's kept target folder where the
# last build in this folder left it (CI's core-path shape, a bisect probe), and the timed
# rebuild would then pay for that difference as well as the edit (stop 32's CI: 202 files,
# 176.8 s against plain cargo's 82.2 s). The file is outside every crate, so cargo ignores it.
date -u +%FT%T.%NZ >"$checkout/desk-loop-run.txt"
git -C "$checkout" add desk-loop-run.txt
GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$checkout" \
	-c user.name="kvparity desk loop" -c user.email="desk-loop@kvparity.invalid" commit -q -m "desk loop run"
mkdir -p "$work/rows"
profile="${PROFILE:-}"
((!faithful)) || profile="${profile:-release}"
profile_args=()
[[ -z "$profile" ]] || profile_args=(--profile "$profile")
"$bin" init-row --checkout "$checkout" "${profile_args[@]}" -o "$work/rows/desk.toml" 2>/dev/null
echo "=== checkout: $checkout ($(grep -E '^(base|edit)=' "$work/fixture.out" | tr '\n' ' ')$checkout_args); load: $(uptime)"
t=$(now)
"$bin" build "$work/rows/desk.toml" >"$work/build.out" 2>"$work/build.err" || { tail -30 "$work/build.err" >&2; exit 1; }
echo "=== first build of both arms: $(since "$t" "$(now)") s; load: $(uptime)"
cat "$work/build.out"

# ---- the workbench ----
campaign="$work/campaign"
tmux -L "$sock" -f /dev/null new-session -d -s wb -x "${size%x*}" -y "${size#*x}" \
	"'$bin' '$work/rows/desk.toml' --campaign '$campaign'; echo \"kvparity exited with status \$?\"; sleep 60"
capture() { tmux -L "$sock" capture-pane -p -t wb; }
wait_for() { # pattern, seconds
	local deadline=$((SECONDS + $2))
	while ((SECONDS < deadline)); do capture | grep -q -- "$1" && return 0; sleep 0.2; done
	return 1
}
fail=0
wait_for "DETERMINISM" 120 || { echo "desk-loop: FAIL: the workbench did not open" >&2; capture >&2; exit 1; }
tmux -L "$sock" send-keys -t wb S
wait_for "parity PASS" 600 || { echo "desk-loop: FAIL: no parity PASS before the edit" >&2; capture >&2; exit 1; }
before="$(capture)"
tmux -L "$sock" send-keys -t wb w
wait_for "watch on\|watching" 20 || true
sleep 1

# ---- the one-line edit ----
file="$checkout/lib/kv-router/src/scheduling/selector/default.rs"
line='let adjusted_prefill_blocks = (load.raw_prefill_blocks - overlap_credit_blocks).max(0.0);'
edited='let adjusted_prefill_blocks = load.raw_prefill_blocks;'
grep -qF "$line" "$file" || { echo "desk-loop: the cost line is not in $file" >&2; exit 1; }
replace() { python3 -c 'import sys; p, a, b = sys.argv[1:]; s = open(p).read(); assert a in s, a; open(p, "w").write(s.replace(a, b, 1))' "$@"; }
# The run's time in a comment on the same line: the edit is new to the build cache on every run
# (a real rebuild), and no line moves.
t0=$(now)
replace "$file" "$line" "$edited // desk-loop $t0"
journal="$campaign/journal.jsonl"
ok=0
for _ in $(seq 1 $((limit * 5 + 4500))); do # the second parity verdict: the new generation's (15 min past the limit at most)
	if (($(grep -c '"type":"verdict".*"stage":"parity"' "$journal") >= 2)); then ok=1; break; fi
	sleep 0.2
done
wait_for "parity FAIL\|parity PASS" 30 || true
t_screen=$(now)
sleep 2 # the diff pane loads the focused diff after the verdict
after="$(capture)"
((ok)) || { echo "desk-loop: FAIL: no second parity verdict in the journal" >&2; fail=1; }

# ---- phases ----
read -r stale_at pinned_at parity_at gen build_s units fresh changed entry < <(python3 "$root/scripts/desk-loop-phases.py" "$journal")
rebuilt="$entry/build.json"
lineage="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["lineage"])' "$rebuilt")"
build_start=$(awk -v s="$stale_at" -v b="$build_s" 'BEGIN { printf "%.3f", s - b }')
table="phase                      seconds (from the file write)
settle+snapshot            $(since "$t0" "$build_start")
build (incremental)        $(awk -v b="$build_s" 'BEGIN { printf "%.1f", b }')   ($units units compiled, $fresh fresh, $changed source files changed)
pin (generation $gen)         $(since "$stale_at" "$pinned_at")
determinism + parity       $(since "$pinned_at" "$parity_at")
verdict on screen          $(since "$t0" "$t_screen")   (total, edit → new verdict drawn)"
echo "=== before w: the first determinism stage"
echo "$before"
echo "=== after the edit: the new verdict and diff"
echo "$after"
echo "=== phases"
echo "$table"
total=$(since "$t0" "$t_screen")
if awk -v t="$total" -v l="$limit" 'BEGIN { exit !(t > l) }'; then
	echo "desk-loop: FAIL: edit → verdict took $total s (limit $limit s)" >&2
	fail=1
fi
tmux -L "$sock" send-keys -t wb q

# ---- plain incremental cargo for the same change, in the same kept folder ----
src="$(dirname "$(dirname "$rebuilt")")/$lineage/src"
mapfile -t args < <(python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["command"][1:]))' "$rebuilt")
target="$(dirname "$src")/target"
lfile="$src/lib/kv-router/src/scheduling/selector/default.rs"
plain() {
	(cd "$src" && CARGO_TARGET_DIR="$target" CARGO_TERM_COLOR=never CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo "${args[@]}" >/dev/null 2>&1)
}
cp "$lfile" "$work/edited.rs"
replace "$lfile" "$edited // desk-loop $t0" "$line"
plain # back to the base (not timed)
cp "$work/edited.rs" "$lfile"
t=$(now)
plain
plain_s=$(since "$t" "$(now)")
ratio=$(awk -v a="$build_s" -v b="$plain_s" 'BEGIN { printf "%.2f", a / b }')
echo "=== load after the plain rebuild: $(uptime)"
echo "=== the rebuild's profile (its build.json; plain cargo ran the same command): $(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print((d.get("build_profile") or "release") + " · " + d["profile"])' "$rebuilt")"
echo "=== rebuild time: kvparity $(awk -v b="$build_s" 'BEGIN { printf "%.1f", b }') s, plain incremental cargo $plain_s s for the same change: ratio $ratio (target ≤ 1.3)"
[[ -n "${CAPTURE_OUT:-}" ]] && printf '%s\n\n%s\n\n%s\n\nrebuild ratio %s (kvparity %s s, plain cargo %s s)\n' "$before" "$after" "$table" "$ratio" "$build_s" "$plain_s" >"$CAPTURE_OUT"
exit "$fail"
