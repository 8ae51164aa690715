#!/usr/bin/env bash
# seed000-kvbm.sh OUT [--reps N] [--settings NAME,...] [--no-search] [--no-campaign]
#
# Seed 000's code judged in real builds (the fix "stabilize replay KVBM ordering", DYN-3850, as
# Dynamo published it in 1.4.2): a historical KVBM row, since 1.5 and later removed KVBM replay.
#
# 1. A Dynamo-shaped checkout of the published 1.4.2 crates (dynamo-checkout.sh --version 1.4.2)
#    gets a third commit on a branch of its own: the fix reverted. The fix is two lines of
#    dynamo-mocker's src/kvbm_offload/engine.rs: the G1->G2 pipeline's
#    `.ordered_transfer_starts(cfg!(feature = "replay-bench"))` (reverted: `false`) and the
#    replay-bench-only `order_g2_router_events(&mut router_events);` (reverted: removed). Each
#    anchor must occur exactly once, or the script stops naming it.
# 2. Both commits are built as a user builds them: `cargo build --release --no-default-features
#    --features replay-bench,mocker-kvbm-offload --bench offline_replay_bench -p dynamo-bench`
#    (the KVBM build needs protobuf-compiler and libclang-dev), without kvparity's timing
#    extension, which anchors on aisimulate-core (1.5 and later) and has nothing to time here:
#    the row is determinism only. The binaries are kept under $STORE/bin/<commit>/.
# 3. The settings search (unless --no-search): for each setting (offload batch size, G1->G2
#    bandwidth, G1 and G2 capacity, CPUs per process, the trace's first 100 or 300 requests),
#    N fresh processes of each build (--reps, default
#    6), pinned with taskset, each writing its canonical report; `kvparity canon` digests them.
#    A setting where the published build is STABLE and the reverted one is not is what seed
#    000's own validation claims ("baseline 8/8 and fixed build 8/8 produced one shared digest").
# 4. The campaign (unless --no-campaign): a row with the two builds as pinned binary arms
#    (revision: the commit each was built from) on the issue's setting (disaggregated vLLM, G1
#    2,048, G2 4,096, offload batch 4), `kvparity run --stage determinism` (10 repetitions, and
#    the row's default perturbed repetitions for an arm whose plain ones agree; an UNSTABLE arm's
#    report says they did not run and why). Each arm's verdict and the diagnosis of its two
#    differing repetitions (its first symptom) are printed side by side.
#
# OUT gets the rows, the search's reports and digests (search.tsv), the campaign and
# result.txt. The last line of stdout is the result: runs, distinct digests per build, the first
# symptom of each, and the setting found (or "none").
#
# The checkout and the builds are cached in $KVPARITY_SEED000_STORE (default
# ~/.cache/kvparity/seed000): checkout/ (made by this script, never another folder; the builds
# switch it between the two commits, so the second rebuilds only what the fix touches), target/
# and bin/. It deletes nothing it did not create.
set -euo pipefail

die() { echo "seed000-kvbm: $*" >&2; exit 1; }
say() { echo "seed000-kvbm: $*" >&2; }

USAGE="usage: seed000-kvbm.sh OUT [--reps N] [--settings NAME,...] [--no-search] [--no-campaign]"
OUT="" REPS=6 SEARCH=1 CAMPAIGN=1 ONLY=""
while (($#)); do
	arg="$1"
	shift
	case "$arg" in
	--reps) (($#)) || die "--reps needs a value ($USAGE)"; REPS="$1"; shift ;;
	--settings) (($#)) || die "--settings needs a list ($USAGE)"; ONLY=",$1,"; shift ;;
	--no-search) SEARCH=0 ;;
	--no-campaign) CAMPAIGN=0 ;;
	-h | --help) sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $arg ($USAGE)" ;;
	*) [[ -z "$OUT" ]] || die "two output folders given: $OUT and $arg"; OUT="$arg" ;;
	esac
done
[[ -n "$OUT" ]] || die "$USAGE"

