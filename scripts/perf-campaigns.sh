#!/usr/bin/env bash
# perf-campaigns.sh — the gate's real figures (issue 29): N whole campaigns of one row, each with
# its own schedule seed, run one after another by `kvparity run --stage all`, and a table of what
# the perf stage decided and by which rule.
#
#   bash scripts/perf-campaigns.sh ROW.toml N [--aa | --variant NAME] [--out DIR]
#
# --aa makes the candidate the baseline's twin (the row's candidate variant removed, same
# source): an A/A row, where every FAIL is a false FAIL. --variant NAME sets the candidate's
# variant (slowdown-10: a known 10% slowdown, where every non-FAIL is a miss). Campaign k uses
# the row's schedule_seed + k − 1. Campaigns go to DIR (default a temporary folder, kept, its
# path printed). Needs the row's builds cached for source rows (`go run . build ROW.toml`).
# Run it on a quiet machine: the perf stage's load guard reruns pairs disturbed by other work
# and blocks when it cannot get clean ones; the table's last column says how many it reran.
set -euo pipefail
cd "$(dirname "$0")/.."

row=${1:?usage: perf-campaigns.sh ROW.toml N [--aa | --variant NAME] [--out DIR]}
n=${2:?usage: perf-campaigns.sh ROW.toml N [--aa | --variant NAME] [--out DIR]}
shift 2
script=perf-campaigns.sh
# shellcheck source=row-mode-args.sh
source scripts/row-mode-args.sh
out=${out:-$(mktemp -d /tmp/kvparity-perf-campaigns.XXXXXX)}
mkdir -p "$out"
bin=$out/kvparity
go build -o "$bin" .

rowdir=$(cd "$(dirname "$row")" && pwd)
python3 scripts/perf-campaigns.py rows "$row" "$rowdir" "$n" "$out" "$mode" "$variant"
echo "campaigns in $out (load at start: $(cut -d' ' -f1-3 /proc/loadavg))"
for k in $(seq 1 "$n"); do
  dir=$out/c$k
  start=$(date +%s.%N)
  code=0
  "$bin" run "$out/row-$k.toml" --campaign "$dir" --stage all --json >"$dir.json" 2>"$dir.err" || code=$?
  end=$(date +%s.%N)
  python3 scripts/perf-campaigns.py line "$k" "$dir" "$code" "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1 /proc/loadavg)"
done | tee "$out/table.txt"
python3 scripts/perf-campaigns.py count "$out/table.txt"
