#!/bin/bash
# usage: scripts/calibrate-slowdown.sh [VARIANT|none] [PAIRS]  (from the repository root)
# Runs `kvparity replay` on the default row (engine.DefaultRow: the generated 5,000-request
# trace, vllmDisaggArgs(defaultG1Blocks)) pinned to one CPU, alternating which arm goes first,
# and prints the median replay_execution_ms and replay_cpu_ms ratios (VARIANT / none) with a
# bootstrap 95% interval of the paired median, plus the ratio each candidate run produced by
# itself (replay_execution_ms over the same minus the variant's kvparity_slowdown_ms). The
# paired figure carries the machine's noise: run it with nothing else on either CPU (the two
# vCPUs here share a core, so work on CPU 0 slows CPU 1 by tens of percent).
BIN=${BIN:-/tmp/kvp-calib}; VAR=${1:-slowdown-5}; N=${2:-15}; CPU=${CPU:-1}
go build -o "$BIN" . && cd "$(mktemp -d)" || exit 1
"$BIN" gen-trace -seed 7 -requests 5000 -o trace.jsonl
ARGS="--serving-mode disagg --num-prefill-workers 2 --num-decode-workers 2 --engine-type vllm --block-size 64 --num-gpu-blocks 3250 --max-num-seqs 16 --max-num-batched-tokens 8192 --kv-bytes-per-token 1 --kv-transfer-bandwidth 100 --arrival-speedup-ratio 4 --trace-block-size 512 --iterations 1"
rm -f base.txt cand.txt
for i in $(seq 1 $N); do
  order="base cand"; [ $((i % 2)) -eq 0 ] && order="cand base"
  for side in $order; do
    v=""; [ $side = cand ] && [ "$VAR" != none ] && v="--variant $VAR"
    rm -f t.jsonl
    taskset -c $CPU $BIN replay trace.jsonl $ARGS $v --timings-jsonl t.jsonl >/dev/null 2>&1
    python3 -c "import json;d=json.loads(open('t.jsonl').readline());print(d['replay_execution_ms'],d['replay_cpu_ms'],d.get('kvparity_slowdown_ms',0))" >> $side.txt
  done
done
python3 - <<'P'
import random, statistics as s
def rd(f): return [tuple(map(float,l.split())) for l in open(f)]
b=rd('base.txt'); c=rd('cand.txt')
rng=random.Random(7)
for k,name in ((0,'replay_execution_ms'),(1,'replay_cpu_ms')):
    r=[y[k]/x[k] for x,y in zip(b,c)]
    boot=sorted(s.median(rng.choices(r,k=len(r))) for _ in range(2000))
    print("%s: median base %.1f cand %.1f; median pair ratio %.4f [95%% %.4f, %.4f]; ratio of medians %.4f; n=%d"%(name,s.median(x[k] for x in b),s.median(x[k] for x in c),s.median(r),boot[50],boot[1949],s.median(x[k] for x in c)/s.median(x[k] for x in b),len(r)))
own=[y[0]/(y[0]-y[2]) for y in c if y[2]>0]
if own:
    print("per run, replay_execution_ms / (the same minus kvparity_slowdown_ms): median %.4f, min %.4f, max %.4f over %d runs"%(s.median(own),min(own),max(own),len(own)))
P
