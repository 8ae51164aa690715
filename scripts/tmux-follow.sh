#!/usr/bin/env bash
# tmux-follow.sh: `kvparity open` following a headless perf stage live (issue 25). Builds
# kvparity, starts `kvparity run --stage perf` headless on a built-in row in the background,
# and once its perf runs have started opens the same campaign in the workbench in a detached
# tmux session. Checks, from the captured screens, that the workbench says it is read-only and
# names the writer's pid, that the perf pane moves while the writer measures, and that a stage
# key (p) is refused with the writer's name. Then stops the writer with SIGTERM (as a user's
# Ctrl-C would) and checks that the journal records the interruption as the stage's end, that
# no replay was killed as a stray, and that the workbench says the writer ended. Prints the
# captures.
#
# usage: scripts/tmux-follow.sh            (from anywhere in the repository)
# env:   KVPARITY_BIN=path   use this binary instead of building one
#        ROW=default|tiny    the built-in row (default: default, whose perf stage lasts minutes;
#                            tiny's may end before the workbench has drawn)
#        SIZE=WxH            terminal size (default 100x30)
#        CAPTURE_OUT=file    also write the captures there
#        TIMEOUT=seconds     how long the writer may take to reach its first perf run (default 300)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-follow.XXXXXX")"
sock="kvparity-follow-$$"
size="${SIZE:-100x30}"
row="${ROW:-default}"
writer=""

cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	[[ -n "$writer" ]] && kill -TERM "$writer" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
command -v tmux >/dev/null || { echo "tmux-follow: tmux is not installed" >&2; exit 2; }

bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$work/kvparity"
	(cd "$root" && go build -o "$bin" .)
fi
campaign="$work/campaign"

"$bin" run --row "$row" --campaign "$campaign" --stage perf >"$work/run.out" 2>"$work/run.err" &
writer=$!
# Wait until the writer measures (its first warmup or sample has started).
for _ in $(seq 1 $((${TIMEOUT:-300} * 10))); do
	grep -q '"kind":"\(warmup\|sample\)"' "$campaign/journal.jsonl" 2>/dev/null && break
	sleep 0.1
done

tmux -L "$sock" -f /dev/null new-session -d -s wb -x "${size%x*}" -y "${size#*x}" \
	"'$bin' open '$campaign'; echo \"kvparity exited with status \$?\"; sleep 30"
capture() { tmux -L "$sock" capture-pane -p -t wb; }
wait_for() { for _ in $(seq 1 "${2:-50}"); do capture | grep -q -- "$1" && return 0; sleep 0.1; done; }

fail=0
check() { grep -q -- "$2" <<<"$1" || { echo "tmux-follow: FAIL: \"$2\" is not on the screen" >&2; fail=1; }; }

wait_for "READ-ONLY" 100
first="$(capture)"
echo "=== the workbench following the headless perf stage (writer pid $writer)"
echo "$first"
check "$first" "READ-ONLY: following kvparity pid $writer"
sleep 8
second="$(capture)"
echo "=== 8 s later"
echo "$second"
# The perf pane follows the writer: what it says of the pairs (valid, attempted, invalidated)
# changes from one capture to the next while the writer measures.
perfpane() { grep -oE 'pairs [0-9]+/[0-9]+.*|[0-9]+ attempts for pair [0-9]+|[0-9]+ invalidated.*|perf (PASS|FAIL|INCONCLUSIVE)' <<<"$1" | sed 's/│.*//'; }
if [[ "$(perfpane "$first")" == "$(perfpane "$second")" ]] && kill -0 "$writer" 2>/dev/null; then
	echo "tmux-follow: FAIL: the perf pane did not move in 8 s of the writer's stage" >&2
	fail=1
fi
tmux -L "$sock" send-keys -t wb p
# Not "refused": the READ-ONLY mark already says "stage keys are refused".
wait_for "start performance refused" 50
refused="$(capture)"
echo "=== after p"
echo "$refused"
if kill -0 "$writer" 2>/dev/null; then
	check "$refused" "is being written by"
else
	check "$refused" "which has ended"
fi
tmux -L "$sock" send-keys -t wb Escape

stopped=0
kill -TERM "$writer" 2>/dev/null && stopped=1
status=0
wait "$writer" || status=$?
writer=""
echo "=== headless run exited $status ($( ((stopped)) && echo "stopped by SIGTERM" || echo "it had finished")); its summary:"
tail -12 "$work/run.out"
if ((stopped)) && ! tail -1 "$campaign/journal.jsonl" | grep -q '"type":"stage_end".*"reason":"terminated signal received"'; then
	echo "tmux-follow: FAIL: the journal's last record is not the stage's end recording SIGTERM: $(tail -1 "$campaign/journal.jsonl")" >&2
	fail=1
fi
if grep -q '"signal":"killed"' "$campaign/journal.jsonl"; then
	echo "tmux-follow: FAIL: a replay of the followed run was killed by a signal" >&2
	fail=1
fi
wait_for "the kvparity it followed (pid" 100
last="$(capture)"
echo "=== after the writer ended"
echo "$last"
check "$last" "the kvparity it followed (pid"
[[ -n "${CAPTURE_OUT:-}" ]] && printf '%s\n\n%s\n\n%s\n\n%s\n' "$first" "$second" "$refused" "$last" >"$CAPTURE_OUT"
tmux -L "$sock" send-keys -t wb q
exit "$fail"