# ---- the settings the search tries (named first, so a wrong --settings costs no build) ----
# setting: NAME G1 G2 BATCH BANDWIDTH(- for the default) CPUS REQUESTS(- for the whole 1,000-request
# trace; N: its first N requests, fewer transfers in flight at once); no-g2 is the control without KVBM
SETTINGS=(
	"issue 2048 4096 4 - 0 -"
	"issue-2cpu 2048 4096 4 - 0,1 -"
	"batch1 2048 4096 1 - 0 -"
	"batch16 2048 4096 16 - 0 -"
	"g2-1024 2048 1024 4 - 0 -"
	"g2-16384 2048 16384 4 - 0 -"
	"bw-slow 2048 4096 4 1 0 -"
	"bw-fast 2048 4096 4 400 0 -"
	"g1-3072 3072 4096 4 - 0 -"
	"g1-16000 16000 4096 4 - 0 -"
	"first-100 2048 4096 4 - 0 100"
	"first-300 2048 4096 4 - 0 300"
	"no-g2 2048 - - - 0 -"
)
if [[ -n "$ONLY" ]]; then
	known=",$(printf '%s\n' "${SETTINGS[@]}" | cut -d' ' -f1 | paste -sd,),"
	IFS=, read -ra asked <<<"${ONLY:1:-1}"
	for a in "${asked[@]}"; do
		[[ "$known" == *",$a,"* ]] || die "--settings: no setting named '$a' (one of ${known:1:-1})"
	done
fi
[[ "$REPS" =~ ^[0-9]+$ ]] && ((REPS >= 2 && REPS <= 100)) || die "--reps $REPS: a whole number from 2 to 100"
for tool in cargo git python3 taskset protoc; do
	command -v "$tool" >/dev/null || die "$tool is not on PATH (the KVBM build needs protobuf-compiler and libclang-dev)"
done

HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
STORE="${KVPARITY_SEED000_STORE:-$HOME/.cache/kvparity/seed000}"
CHECKOUT="$STORE/checkout"
mkdir -p "$OUT" "$STORE"
OUT="$(cd "$OUT" && pwd)"
FEATURES=replay-bench,mocker-kvbm-offload
# Fixed identities and dates, as dynamo-checkout.sh: the reverted commit's SHA is the same everywhere.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="kvparity fixture" GIT_AUTHOR_EMAIL="fixture@kvparity.invalid"
export GIT_COMMITTER_NAME="kvparity fixture" GIT_COMMITTER_EMAIL="fixture@kvparity.invalid"

KVP="$OUT/kvparity"
(cd "$REPO" && go build -o "$KVP" .)

# ---- 1. the checkout and its two commits ----
if [[ ! -d "$CHECKOUT/.git" ]]; then
	[[ ! -e "$CHECKOUT" ]] || die "$CHECKOUT exists and is not a git checkout: not this script's, left alone"
	say "making the 1.4.2 checkout at $CHECKOUT"
	bash "$HERE/dynamo-checkout.sh" "$CHECKOUT" --version 1.4.2 >"$STORE/checkout.shas"
fi
PUBLISHED="$(sed -n 's/^base=//p' "$STORE/checkout.shas" 2>/dev/null || true)"
[[ -n "$PUBLISHED" ]] && git -C "$CHECKOUT" cat-file -e "$PUBLISHED^{commit}" 2>/dev/null ||
	die "$CHECKOUT: no published 1.4.2 commit recorded in $STORE/checkout.shas (remove both to start over)"
ENGINE=lib/mocker/src/kvbm_offload/engine.rs
if ! REVERTED="$(git -C "$CHECKOUT" rev-parse -q --verify refs/heads/seed000-reverted)"; then
	say "committing the fix reverted (branch seed000-reverted)"
	git -C "$CHECKOUT" worktree add -q --detach "$STORE/revert-src" "$PUBLISHED"
	python3 - "$STORE/revert-src/$ENGINE" <<'PYEOF'
import sys
path = sys.argv[1]
src = open(path).read()
edits = [
    ('            .ordered_transfer_starts(cfg!(feature = "replay-bench"))\n',
     '            .ordered_transfer_starts(false)\n'),
    ('        #[cfg(feature = "replay-bench")]\n        order_g2_router_events(&mut router_events);\n', ''),
]
for old, new in edits:
    n = src.count(old)
    if n != 1:
        sys.exit(f"{path}: the fix's line {old.strip()!r} occurs {n} times, not once: not seed 000's 1.4.2 code")
    src = src.replace(old, new)
open(path, "w").write(src)
PYEOF
	git -C "$STORE/revert-src" add "$ENGINE"
	GIT_AUTHOR_DATE="2026-01-03T00:00:00+0000" GIT_COMMITTER_DATE="2026-01-03T00:00:00+0000" \
		git -C "$STORE/revert-src" commit -q -m "mocker: revert 'stabilize replay KVBM ordering' (seed 000's fix), for kvparity's historical row"
	REVERTED="$(git -C "$STORE/revert-src" rev-parse HEAD)"
	git -C "$CHECKOUT" branch -q seed000-reverted "$REVERTED"
	git -C "$CHECKOUT" worktree remove --force "$STORE/revert-src"
