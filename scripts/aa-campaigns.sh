#!/bin/bash
# usage: scripts/aa-campaigns.sh N [VARIANT] [OUTDIR]  (from the repository root)
# Runs N perf-stage campaigns of the default built-in row (rows/builtin-vllm-disagg.toml), each
# with its own schedule seed (20261129 + k), the candidate optionally a stand-in VARIANT such as
# slowdown-10 (default: none, the A/A row). A campaign blocked by competing load on the measured
# CPU is resumed after 20 s, up to 40 times (its recorded pairs are kept). Prints per campaign the
# perf verdict, the rule that decided (order-statistics, block-medians, none), the battery's
# breaches, median and bounds, then the verdict counts. Campaigns go to OUTDIR (default
# ./campaigns/aa-<timestamp>); the binary is built to OUTDIR/kvparity.
N=${1:?N campaigns}; VARIANT=${2:-}; OUT=${3:-campaigns/aa-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT" && go build -o "$OUT/kvparity" . || exit 1
for k in $(seq 1 "$N"); do
  row="$OUT/row-$k.toml"; dir="$OUT/c-$k"
  sed "s/^schedule_seed = .*/schedule_seed = $((20261129 + k))/" rows/builtin-vllm-disagg.toml > "$row"
  [ -n "$VARIANT" ] && sed -i "/^\[candidate\]/a variant  = \"$VARIANT\"" "$row"
  for try in $(seq 1 40); do
    "$OUT/kvparity" run "$row" --stage perf --campaign "$dir" > "$dir.out" 2> "$dir.err"
    tail -1 "$dir.err" | grep -q '^BLOCKED' || break
    sleep 20
  done
  python3 - "$dir" "$k" <<'P'
import json, sys
d, k = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(d + "/perf/result.json"))
except OSError:
    print(f"campaign {k}: no perf result (blocked or stopped; see {d}.err)"); sys.exit()
a = r.get("analysis") or {}
bad = [f'{x["name"].split(" (")[0]}={x["statistic"]:.3g}' for x in a.get("battery", {}).get("diagnostics", []) if x["outcome"] != "ok"]
dep = a.get("dependent") or {}
print(f'campaign {k}: {r["verdict"]:12} by {r.get("decided_by", "?"):16} median {r.get("median_ratio", 0):.4f} '
      f'X(24..37) [{r.get("lower", 0):.4f}, {r.get("upper", 0):.4f}]'
      + (f' block medians [{dep["lower"]:.4f}, {dep["upper"]:.4f}] ({dep["blocks"]} blocks)' if dep else '')
      + f' invalidated {len(r.get("invalidations") or [])}' + (f' breached: {", ".join(bad)}' if bad else ''))
P
done | tee "$OUT/campaigns.txt"
echo "counts:"; awk '{print $3}' "$OUT/campaigns.txt" | sort | uniq -c
