#!/usr/bin/env bash
# bisect-fixture.sh: kvparity bisect over a real history with real cargo (issue 24). Makes the
# Dynamo-shaped checkout (scripts/dynamo-checkout.sh: base, then a comment in lib/kv-router) and
# adds seven commits with fixed authors and dates, so the SHAs are the same everywhere:
#
#   c1 edit      (dynamo-checkout.sh's) a comment line in lib/kv-router/src/lib.rs
#   c2 comment   a comment line in lib/bench
#   c3 comment   a comment line in lib/kv-router/src/lib.rs
#   c4 broken    a line in lib/kv-router/src/lib.rs that does not compile
#   c5 fixed     c4's line removed
#   c6 tiebreak  the router's tie-break: `if cost < best_cost {` -> `if cost <= best_cost {` in
#                lib/kv-router/src/scheduling/selector/default.rs (a later equal-cost worker wins)
#   c7 comment   a comment line in lib/bench
#   c8 comment   a comment line in lib/kv-router/src/lib.rs
#
# then runs `kvparity bisect ROW --good base --bad c8` (the row: kvparity init-row --checkout
# --candidate HEAD) and checks it names c6 as the first bad commit and skips c4 as not building.
# (The search probes c8, then c4, the middle: the broken commit is met, not stepped over.)
# Prints the bisect's text, the number of builds, the time of each step and the whole run.
#
# JUDGE=instructions bisects with the instruction judge (one callgrind count per arm, needs
# valgrind): c6 is then a slowdown instead of the tie-break, extra work in the router's cost loops
# (`let cost = get_candidate_score(worker);` -> `... + black_box(fold over 0..6000) * 0.0`:
# outputs unchanged), and the bisect must name it. LOAD="stress-ng --cpu 2" runs that command beside the bisect
# (killed at the end): the instruction judge must name the same commit on a loaded machine.
#
# VIEW=1 runs the bisect under its view (kvparity bisect --view) in a detached tmux session
# of SIZE (default 100x30) and prints two screens: one while a probe runs, and the end; it
# checks the view names the first bad commit and the result's text is printed when it closes
# (CAPTURE_OUT=file keeps the screens). TIMEOUT (default 1800 s) bounds the wait.
#
# The checkout is made in a fixed folder (~/.cache/kvparity/bisect-fixture, or $BISECT_DIR) so
# its lineage (the kept target folder) serves the next run; the bisect folder is temporary. Its
# dynamo/ is deleted and made again only when this script made it (a marker in its .git,
# scripts/fixture-marker.sh), else the script refuses.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=fixture-marker.sh
source "$root/scripts/fixture-marker.sh"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-bisect.XXXXXX")"
trap 'rm -rf "$work"' EXIT
bin="${KVPARITY_BIN:-$work/kvparity}"
[[ -n "${KVPARITY_BIN:-}" ]] || (cd "$root" && go build -o "$bin" .)
checkout="${BISECT_DIR:-$HOME/.cache/kvparity/bisect-fixture}/dynamo"
fixture_clear "$checkout" bisect-fixture.sh BISECT_DIR
mkdir -p "$(dirname "$checkout")"
bash "$root/scripts/dynamo-checkout.sh" "$checkout" >"$work/fixture.out"
fixture_mark "$checkout" bisect-fixture.sh
base="$(sed -n 's/^base=//p' "$work/fixture.out")"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="kvparity fixture" GIT_AUTHOR_EMAIL="fixture@kvparity.invalid"
export GIT_COMMITTER_NAME="kvparity fixture" GIT_COMMITTER_EMAIL="fixture@kvparity.invalid"
commit() { # message: commits every change on the next fixed day (base is day 1, its edit day 2)
	local day=$((1 + $(git -C "$checkout" rev-list --count HEAD)))
	git -C "$checkout" add -A
	GIT_AUTHOR_DATE="2026-01-$(printf %02d $day)T00:00:00+0000" GIT_COMMITTER_DATE="2026-01-$(printf %02d $day)T00:00:00+0000" \
		git -C "$checkout" commit -q -m "$1"
	git -C "$checkout" rev-parse HEAD
}
router="$checkout/lib/kv-router/src/lib.rs"
bench="$(ls "$checkout"/lib/bench/*.rs "$checkout"/lib/bench/*/*.rs 2>/dev/null | head -1)"
selector="$checkout/lib/kv-router/src/scheduling/selector/default.rs"
grep -q 'if cost < best_cost {' "$selector" || { echo "bisect-fixture: $selector has no 'if cost < best_cost {'" >&2; exit 1; }
printf '// kvparity fixture: c2, a comment.\n' >>"$bench"
c2="$(commit "bench: a comment line")"
printf '// kvparity fixture: c3, a comment.\n' >>"$router"
c3="$(commit "kv-router: a comment line")"
printf 'const KVPARITY_FIXTURE_BROKEN: u32 = "not a number";\n' >>"$router"
c4="$(commit "kv-router: a constant that does not compile")"
sed -i '$d' "$router"
c5="$(commit "kv-router: remove the constant that did not compile")"
judge="${JUDGE:-semantic}"
if [[ "$judge" == instructions ]]; then
	# The replay-bench build routes through pick_default_worker's seeded loop
	# (get_candidate_score); the unseeded loop (get_score) gets the same work.
	grep -q 'let cost = get_candidate_score(worker);' "$selector" || { echo "bisect-fixture: $selector has no 'let cost = get_candidate_score(worker);'" >&2; exit 1; }
	extra='std::hint::black_box((0..6000u64).fold(0u64, |a, b| a ^ std::hint::black_box(b))) as f64 * 0.0'
	sed -i -e "s/let cost = get_candidate_score(worker);/let cost = get_candidate_score(worker) + $extra;/" \
		-e "s/let cost = get_score(worker, config);/let cost = get_score(worker, config) + $extra;/" "$selector"
	c6="$(commit "kv-router: extra work in the cost loop (a slowdown, outputs unchanged)")"
