#!/usr/bin/env bash
# tmux-perf.sh: the performance stage in a real terminal (issue 27). Builds kvparity, opens the
# workbench on a built-in row in a detached tmux session, presses S (determinism), then p (the
# paired performance stage), waits for the perf verdict and prints the screen: the compact
# ratio plot with its labels, the bounds and the gate. Then writes the campaign report and
# prints the sizes of summary.md and report.md and the plots made (plots/*.svg, *.png).
#
# usage: scripts/tmux-perf.sh
# env:   KVPARITY_BIN=path   use this binary instead of building one
#        ROW=default|tiny    the built-in row (default: default)
#        SIZE=WxH            terminal size (default 100x30)
#        CAMPAIGN=dir        keep the campaign there (default: a temporary folder, removed)
#        TIMEOUT=seconds     how long the perf stage may take (default 900)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-perf.XXXXXX")"
sock="kvparity-perf-$$"
size="${SIZE:-100x30}"
row="${ROW:-default}"
campaign="${CAMPAIGN:-$work/campaign}"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
command -v tmux >/dev/null || { echo "tmux-perf: tmux is not installed" >&2; exit 2; }
bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$work/kvparity"
	(cd "$root" && go build -o "$bin" .)
fi
tmux -L "$sock" -f /dev/null new-session -d -s wb -x "${size%x*}" -y "${size#*x}" \
	"'$bin' --row '$row' --campaign '$campaign'; echo \"kvparity exited with status \$?\"; sleep 30"
capture() { tmux -L "$sock" capture-pane -p -t wb; }
wait_for() { # pattern, seconds
	local deadline=$((SECONDS + $2))
	while ((SECONDS < deadline)); do capture | grep -q -- "$1" && return 0; sleep 0.5; done
	return 1
}
wait_for "DETERMINISM" 60 || { echo "tmux-perf: FAIL: the workbench did not open" >&2; capture >&2; exit 1; }
tmux -L "$sock" send-keys -t wb S
wait_for "parity PASS\|parity FAIL" 600 || { echo "tmux-perf: FAIL: no parity verdict" >&2; capture >&2; exit 1; }
tmux -L "$sock" send-keys -t wb p
fail=0
if ! wait_for "perf \(PASS\|FAIL\|INCONCLUSIVE\|BLOCKED\)" "${TIMEOUT:-900}"; then
	echo "tmux-perf: FAIL: no perf verdict in ${TIMEOUT:-900} s" >&2
	fail=1
fi
sleep 1
screen="$(capture)"
echo "=== $row row, $size, after the performance stage"
echo "$screen"
tmux -L "$sock" send-keys -t wb q
sleep 1
"$bin" report "$campaign" >/dev/null
echo "=== report: summary.md $(wc -c <"$campaign/summary.md") bytes, report.md $(wc -c <"$campaign/report.md") bytes; plots:"
ls "$campaign/plots" 2>/dev/null | tr '\n' ' '
echo
grep -q "ratio" <<<"$screen" || { echo "tmux-perf: FAIL: no ratio plot on the screen" >&2; fail=1; }
exit "$fail"
