#!/usr/bin/env bash
# authoritative-campaign.sh — the protocol's authoritative matrix (stage 4, issue 37): the four
# rows of rows/authoritative (vLLM and SGLang, aggregated and disaggregated, on the Mooncake
# conversation trace's rows 0–4,999) as one `kvparity matrix --stage all`, timed against its
# floor: the sum of the replay processes' own wall times (every run_end the rows' journals
# record: determinism, warmups, pairs, fixtures). The last line says the rows' verdicts and the
# campaign's wall time against that floor.
#
#   bash scripts/authoritative-campaign.sh [--out DIR] [--pairs N] [--qualify] [--trace-copy FILE] [--slurm]
#
# --qualify first requalifies every row on its pinned baseline (`kvparity qualify`, each in its
#   own campaign under DIR/qualify) and stops unless each chooses the row's own capacity: a
#   changed counter means the row must be requalified and the cause recorded before it is used.
# --pairs N runs a reduced matrix: copies of the rows with N pairs and 2 warmups per arm, named
#   <row>-reduced-N and saying so in a comment; the report states "N measured pairs, not the
#   protocol's 60". The qualified capacities are the shipped rows' own.
# --trace-copy FILE puts a local copy of the conversation trace into kvparity's trace cache first
#   (`kvparity trace add`; a machine that can reach GitHub downloads it instead).
# --slurm runs one Slurm job per row (kvparity matrix --slurm; DIR must be on a shared filesystem).
# DIR defaults to a new temporary folder (kept; its path is printed). The rows' source arms are
# built once, before any row runs (from the build cache when cached).
set -euo pipefail
cd "$(dirname "$0")/.."
out= pairs= copy= slurm=() qualify=
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a folder}; shift ;;
    --pairs) pairs=${2:?--pairs needs a number}; shift ;;
    --trace-copy) copy=${2:?--trace-copy needs a file}; shift ;;
    --slurm) slurm=(--slurm) ;;
    --qualify) qualify=1 ;;
    *) echo "authoritative-campaign.sh: unknown argument $1" >&2; exit 3 ;;
  esac
  shift
done
out=${out:-$(mktemp -d /tmp/kvparity-authoritative.XXXXXX)}
mkdir -p "$out"
bin=$out/kvparity
go build -o "$bin" .
if [ -n "$copy" ]; then "$bin" trace add "$copy" >&2; fi

if [ -n "$qualify" ]; then
  qstart=$(date +%s.%N)
  for r in rows/authoritative/*.toml; do
    name=$(basename "$r" .toml)
    qcode=0
    "$bin" qualify "$r" --campaign "$out/qualify/$name" --json >"$out/qualify-$name.json" 2>"$out/qualify-$name.err" || qcode=$?
    python3 scripts/authoritative-campaign.py qualified "$r" "$out/qualify-$name.json" "$qcode"
  done
  echo "qualification: $(echo "$(date +%s.%N) - $qstart" | bc | cut -d. -f1) s" >&2
fi

rows=()
for r in rows/authoritative/*.toml; do
  if [ -n "$pairs" ]; then
    name=$(basename "$r" .toml)-reduced-$pairs
    python3 scripts/authoritative-campaign.py reduce "$r" "$out/rows/$name.toml" "$pairs"
    rows+=("$out/rows/$name.toml")
  else
    rows+=("$r")
  fi
done
echo "authoritative campaign in $out (load at start: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
start=$(date +%s.%N)
code=0
"$bin" matrix "${rows[@]}" --campaign "$out/matrix" --stage all "${slurm[@]}" >"$out/matrix.out" 2>"$out/matrix.err" || code=$?
end=$(date +%s.%N)
python3 scripts/authoritative-campaign.py summary "$out/matrix" "$code" "$(echo "$end - $start" | bc)"
