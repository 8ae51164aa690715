#!/usr/bin/env bash
# seeded-timing.sh — does a timed run simulate the work its canonical run verified? (issue 38)
#
#   bash scripts/seeded-timing.sh BINARY TRACE COUNT RUNS -- REPLAY ARGS...
#
# Cuts the first COUNT requests of TRACE, runs BINARY once in the canonical mode
# (--canonical-reports-jsonl) and RUNS times as the perf stage does (--timings-jsonl only, plus
# --report-json after the timed call so a harness without a work fingerprint can be read too),
# each its own process, and prints one line per run: the work fingerprint of the timing line
# (kvparity's timing extension writes it) or, for a harness without one, the report's totals
# (virtual duration, completed requests, token totals, prefix reuse), each beside the canonical
# run's, with the first field that differs. Exit 0 when every timed run did the canonical work,
# 1 when one did not. BINARY is any offline_replay_bench (a kvparity build from the cache, or a
# published one) or the kvparity binary itself (then `kvparity replay` is run).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: seeded-timing.sh BINARY TRACE COUNT RUNS -- REPLAY ARGS..."
bin=${1:?$usage}; trace=${2:?$usage}; count=${3:?$usage}; runs=${4:?$usage}
shift 4
[ "${1:-}" = "--" ] && shift
[ -x "$bin" ] || { echo "seeded-timing.sh: $bin is not an executable" >&2; exit 3; }
[ -f "$trace" ] || { echo "seeded-timing.sh: $trace: no such trace" >&2; exit 3; }
out=$(mktemp -d /tmp/kvparity-seeded-timing.XXXXXX)
kvparity=${KVPARITY:-$out/kvparity} # KVPARITY names a kvparity binary already built
[ -n "${KVPARITY:-}" ] || go build -o "$kvparity" .
head -n "$count" "$trace" >"$out/window.jsonl"
[ "$(wc -l <"$out/window.jsonl")" -eq "$count" ] || { echo "seeded-timing.sh: $trace has fewer than $count requests" >&2; exit 3; }
replay=("$bin")
[ "$(basename "$bin")" = kvparity ] && replay=("$bin" replay)

"${replay[@]}" "$out/window.jsonl" "$@" --canonical-reports-jsonl "$out/canonical.jsonl" >"$out/canonical.out" 2>&1
"$kvparity" canon "$out/canonical.jsonl" --work | grep ' work ' | sed 's/^[^ ]* work //' >"$out/canonical.work"
for k in $(seq 1 "$runs"); do
  "${replay[@]}" "$out/window.jsonl" "$@" --timings-jsonl "$out/timed-$k.jsonl" --report-json "$out/timed-$k.json" >"$out/timed-$k.out" 2>&1
done
python3 - "$out" "$runs" <<'PY'
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
canon = json.loads(open(f"{out}/canonical.jsonl").readline())
want = dict(kv.split("=", 1) for kv in open(f"{out}/canonical.work").read().split())
summary_keys = ["duration_ms", "num_requests", "completed_requests", "total_input_tokens",
                "total_output_tokens", "prefix_cache_reused_ratio", "first_admission_prefix_cache_reused_ratio"]
def fmt(v):
    return repr(v) if isinstance(v, float) else str(v)
print(f"canonical   {' '.join(f'{k}={v}' for k, v in want.items())}")
bad = 0
for k in range(1, runs + 1):
    line = json.loads(open(f"{out}/timed-{k}.jsonl").readline())
    work = line.get("work_fingerprint")
    if work is not None:
        got = {key: fmt(work[key]) if key != "placement_digest" else work[key] for key in want}
        ref = want
        what = "fingerprint"
    else:
        rep = json.load(open(f"{out}/timed-{k}.json"))
        got = {key: fmt(rep[key]) for key in summary_keys}
        ref = {key: fmt(canon["summary"][key]) for key in summary_keys}
        what = "report totals (no work fingerprint)"
    diff = [key for key in ref if float(got[key]) != float(ref[key])] if work is None else \
           [key for key in ref if (got[key] != ref[key] if key in ("scheme", "placement_digest") else float(got[key]) != float(ref[key]))]
    if diff:
        bad += 1
        print(f"timed {k:2d}    {what}: differs, first {diff[0]} {got[diff[0]]} (canonical {ref[diff[0]]}); "
              + " ".join(f"{d}={got[d]}" for d in diff))
    else:
        print(f"timed {k:2d}    {what}: equal to the canonical run   replay_execution_ms={line.get('replay_execution_ms')}")
print(f"{runs - bad} of {runs} timed runs did the canonical run's work")
sys.exit(1 if bad else 0)
PY