else
	sed -i 's/if cost < best_cost {/if cost <= best_cost {/' "$selector"
	c6="$(commit "kv-router: a later worker of equal cost wins the tie")"
fi
printf '// kvparity fixture: c7, a comment.\n' >>"$bench"
c7="$(commit "bench: another comment line")"
printf '// kvparity fixture: c8, a comment.\n' >>"$router"
c8="$(commit "kv-router: another comment line")"

"$bin" init-row --checkout "$checkout" --candidate HEAD -o "$work/row.toml" 2>/dev/null
if [[ -n "${LOAD:-}" ]]; then
	read -ra loadcmd <<<"$LOAD"
	"${loadcmd[@]}" >/dev/null 2>&1 &
	loadpid=$!
	trap 'kill "$loadpid" 2>/dev/null || true; rm -rf "$work"' EXIT
	echo "bisect-fixture: running beside: $LOAD (pid $loadpid)"
fi
t0=$(date +%s)
status=0
if [[ -n "${VIEW:-}" ]]; then
	# The bisect view in a real terminal: a screen while a probe runs, and the end.
	command -v tmux >/dev/null || { echo "bisect-fixture: VIEW needs tmux" >&2; exit 2; }
	sock="kvparity-bisect-$$"
	size="${SIZE:-100x30}"
	trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
	tmux -L "$sock" -f /dev/null new-session -d -s b -x "${size%x*}" -y "${size#*x}" \
		"'$bin' bisect '$work/row.toml' --good $base --bad $c8 --dir '$work/bisect' --judge $judge --view 2>'$work/bisect.err'; echo \"kvparity bisect exited with status \$?\" >'$work/status'; sleep 60"
	capture() { tmux -L "$sock" capture-pane -p -t b; }
	wait_for() { # pattern, seconds
		local deadline=$((SECONDS + $2))
		while ((SECONDS < deadline)); do capture | grep -q -- "$1" && return 0; sleep 1; done
		return 1
	}
	shots="${CAPTURE_OUT:-$work/captures.txt}"
	: >"$shots"
	if wait_for "running its probe campaign" "${TIMEOUT:-1800}"; then
		{ echo "---- the bisect view while a probe runs ($(( $(date +%s) - t0 )) s) ----"; capture; } | tee -a "$shots"
	fi
	wait_for "FIRST BAD\|ambiguous:\|undecided:\|not_reproduced:\|bisect stopped" "${TIMEOUT:-1800}" ||
		{ echo "bisect-fixture: the view showed no end in time" >&2; capture >&2; tail -30 "$work/bisect.err" >&2; exit 1; }
	t1=$(date +%s)
	{ echo "---- the bisect view at the end ($((t1 - t0)) s) ----"; capture; } | tee -a "$shots"
	grep -q "FIRST BAD" <(capture) || { echo "bisect-fixture: the view names no first bad commit" >&2; exit 1; }
	tmux -L "$sock" send-keys -t b q
	for _ in $(seq 1 20); do [[ -s "$work/status" ]] && break; sleep 0.5; done
	status=$(sed -n 's/.*status //p' "$work/status")
	capture | grep -q "first bad commit" || { echo "bisect-fixture: the result's text was not printed after the view" >&2; capture >&2; exit 1; }
	"$bin" bisect "$work/row.toml" --good "$base" --bad "$c8" --dir "$work/bisect" --judge "$judge" >"$work/bisect.out" 2>>"$work/bisect.err" || true
