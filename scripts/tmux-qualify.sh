#!/usr/bin/env bash
# tmux-qualify.sh: kvparity qualify --view in a real terminal (issue 37). Builds kvparity, writes
# a built-in row of the golden vLLM disaggregated template on the Mooncake conversation trace's
# rows 0–4,999 (seed 5,500 blocks: the embedded engine gives too few preemptions there, so the
# search has to walk), runs `kvparity qualify ROW --view` in a detached tmux session, prints the
# screen while a probe runs and when the outcome is shown, then quits and prints what qualify
# printed after the view closed (the probe table) and its exit status.
#
# usage: scripts/tmux-qualify.sh
# env:   KVPARITY_BIN=path   use this binary instead of building one
#        TRACE=path          the conversation trace (default ../shared/traces/conversation_trace.jsonl)
#        SIZE=WxH            terminal size (default 100x30)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-qualify.XXXXXX")"
sock="kvparity-qualify-$$"
size="${SIZE:-100x30}"
trace="${TRACE:-$root/../shared/traces/conversation_trace.jsonl}"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
command -v tmux >/dev/null || { echo "tmux-qualify: tmux is not installed" >&2; exit 2; }
[[ -f "$trace" ]] || { echo "tmux-qualify: no trace at $trace (set TRACE)" >&2; exit 2; }
bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$work/kvparity"
	(cd "$root" && go build -o "$bin" .)
fi
cat >"$work/row.toml" <<ROW
name = "qualify-view-vllm-disagg"
[baseline]
revision = "builtin"
binary = "builtin"
[candidate]
revision = "builtin"
binary = "builtin"
[trace]
path = "$trace"
count = 5000
sha256 = "b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df"
[replay]
args = ["--router-mode","kv-router","--arrival-speedup-ratio","4","--trace-block-size","512","--speedup-ratio","1",
        "--decode-speedup-ratio","1","--serving-mode","disagg","--num-prefill-workers","2","--num-decode-workers","2",
        "--engine-type","vllm","--block-size","64","--num-gpu-blocks","5500","--max-num-seqs","16",
        "--max-num-batched-tokens","8192","--kv-bytes-per-token","1","--kv-transfer-bandwidth","100",
        "--kv-transfer-timing-mode","full-prompt"]
ROW
tmux -L "$sock" -f /dev/null new-session -d -s q -x "${size%x*}" -y "${size#*x}" \
	"'$bin' qualify '$work/row.toml' --campaign '$work/campaign' --view 2>'$work/err'; echo \"kvparity exited with status \$?\" >>'$work/err'; sleep 30"
capture() { tmux -L "$sock" capture-pane -p -t q; }
wait_for() { # pattern, seconds
	local deadline=$((SECONDS + $2))
	while ((SECONDS < deadline)); do capture | grep -q -- "$1" && return 0; sleep 0.2; done
	return 1
}
fail=0
if wait_for "probing" 120; then
	echo "=== $size, while a probe runs"
	capture
else
	echo "tmux-qualify: FAIL: the view never showed a probe running" >&2; capture >&2; fail=1
fi
if wait_for "QUALIFIED\|NOT REACHED\|UNSTABLE" 300; then
	sleep 0.5
	echo "=== $size, the outcome"
	screen="$(capture)"
	echo "$screen"
	grep -q "ladder .*●" <<<"$screen" || { echo "tmux-qualify: FAIL: no in-band probe on the ladder" >&2; fail=1; }
else
	echo "tmux-qualify: FAIL: no outcome" >&2; capture >&2; fail=1
fi
tmux -L "$sock" send-keys -t q q
for _ in $(seq 50); do grep -q "exited with status" "$work/err" 2>/dev/null && break; sleep 0.2; done
sleep 0.5
echo "=== after the view closed: the probe table qualify prints"
capture | sed '/^$/d'
tail -2 "$work/err"
grep -q "exited with status 0" "$work/err" || { echo "tmux-qualify: FAIL: kvparity qualify did not exit 0" >&2; fail=1; }
exit $fail
