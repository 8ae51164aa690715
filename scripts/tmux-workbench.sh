#!/usr/bin/env bash
# tmux-workbench.sh: the workbench in a real terminal. Builds kvparity, starts it in a detached
# 100x30 (or $SIZE) tmux session on the tiny built-in row (campaign in a temp dir), presses S (start the
# determinism stage), waits for the verdict words, captures the pane and checks them on screen:
# STABLE for both arms and parity PASS. Then checks the one key map: ? lists the focused pane's
# keys before the workbench's, z zooms the focused pane and back, x with nothing running says so
# (x is stop stage in every pane), esc clears the message, v shows the verdicts. Then presses q
# and checks the workbench exits.
#
# usage: scripts/tmux-workbench.sh            (from anywhere in the repository)
# env:   KVPARITY_BIN=path   use this binary instead of building one
#        CAPTURE_OUT=file    also copy the final capture there
#        TIMEOUT=seconds     how long to wait for the verdict (default 120)
#        SIZE=WxH            terminal size (default 100x30; 80x24 checks the collapsed layout)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-tmux.XXXXXX")"
sock="kvparity-$$"
session="wb"
timeout="${TIMEOUT:-120}"
size="${SIZE:-100x30}"
cols="${size%x*}"
rows="${size#*x}"

cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

command -v tmux >/dev/null || { echo "tmux-workbench: tmux is not installed" >&2; exit 2; }

bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$work/kvparity"
	(cd "$root" && go build -o "$bin" .)
fi

# A private tmux server (-L) so the test never touches the user's sessions. The shell wrapper
# keeps the pane open after kvparity exits so its exit status can be read.
tmux -L "$sock" -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" \
	"cd '$work' && '$bin' --row tiny --campaign '$work/campaign'; echo \"kvparity exited with status \$?\"; sleep 30"

capture() { tmux -L "$sock" capture-pane -p -t "$session"; }
# wait_for PATTERN [TENTHS] polls the screen until PATTERN shows (at most TENTHS tenths of a
# second, 5 s by default); wait_gone waits for it to leave. Neither fails: the check after does.
wait_for() { for _ in $(seq 1 "${2:-50}"); do capture | grep -q -- "$1" && return 0; sleep 0.1; done; }
wait_gone() { for _ in $(seq 1 "${2:-50}"); do capture | grep -q -- "$1" || return 0; sleep 0.1; done; }

# Wait for the workbench to draw its first frame, then start the determinism stage.
wait_for "press S to start the determinism stage" 100
tmux -L "$sock" send-keys -t "$session" S

screen=""
deadline=$((SECONDS + timeout))
while ((SECONDS < deadline)); do
	screen="$(capture)"
	if grep -q "parity PASS" <<<"$screen" && grep -q "semantic PASS" <<<"$screen"; then
		break
	fi
	if grep -qE "UNSTABLE|parity FAIL|BLOCKED|replay error" <<<"$screen"; then
		break
	fi
	sleep 0.5
done
sleep 0.5 # let the last frame land
screen="$(capture)"
echo "$screen"
[[ -n "${CAPTURE_OUT:-}" ]] && printf '%s\n' "$screen" >"$CAPTURE_OUT"

fail=0
# The determinism pane's words, and the header's verdicts (the campaign report's words).
for word in "base STABLE" "cand STABLE" "parity PASS" "semantic PASS"; do
	if ! grep -q "$word" <<<"$screen"; then
		echo "tmux-workbench: FAIL: \"$word\" is not on the screen" >&2
		fail=1
	fi
done
((fail)) && exit 1

# ? lists the focused pane's keys first, then the workbench's (the same in every pane).
tmux -L "$sock" send-keys -t "$session" '?'
wait_for "WORKBENCH KEYS"
help_screen="$(capture)"
[[ -n "${CAPTURE_OUT:-}" ]] && printf '%s\n' "$help_screen" >"${CAPTURE_OUT%.txt}-help.txt"
pane_at="$(grep -n "DETERMINISM KEYS" <<<"$help_screen" | head -1 | cut -d: -f1)"
global_at="$(grep -n "WORKBENCH KEYS" <<<"$help_screen" | head -1 | cut -d: -f1)"
if [[ -z "$pane_at" || -z "$global_at" || "$pane_at" -ge "$global_at" ]] || ! grep -q "x stop stage" <<<"$help_screen"; then
	echo "$help_screen"
	echo "tmux-workbench: FAIL: ? did not list the focused pane's keys before the workbench's" >&2
	exit 1
fi
tmux -L "$sock" send-keys -t "$session" Escape
sleep 0.5

# z gives the focused pane the whole screen, z again gives every pane back.
tmux -L "$sock" send-keys -t "$session" z
wait_for "zoomed to the whole screen"
if capture | grep -q "LIFECYCLE"; then
	capture
	echo "tmux-workbench: FAIL: z did not zoom the focused pane" >&2
	exit 1
fi
tmux -L "$sock" send-keys -t "$session" z
wait_for "LIFECYCLE"

# x is stop stage whatever has focus; with nothing running it says so, and esc clears it.
# The status line reads " no stage is running"; the log's copy of it starts with "»".
tmux -L "$sock" send-keys -t "$session" x
wait_for "^ no stage is running"
capture | grep -q "^ no stage is running" || { capture; echo "tmux-workbench: FAIL: x gave no word" >&2; exit 1; }
tmux -L "$sock" send-keys -t "$session" Escape
sleep 0.5
if capture | grep -q "^ no stage is running"; then
	capture
	echo "tmux-workbench: FAIL: esc did not clear the status line" >&2
	exit 1
fi

# v opens every verdict's reason; esc closes it.
tmux -L "$sock" send-keys -t "$session" v
wait_for "VERDICTS (the campaign report's words"
overlay="$(capture)"
[[ -n "${CAPTURE_OUT:-}" ]] && printf '%s\n' "$overlay" >"${CAPTURE_OUT%.txt}-verdicts.txt"
if ! grep -q "all canonical outputs match byte for byte" <<<"$overlay" || ! grep -q "semantic           PASS" <<<"$overlay"; then
	echo "$overlay"
	echo "tmux-workbench: FAIL: v did not show the verdicts with their reasons" >&2
	exit 1
fi
tmux -L "$sock" send-keys -t "$session" Escape
sleep 0.5 # an escape followed at once by q would arrive as alt+q
wait_gone "VERDICTS (the campaign"

# q with nothing running quits at once; the campaign must have been closed cleanly.
tmux -L "$sock" send-keys -t "$session" q
wait_for "kvparity exited with status" 100
status_line="$(capture | grep "kvparity exited with status" || true)"
if [[ "$status_line" != *"status 0"* ]]; then
	echo "tmux-workbench: FAIL: the workbench did not exit cleanly after q (${status_line:-still running})" >&2
	exit 1
fi
[[ -s "$work/campaign/journal.jsonl" ]] || { echo "tmux-workbench: FAIL: no campaign journal" >&2; exit 1; }
echo "tmux-workbench: PASS (STABLE, parity PASS on screen; ? z x esc v keep their meaning; clean quit)"
