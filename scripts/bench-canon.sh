#!/usr/bin/env bash
# bench-canon.sh: canonicalize + digest speed of `kvparity canon` against
# `jq -S -c . FILE | sha256sum` on the same canonical report, side by side, and the ratio.
#
# usage: scripts/bench-canon.sh [REPORT.jsonl]
#
# Without an argument the input is the canonical report of the full conversation trace
# (../shared/traces/conversation_trace.jsonl, 12,031 requests) replayed by the embedded engine
# with the DESIGN row's vLLM disaggregated arguments, generated into a temporary directory.
# Environment: RUNS (timed runs per side, default 5; the median is reported), TRACE (another
# trace), KVPARITY (use this kvparity binary instead of building one). The target is a ratio of
# at least 10; the script exits 1 below it. It installs nothing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-5}

for tool in jq sha256sum go awk; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "bench-canon: $tool is not installed; install it first (for jq: apt-get install -y jq)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kvparity=${KVPARITY:-}
if [ -z "$kvparity" ]; then
	kvparity=$tmp/kvparity
	(cd "$root" && go build -o "$kvparity" .)
fi

if [ $# -ge 1 ]; then
	report=$1
else
	trace=${TRACE:-$root/../shared/traces/conversation_trace.jsonl}
	report=$tmp/report.jsonl
	echo "generating the canonical report of $trace ..." >&2
	"$kvparity" replay "$trace" \
		--serving-mode disagg --num-prefill-workers 2 --num-decode-workers 2 \
		--engine-type vllm --block-size 64 --num-gpu-blocks 5500 --max-num-seqs 16 \
		--max-num-batched-tokens 8192 --kv-bytes-per-token 1 --kv-transfer-bandwidth 100 \
		--arrival-speedup-ratio 4 --trace-block-size 512 \
		--canonical-reports-jsonl "$report" >/dev/null
fi

jq_side() { jq -S -c . "$report" | sha256sum >/dev/null; }
kvparity_side() { "$kvparity" canon "$report" >/dev/null; }

# median_ms FUNCTION: run it $runs times (after one untimed warm-up that also fills the page
# cache) and print the median wall time in milliseconds.
median_ms() {
	"$1"
	for _ in $(seq "$runs"); do
		local s e
		s=$(date +%s%N)
		"$1"
		e=$(date +%s%N)
		echo $(((e - s) / 1000))
	done | sort -n | awk '{ t[NR] = $1 } END { printf "%.1f\n", t[int((NR + 1) / 2)] / 1000 }'
}

bytes=$(wc -c <"$report")
jq_ms=$(median_ms jq_side)
kv_ms=$(median_ms kvparity_side)
"$kvparity" canon "$report"
ratio=$(awk -v a="$jq_ms" -v b="$kv_ms" 'BEGIN { printf "%.1f", a / b }')
echo "input         $report ($bytes bytes)"
echo "jq -S -c . | sha256sum   median ${jq_ms} ms over $runs runs"
echo "kvparity canon           median ${kv_ms} ms over $runs runs"
echo "ratio                    ${ratio}x (target >= 10x)"
awk -v r="$ratio" 'BEGIN { exit !(r >= 10) }'