fi
say "published $PUBLISHED, reverted $REVERTED"

# ---- 2. the two builds ----
build() { # build SHA: prints the binary's path, building it once
	local sha="$1" bin="$STORE/bin/$1/offline_replay_bench"
	if [[ -x "$bin" ]]; then
		echo "$bin"
		return
	fi
	git -C "$CHECKOUT" checkout -q --detach "$sha"
	say "building $sha (features $FEATURES; the first build takes many minutes)"
	local start=$SECONDS exe
	exe="$(cd "$CHECKOUT" && cargo build --release --no-default-features --features "$FEATURES" \
		--bench offline_replay_bench -p dynamo-bench --target-dir "$STORE/target" \
		--message-format=json-render-diagnostics 2>"$STORE/build-$sha.log" |
		python3 -c 'import json,sys
exe = [m["executable"] for m in map(json.loads, sys.stdin) if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "offline_replay_bench"]
print(exe[-1] if exe else "")')" || true
	[[ -n "$exe" && -x "$exe" ]] || { tail -20 "$STORE/build-$sha.log" >&2; die "the build of $sha failed ($STORE/build-$sha.log)"; }
	mkdir -p "$STORE/bin/$sha.partial"
	cp "$exe" "$STORE/bin/$sha.partial/offline_replay_bench"
	mv "$STORE/bin/$sha.partial" "$STORE/bin/$sha"
	say "built $sha in $((SECONDS - start)) s"
	echo "$bin"
}
BIN_PUBLISHED="$(build "$PUBLISHED")"
BIN_REVERTED="$(build "$REVERTED")"
TRACE="$CHECKOUT/lib/bench/testdata/mooncake_trace_1000.jsonl"
[[ -f "$TRACE" ]] || die "$TRACE is missing: the 1.4.2 crate ships it"

# The row's configuration: disaggregated vLLM with KVBM G2 offload and small offload batches.
base_args() { # base_args G1 G2 BATCH [BANDWIDTH]; G2 "-": no KVBM offload (the control)
	local a=(--serving-mode disagg --num-prefill-workers 1 --num-decode-workers 1 --engine-type vllm
		--block-size 64 --trace-block-size 512 --arrival-speedup-ratio 4 --kv-bytes-per-token 131072
		--num-gpu-blocks "$1")
	[[ "$2" == - ]] || a+=(--num-g2-blocks "$2" --offload-batch-size "$3")
	[[ -z "${4:-}" ]] || a+=(--bandwidth-g1-to-g2-gbps "$4")
	printf '%s\n' "${a[@]}"
}

# ---- 3. the settings search ----
distinct() { sort -u "$1" 2>/dev/null | wc -l; }
if ((SEARCH)); then
	printf 'setting\tbuild\truns\tdistinct\tfailed\targs\tcpus\trequests\n' >"$OUT/search.tsv"
	for s in "${SETTINGS[@]}"; do
		read -r name g1 g2 batch bw cpus requests <<<"$s"
		[[ -z "$ONLY" || "$ONLY" == *",$name,"* ]] || continue
		[[ "$bw" == - ]] && bw=""
		trace="$TRACE"
		if [[ "$requests" != - ]]; then
			trace="$OUT/search/trace-first-$requests.jsonl"
			mkdir -p "$OUT/search"
			head -n "$requests" "$TRACE" >"$trace"
		fi
		mapfile -t args < <(base_args "$g1" "$g2" "$batch" "$bw")
		for build in published reverted; do
			bin="$BIN_PUBLISHED"
			[[ $build == reverted ]] && bin="$BIN_REVERTED"
			dir="$OUT/search/$name/$build"
			mkdir -p "$dir"
			: >"$dir/digests"
			failed=0
			for ((k = 1; k <= REPS; k++)); do
				# A run that fails is a finding of its own (1.4.2's disaggregated replay can end in
				# "reached a dead end with N in-flight requests"): counted and named, not a digest.
				if ! (cd "$dir" && taskset -c "$cpus" "$bin" "$trace" "${args[@]}" --canonical-reports-jsonl "rep-$k.jsonl" >"rep-$k.out" 2>&1); then
					failed=$((failed + 1))
					say "$name $build repetition $k failed: $(head -1 "$dir/rep-$k.out")"
					continue
				fi
				"$KVP" canon "$dir/rep-$k.jsonl" | awk '$2 == "sha256" {print $3; exit}' >>"$dir/digests"
			done
			printf '%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n' "$name" "$build" "$REPS" "$(distinct "$dir/digests")" "$failed" "${args[*]}" "$cpus" "${requests/-/1000}" >>"$OUT/search.tsv"
			say "$name $build: $REPS runs, $(distinct "$dir/digests") distinct digest(s), $failed failed"
		done
	done
