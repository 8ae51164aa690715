#!/usr/bin/env bash
# instructions-figures.sh — the instruction instrument's figures (issue 39): one campaign of a
# row's --stage instructions with N counted runs per arm, and what they show: each arm's counts
# and spread ((max − min) / median), the ratio of the medians, the spread of the N run-by-run
# ratios, and the wall time. Counting is deterministic work in software, so other load on the
# machine slows it but does not change the figures (LOAD="stress-ng --cpu 2" runs it beside one).
#
#   bash scripts/instructions-figures.sh ROW.toml N [--aa | --variant NAME] [--out DIR]
#
# --aa makes the candidate the baseline's twin (the row's candidate variant removed): the A/A
# spread. --variant NAME sets the candidate's variant (slowdown-10: a known slowdown). Needs the
# row's builds cached for source rows (`go run . build ROW.toml`) and valgrind. The last line is
# the result.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: instructions-figures.sh ROW.toml N [--aa | --variant NAME] [--out DIR]"
row=${1:?$usage}
n=${2:?$usage}
shift 2
script=instructions-figures.sh
# shellcheck source=row-mode-args.sh
source scripts/row-mode-args.sh
command -v valgrind >/dev/null || { echo "instructions-figures.sh: valgrind is not installed" >&2; exit 3; }
out=${out:-$(mktemp -d /tmp/kvparity-instructions.XXXXXX)}
mkdir -p "$out"
[ -e "$out/c" ] && { echo "instructions-figures.sh: $out/c exists: give a new --out" >&2; exit 3; }
bin=$out/kvparity
go build -o "$bin" .

rowdir=$(cd "$(dirname "$row")" && pwd)
python3 scripts/perf-campaigns.py rows "$row" "$rowdir" 1 "$out" "$mode" "$variant"
# N counted runs per arm, declared in the row (the instrument's predeclared number).
python3 - "$out/row-1.toml" "$n" <<'PY'
import re, sys
p, n = sys.argv[1], sys.argv[2]
t = open(p).read()
t = re.sub(r"^instructions_runs\s*=.*\n", "", t, flags=re.M)
t = re.sub(r"^\[perf\]\n", "[perf]\ninstructions_runs = %s\n" % n, t, count=1, flags=re.M)
open(p, "w").write(t)
PY
load=""
if [ -n "${LOAD:-}" ]; then
  read -ra loadcmd <<<"$LOAD"
  "${loadcmd[@]}" >/dev/null 2>&1 &
  load=$!
  trap 'kill $load 2>/dev/null || true' EXIT
  sleep 2
fi
echo "campaign in $out/c (load at start: $(cut -d' ' -f1-3 /proc/loadavg))"
start=$(date +%s.%N)
code=0
"$bin" run "$out/row-1.toml" --campaign "$out/c" --stage instructions --json >"$out/c.json" 2>"$out/c.err" || code=$?
end=$(date +%s.%N)
python3 - "$out/c.json" "$code" "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import json, statistics, sys
path, code, wall, load = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
try:
    r = json.load(open(path))["instructions"]
except (OSError, ValueError, KeyError, TypeError) as e:
    print("exit %s: no instruction counts (%s); see %s" % (code, e, path.replace(".json", ".err")))
    sys.exit(1)
b, c = r["baseline"]["counts"], r["candidate"]["counts"]
for arm, xs in (("baseline", b), ("candidate", c)):
    print("%-9s %2d runs  median %d  min %d  max %d  spread %.4f%%" % (arm, len(xs), r[arm]["median"], min(xs), max(xs), 100 * r[arm]["spread"]))
pairs = [y / x for x, y in zip(b, c)]
print("run-by-run ratios: min %.5f  max %.5f  (spread %.4f%%)" % (min(pairs), max(pairs), 100 * (max(pairs) - min(pairs)) / statistics.median(pairs)))
print("result: ratio %.5f  spread %.4f%%  explain %s  (threshold %.2f)  %d+%d runs in %.0f s  load %s  %s"
      % (r["ratio"], 100 * r["spread"], r["explain"], r["threshold"], len(b), len(c), wall, load, r["tool"]))
PY
