#!/usr/bin/env bash
# bench-diff: time `kvparity diff` against jd (github.com/josephburnett/jd) on two canonical
# reports of the full 12,031-request Mooncake conversation trace that differ in about 1% of
# requests, check that both tools find the same set of differing paths (jd's paths mapped to
# JSON pointers), and print the time ratio. Target: kvparity at least 10x faster.
#
# Usage: scripts/bench-diff.sh            (TRACE=path overrides the trace; KEEP=1 keeps the work dir)
# jd is slow on a 20 MB report (minutes): run this on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

TRACE=${TRACE:-../shared/traces/conversation_trace.jsonl}
if [ ! -f "$TRACE" ]; then
  echo "bench-diff: trace $TRACE not found" >&2
  exit 3
fi
WORK=$(mktemp -d -t bench-diff.XXXXXX)
if [ "${KEEP:-}" = "1" ]; then echo "work dir: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi

echo "== building kvparity and installing jd into $WORK"
go build -o "$WORK/kvparity" .
GOBIN="$WORK/bin" go install github.com/josephburnett/jd/v2/jd@latest
JD="$WORK/bin/jd"

# The built-in vLLM disaggregated row (DESIGN.md), identical for both reports.
ARGS=(--serving-mode disagg --num-prefill-workers 2 --num-decode-workers 2 --engine-type vllm
  --block-size 64 --num-gpu-blocks 5500 --max-num-seqs 16 --max-num-batched-tokens 8192
  --kv-bytes-per-token 1 --kv-transfer-bandwidth 100 --arrival-speedup-ratio 4 --trace-block-size 512)

echo "== replaying $(wc -l < "$TRACE") requests of $TRACE"
"$WORK/kvparity" replay "$TRACE" "${ARGS[@]}" --canonical-reports-jsonl "$WORK/a.jsonl" > /dev/null
go run ./diffview/internal/benchdiff perturb "$WORK/a.jsonl" "$WORK/b.jsonl"
ls -l "$WORK/a.jsonl" "$WORK/b.jsonl" | awk '{print "   ", $5, "bytes", $NF}'

now_ns() { date +%s%N; }

# Exit status 1 means "differs" for both tools; anything else is a failure.
run_expect_differ() {
  local out=$1; shift
  set +e
  "$@" > "$out"
  local rc=$?
  set -e
  if [ "$rc" -ne 1 ]; then
    echo "bench-diff: $* exited $rc (want 1: differs)" >&2
    exit 1
  fi
}

echo "== kvparity diff (best of 3)"
best=""
for _ in 1 2 3; do
  t0=$(now_ns)
  run_expect_differ "$WORK/kv.json" "$WORK/kvparity" diff "$WORK/a.jsonl" "$WORK/b.jsonl" --json
  t1=$(now_ns)
  el=$(( (t1 - t0) / 1000000 ))
  if [ -z "$best" ] || [ "$el" -lt "$best" ]; then best=$el; fi
done
kv_ms=$best
echo "   kvparity: ${kv_ms} ms"

echo "== jd (one run)"
t0=$(now_ns)
run_expect_differ "$WORK/jd.txt" "$JD" "$WORK/a.jsonl" "$WORK/b.jsonl"
t1=$(now_ns)
jd_ms=$(( (t1 - t0) / 1000000 ))
echo "   jd: ${jd_ms} ms"

echo "== same differing paths?"
go run ./diffview/internal/benchdiff compare "$WORK/jd.txt" "$WORK/kv.json"

ratio=$(awk -v a="$jd_ms" -v b="$kv_ms" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 1) }')
echo "== ratio jd/kvparity: ${ratio}x (target >= 10x)"
awk -v r="$ratio" 'BEGIN { exit (r >= 10) ? 0 : 1 }' || { echo "bench-diff: below the 10x target" >&2; exit 1; }