else
	"$bin" bisect "$work/row.toml" --good "$base" --bad "$c8" --dir "$work/bisect" --judge "$judge" >"$work/bisect.out" 2>"$work/bisect.err" || status=$?
	t1=$(date +%s)
fi
((status == 1)) || { echo "bisect-fixture: kvparity bisect exited $status (1: a first bad commit named)" >&2; tail -30 "$work/bisect.err" >&2; }
"$bin" bisect "$work/row.toml" --good "$base" --bad "$c8" --dir "$work/bisect" --judge "$judge" --json >"$work/bisect.json" 2>/dev/null || true
cat "$work/bisect.out"
python3 - "$work/bisect.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["steps"]:
    b = s.get("build") or {}
    print(f"step {s['step']} {s['commit'][:12]} {s['outcome']:4} probe {s['seconds']:.0f} s, build {b.get('seconds', 0):.0f} s ({b.get('compiled_units', 0)} units{', incremental' if b.get('incremental') else ''})")
print(f"{len(r['steps'])} probes, {r['builds']} builds compiled (plus the good commit's)")
PY
echo "bisect: $((t1 - t0)) s, exit status $status, judge $judge, load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/bisect.json" "$c4" "$c6" "$judge" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
broken, tiebreak, judge = sys.argv[2], sys.argv[3], sys.argv[4]
for s in r["steps"]:
    i = s.get("instructions")
    if i:
        print(f"step {s['step']} {s['commit'][:12]} instruction ratio {i['ratio']:.5f} ({i['baseline']['median']} -> {i['candidate']['median']})")
skipped = [s for s in r["steps"] if s["commit"] == broken]
ok = r["status"] == "found" and r["first_bad"]["sha"] == tiebreak and len(skipped) == 1 and \
    skipped[0]["outcome"] == "skip" and "does not build" in skipped[0]["why"]
first = (r.get("first_bad") or {}).get("sha", "none")
want = "the slowdown" if judge == "instructions" else "the tie-break"
print(f"bisect-fixture: {'PASS' if ok else 'FAIL'}: judge {judge}, first bad {first[:12]} (want {want} {tiebreak[:12]}); broken commit {broken[:12]} {'probed and skipped' if skipped else 'not probed'}")
sys.exit(0 if ok else 1)
PY
