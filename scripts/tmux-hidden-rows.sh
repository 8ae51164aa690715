#!/usr/bin/env bash
# tmux-hidden-rows.sh: the workbench never hides a row silently (issue 27), shown in a real
# terminal at 80x24 and 110x34 (or $SIZES). Builds kvparity and, per size, starts it in a
# detached tmux session on a row of the built-in engine written to a temp dir: the tiny row's
# trace and replay arguments, three repetitions per arm, the candidate the built-in
# leak-random-uuid variant (a random request uuid per process: UNSTABLE, so the diff pane
# opens with a diagnosis). It presses S, waits for the verdict, then drives the workbench to
# each hidden-row case and prints every screen under a heading:
#
#   1 UNSTABLE      the clipped panes count what they hide and name the key (determinism
#                   "+N more (z zooms)", lifecycle "↓ N more", pressure "+N more", the diff
#                   list "↑ N ↓ M more row(s)")
#   2 diagnosis     i opens the diagnosis: its evidence is cut at three lines with
#                   "+N more (I shows the whole diagnosis)"
#   3 whole         I shows every cause and all its evidence ("random UUIDv4 pattern" among it),
#                   the selected cause's patterns, and the lines above or below counted
#   4 cover         c there drafts a record for the cause: its patterns (those of the pointers
#                   the diagnosis says it accounts for) and the count of what they cover
#   5 zoomed        z on the determinism pane shows every row (and the UNSTABLE arm's)
#
# and checks those words are on the screens; it exits 1 if one is missing.
#
# usage: scripts/tmux-hidden-rows.sh            (from anywhere in the repository)
# env:   KVPARITY_BIN=path   use this binary instead of building one
#        SIZES="80x24 110x34"  terminal sizes (default both)
#        CAPTURE_DIR=dir     also write each screen there as <size>-<n>-<case>.txt
#        TIMEOUT=seconds     how long to wait for the determinism verdict (default 180)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-hidden.XXXXXX")"
sock="kvparity-hidden-$$"
session="wb"
timeout="${TIMEOUT:-180}"
sizes="${SIZES:-80x24 110x34}"

cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

command -v tmux >/dev/null || { echo "tmux-hidden-rows: tmux is not installed" >&2; exit 2; }

bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$work/kvparity"
	(cd "$root" && go build -o "$bin" .)
fi

# The tiny row with the leaking candidate (rows/tiny.toml, its candidate the leak-random-uuid
# variant, three repetitions, no pressure band): the built-in engine for both arms.
sed -e 's/^name = .*/name = "leak-random-uuid-tiny"/' -e '/^\[candidate\]/a variant  = "leak-random-uuid"' \
	-e 's/^repetitions = .*/repetitions = 3/' -e '/^pressure_band/d' "$root/rows/tiny.toml" >"$work/leak.toml"

capture() { tmux -L "$sock" capture-pane -p -t "$session"; }
# wait_for PATTERN [TENTHS] polls the screen until PATTERN shows (5 s by default); it does not
# fail: the checks after it do.
wait_for() { for _ in $(seq 1 "${2:-50}"); do capture | grep -qE -- "$1" && return 0; sleep 0.1; done; }
key() { tmux -L "$sock" send-keys -t "$session" "$@"; sleep 0.7; }

fail=0
# shot SIZE N CASE PATTERN... prints the screen under a heading, keeps it, and checks that
# every extended regular expression PATTERN is on it.
shot() {
	local size="$1" n="$2" what="$3"
	shift 3
	local screen
	screen="$(capture)"
	printf '=== %s · %s. %s\n%s\n\n' "$size" "$n" "$what" "$screen"
	[[ -n "${CAPTURE_DIR:-}" ]] && mkdir -p "$CAPTURE_DIR" && printf '%s\n' "$screen" >"$CAPTURE_DIR/$size-$n-${what%%[ :]*}.txt"
	for want in "$@"; do
		if ! grep -qE -- "$want" <<<"$screen"; then
			echo "tmux-hidden-rows: FAIL at $size, $n ($what): /$want/ is not on the screen" >&2
			fail=1
		fi
	done
}

for size in $sizes; do
	cols="${size%x*}"
	rows="${size#*x}"
	tmux -L "$sock" kill-server 2>/dev/null || true
	# A private tmux server (-L): the user's sessions are never touched.
	tmux -L "$sock" -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" \
		"cd '$work' && '$bin' '$work/leak.toml' --campaign '$work/campaign-$size'; echo \"kvparity exited with status \$?\"; sleep 60"
	wait_for "press S to start the determinism stage" 100
	key S
	wait_for "cand UNSTABLE" $((timeout * 10))
	sleep 2 # the diff pane opens on the disagreeing pair

	shot "$size" 1 "UNSTABLE: clipped panes count what they hide" \
		"cand UNSTABLE" "DETERMINISM .*(more|≠)" "LIFECYCLE .*↓ [0-9]+ more \(z zooms\)" "[↑↓] [0-9]+.* more row\(s\)"
	key i
	shot "$size" 2 "diagnosis (i): +N more" "\+[0-9]+ more \(I shows the whole diagnosis\)"
	key i
	key I
	shot "$size" 3 "whole diagnosis (I)" "DIAGNOSIS: [0-9]+ cause" "▸ 1\. id / uuid drift" "c covers it · its patterns: "
	key PgDn
	shot "$size" 3b "whole diagnosis, page down" "random UUIDv4 pattern"
	key c
	sleep 1 # the form counts what the patterns cover off the update loop
	shot "$size" 4 "cover this cause (c): the drafted record" "/per_request/\*/uuid" "covers [0-9]+ of [0-9]+ differing pointers"
	key Escape
	key Escape
	# From the diff pane, tab gives the determinism pane focus; z zooms it.
	key Tab
	key z
	shot "$size" 5 "determinism pane zoomed (z): every row" "base#1" "cand#3" "cand UNSTABLE"
	key z
	key q
	wait_for "kvparity exited with status" 100
done

if ((fail)); then
	echo "tmux-hidden-rows: FAIL (see above)" >&2
	exit 1
fi
echo "tmux-hidden-rows: PASS (every hidden-row case says how much more there is and how to see it, at $sizes)"
