#!/usr/bin/env bash
# isolation-bench: time to a performance verdict on a desk machine under a fixed background
# load (one busy loop pinned on the measured CPU), without and with `kvparity run --isolate`
# (root), in the same invocation. For each it prints the perf stage's wall time (first perf run
# to the result), its verdict, pairs and invalidations, the bounds, and the minimum detectable
# regression: the true slowdown whose paired median the gate would FAIL given the measured
# interval (threshold + (median - lower bound) - 1).
#
# Usage: scripts/isolation-bench.sh [ROW.toml]   (default: the built-in default row; run it
# with nothing else on the machine, as root; WORK=dir keeps the campaigns)
set -euo pipefail
cd "$(dirname "$0")/.."
ROW=${1:-}
WORK=${WORK:-$(mktemp -d -t isolation-bench.XXXXXX)}
go build -o "$WORK/kvparity" .
cpu=$(python3 -c "import os; print(max(os.sched_getaffinity(0)))")
for mode in plain isolate; do
  flag=(); [ "$mode" = isolate ] && flag=(--isolate)
  taskset -c "$cpu" sh -c 'while :; do :; done' &
  loop=$!
  rowargs=(); [ -n "$ROW" ] && rowargs=("$ROW")
  "$WORK/kvparity" run "${rowargs[@]}" --stage all --campaign "$WORK/$mode" --json "${flag[@]}" > "$WORK/$mode.json" 2> "$WORK/$mode.err" || true
  kill "$loop" 2>/dev/null || true; wait "$loop" 2>/dev/null || true
done
python3 - "$WORK" <<'P'
import json, sys, datetime
work = sys.argv[1]
def ts(s):
    s = s.rstrip("Z"); a, _, b = s.partition("."); return datetime.datetime.fromisoformat(a + ("." + b[:6] if b else ""))
for mode in ("plain", "isolate"):
    recs = [json.loads(l.split(" ", 1)[1]) for l in open(f"{work}/{mode}/journal.jsonl")]
    perf = [r for r in recs if r.get("kind") in ("warmup", "sample")]
    end = [r for r in recs if r["type"] in ("perf_result",)] or [r for r in recs if r["type"] == "blocked"] or perf[-1:]
    secs = (ts(end[-1]["at"]) - ts(perf[0]["at"])).total_seconds() if perf else 0
    doc = json.load(open(f"{work}/{mode}.json"))
    res = doc.get("perf_result") or {}
    inv = sum(1 for r in recs if r["type"] == "perf_invalidated")
    line = f"{mode:8}: perf stage {secs:6.1f} s · {doc['performance']['verdict']} · pairs {len(res.get('pairs') or [])} · invalidated attempts {inv}"
    if res.get("upper"):
        lo, med, hi, thr = res["lower"], res["median_ratio"], res["upper"], res.get("threshold", 1.05)
        line += f" · median {med:.4f} [{lo:.4f}, {hi:.4f}] · minimum detectable regression {100*(thr + (med - lo) - 1):.1f}%"
    else:
        line += f" · {doc['performance']['reason'][:160]}"
    print(line)
    for r in recs:
        if r["type"] == "perf_load":
            print(f"          load preflight: {100*r['data']['busy_fraction']:.0f}% busy")
        if r["type"] == "perf_isolation":
            print(f"          isolation: {r['data']['moved']} processes moved to CPUs {r['data']['cpus']}")
P