fi
found="$(python3 - "$OUT/search.tsv" <<'PYEOF' 2>/dev/null || true
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = {}
for r in rows:
    by.setdefault(r["setting"], {})[r["build"]] = (int(r["distinct"]), int(r["failed"]))
hits = [s for s, v in by.items() if v.get("published") == (1, 0) and (v.get("reverted", (1, 0))[0] > 1 or v.get("reverted", (1, 0))[1] > 0)]
print(",".join(hits) if hits else "none")
PYEOF
)"

# ---- 4. the campaign ----
verdicts=""
if ((CAMPAIGN)); then
	mapfile -t args < <(base_args 2048 4096 4 "")
	row="$OUT/seed000-kvbm-1.4.2.toml"
	{
		echo "# Seed 000 (DYN-3850) in real builds: a historical KVBM row, written by scripts/seed000-kvbm.sh."
		echo "# Baseline: dynamo-bench 1.4.2 as published (the fix in); candidate: the fix reverted."
		echo "# Determinism only: the builds carry no timing extension (it anchors on aisimulate-core, 1.5+)."
		echo 'name = "seed000-kvbm-1.4.2"'
		echo
		echo "[baseline]"
		echo "binary = \"$BIN_PUBLISHED\""
		echo "revision = \"$PUBLISHED\""
		echo
		echo "[candidate]"
		echo "binary = \"$BIN_REVERTED\""
		echo "revision = \"$REVERTED\""
		echo
		echo "[trace]"
		echo "path = \"crate:dynamo-bench@1.4.2/testdata/mooncake_trace_1000.jsonl\""
		echo "offset = 0"
		echo "count = 1000"
		echo
		echo "[replay]"
		printf 'args = ['
		sep=""
		for a in "${args[@]}"; do printf '%s"%s"' "$sep" "$a"; sep=", "; done
		echo "]"
		echo
		echo "[determinism]"
		echo "repetitions = 10"
		echo 'timeout = "10m"'
		echo "pressure_band = [10, 20]"
	} >"$row"
	camp="$OUT/campaign"
	[[ ! -e "$camp" ]] || die "$camp exists: give a new OUT"
	say "kvparity run --stage determinism on $row"
	set +e
	"$KVP" run "$row" --campaign "$camp" --stage determinism --json >"$OUT/run.json" 2>"$OUT/run.log"
	code=$?
	set -e
	say "kvparity exit $code"
	verdicts="$(python3 - "$OUT/run.json" <<'PYEOF'
import json, sys
det = json.load(open(sys.argv[1])).get("determinism", {})
for arm, build in (("baseline", "published"), ("candidate", "reverted")):
    a = det.get(arm, {})
    print(f"{build} ({arm}): {a.get('verdict', '?')}: {a.get('reason', '')}")
PYEOF
)"
	echo "$verdicts" >"$OUT/verdicts.txt"
fi

# ---- the result ----
result="$(python3 - "$OUT/search.tsv" "$OUT/run.json" "${found:-not searched}" <<'PYEOF'
import csv, json, os, re, sys
tsv, run, found = sys.argv[1:4]
runs = {}
if os.path.exists(tsv):
    for r in csv.DictReader(open(tsv), delimiter="\t"):
        if r["setting"] == "issue":
            runs[r["build"]] = f"{r['runs']} runs, {r['distinct']} distinct digests, {r['failed']} failed"
det = json.load(open(run)).get("determinism", {}) if os.path.exists(run) else {}
parts = []
for arm, build in (("baseline", "published"), ("candidate", "reverted")):
    a = det.get(arm, {})
    symptom = ""
    m = re.search(r"diagnoses (.*?) \(first divergence", a.get("reason", ""))
    if m:
        symptom = f", first symptom: {m.group(1)}"
    verdict = f" {a['verdict']}" if "verdict" in a else ""
    parts.append(f"{build}{verdict} ({runs.get(build, 'not searched')}{symptom})")
print("seed000-kvbm: G1 2048, G2 4096, offload batch 4, 1 CPU: " + "; ".join(parts) +
      f"; settings where the published build is STABLE and the reverted one is not: {found}")
PYEOF
)"
echo "$result" >"$OUT/result.txt"
echo "$result"
