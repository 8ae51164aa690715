#!/usr/bin/env bash
# same-version-campaign.sh OUT: the authoritative matrix's same-version pair (issue 37), end to end.
#
# Dynamo 1.6.1 against itself, through a checkout: the four authoritative rows
# (rows/authoritative/*.toml: vLLM/SGLang × aggregated/disaggregated, conversation trace rows
# 0–4,999) with the baseline the base commit and the candidate the behaviour-neutral edit of a
# Dynamo-shaped checkout made from the published 1.6.1 crates. It should pass: determinism STABLE,
# byte parity PASS, performance PASS or INCONCLUSIVE.
#
#   1. checkout  scripts/dynamo-checkout.sh --version 1.6.1 in $SAMEVER_DIR/dynamo (default
#                ~/.cache/kvparity/samever: a fixed place, so the checkout's lineage and build
#                cache serve the next run; its dynamo/ is deleted and remade only when this
#                script made it, scripts/fixture-marker.sh, and the SHAs come out the same)
#   2. rows      scripts/same-version-rows.sh OUT/rows (init-row's arms, the authoritative rows'
#                [trace], [replay], [determinism], [perf], [canonical])
#   3. qualify   kvparity qualify OUT/rows/ROW.toml --campaign OUT/qualify/ROW --out
#                OUT/rows/ROW.frozen.toml for each row (builds both commits the first time:
#                ~10 min on 2 cores); a campaign folder that exists is resumed
#   4. matrix    kvparity matrix OUT/rows/*.frozen.toml --campaign OUT/matrix --stage all
#                (60 pairs a row), timed; a matrix folder that exists is resumed, and a row
#                whose perf stage blocked on competing load is resumed (kvparity run) once the
#                machine is quiet (RESUME_TRIES, default 3)
#
# Each step's output goes to OUT/logs. Heavy steps wait while the file QUIET_FILE exists (when
# set: another job on the machine asks for quiet); everything runs under nice -n 19. Its last line is the four rows'
# verdicts (determinism, parity, performance with its ratio and bounds, overall) and the matrix's
# wall time.
# env: KVPARITY_BIN=path  the kvparity binary (default: built from this repository)
#      SAMEVER_DIR=dir    where the checkout is made (default ~/.cache/kvparity/samever)
#      QUIET_FILE=path    a file whose presence pauses heavy steps (default: none)
#      RESUME_TRIES=n     resumptions of rows blocked by competing load (default 3)
# exit status: the matrix's (0 every row passed, 1 a row failed, 2 inconclusive or unfinished),
# 2 when a row does not qualify, 3 a usage error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=fixture-marker.sh
source "$root/scripts/fixture-marker.sh"
[[ $# -eq 1 && "$1" != -* ]] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 3; }
mkdir -p "$1"
out="$(cd "$1" && pwd)"
quiet="${QUIET_FILE:-}"
say() { echo "same-version-campaign: $(date -u +%T) $*" >&2; }
wait_quiet() {
	if [[ -e "$quiet" ]]; then
		say "$quiet exists: waiting before $1"
		while [[ -e "$quiet" ]]; do sleep 30; done
	fi
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }

bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$out/kvparity"
	(cd "$root" && nice -n 19 go build -o "$bin" .)
fi

# ---- 1. the checkout ----
samever="${SAMEVER_DIR:-$HOME/.cache/kvparity/samever}"
checkout="$samever/dynamo"
fixture_clear "$checkout" same-version-campaign.sh SAMEVER_DIR
mkdir -p "$samever"
shas="$(nice -n 19 bash "$root/scripts/dynamo-checkout.sh" "$checkout" --version 1.6.1)"
fixture_mark "$checkout" same-version-campaign.sh
base="$(sed -n 's/^base=//p' <<<"$shas")"
edit="$(sed -n 's/^edit=//p' <<<"$shas")"
say "checkout $checkout: base $base, edit $edit"

# ---- 2. the rows ----
mapfile -t rows < <(KVPARITY_BIN="$bin" bash "$root/scripts/same-version-rows.sh" "$out/rows" \
	--checkout "$checkout" --baseline "$base" --candidate "$edit")
((${#rows[@]} == 4)) || { say "expected 4 rows, got ${#rows[@]}"; exit 2; }

# ---- 3. qualify each row on the pinned baseline (the first builds the checkout) ----
frozen=()
logs="$out/logs" # this script's own output of each step
mkdir -p "$logs"
for row in "${rows[@]}"; do
	stem="$(basename "$row" .toml)"
	wait_quiet "qualifying $stem"
	say "qualify $stem"
	t=$(now)
	rc=0
	nice -n 19 "$bin" qualify "$row" --campaign "$out/qualify/$stem" --out "$out/rows/$stem.frozen.toml" \
		>"$logs/qualify-$stem.out" 2>"$logs/qualify-$stem.err" || rc=$?
	say "qualify $stem: exit $rc in $(since "$t" "$(now)") s ($(head -1 "$logs/qualify-$stem.out" 2>/dev/null))"
	((rc == 0)) || { tail -20 "$logs/qualify-$stem.err" >&2; say "$stem did not qualify: see $logs/qualify-$stem.out"; exit 2; }
	frozen+=("$out/rows/$stem.frozen.toml")
done

# ---- 4. the matrix ----
wait_quiet "the matrix"
say "matrix of ${#frozen[@]} rows into $out/matrix"
t=$(now)
rc=0
matrix() { nice -n 19 "$bin" matrix "${frozen[@]}" --campaign "$out/matrix" --stage all >>"$logs/matrix.out" 2>>"$logs/matrix.err"; }
matrix || rc=$?
say "matrix: exit $rc in $(since "$t" "$(now)") s; $out/matrix/matrix.md"
# A row whose perf stage blocked because the machine was busy (another campaign's load on the
# measured CPU invalidates its pairs) has a verdict for the matrix, which never reruns it: resume
# its campaign from its journal once the machine is quiet, up to RESUME_TRIES (default 3) times,
# then let the matrix rewrite its report.
blocked() {
	python3 - "$out/matrix/matrix.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    if r["performance"]["verdict"] == "BLOCKED" and "not fit for measurement" in r["performance"]["reason"]:
        print(r["row"] + "\t" + r["row_file"])
EOF
}
for try in $(seq 1 "${RESUME_TRIES:-3}"); do
	mapfile -t again < <(blocked)
	((${#again[@]})) || break
	for line in "${again[@]}"; do
		name="${line%%$'\t'*}" file="${line#*$'\t'}"
		wait_quiet "resuming $name"
		say "resume $name (its perf stage was blocked by competing load; try $try)"
		nice -n 19 "$bin" run "$file" --campaign "$out/matrix/$name" --stage all >>"$logs/resume-$name.out" 2>>"$logs/resume-$name.err" || true
	done
	rc=0
	matrix || rc=$?
done
wall=$(since "$t" "$(now)")
echo "$wall" >"$logs/matrix.wall-seconds"
say "matrix: exit $rc, $wall s in all; $out/matrix/matrix.md"
python3 - "$out/matrix" "$wall" <<'EOF'
import json, os, sys
dir, wall = sys.argv[1:]
m = json.load(open(os.path.join(dir, "matrix.json")))
w = lambda o: (o or {}).get("verdict", "-")
rows = []
for r in m["rows"]:
    perf = w(r["performance"])
    if r.get("report_json"):
        res = json.load(open(os.path.join(dir, r["report_json"])))["performance"].get("result") or {}
        if "median_ratio" in res:
            perf += f" (ratio {res['median_ratio']:.4f}, bounds {res['lower']:.4f}–{res['upper']:.4f}, gate {res['threshold']})"
    rows.append(f"{r['row']}: determinism {w(r['determinism']['baseline'])}/{w(r['determinism']['candidate'])}, "
                f"parity {w(r['parity'])}, perf {perf}, overall {w(r['overall'])}")
print(f"same-version matrix {w(m['overall'])} · " + " · ".join(rows) + f" · matrix wall time {wall} s")
EOF
exit "$rc"
