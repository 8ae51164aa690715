#!/usr/bin/env bash
# loaded-suite.sh OUT [--commit REF] [--runs N] [--clone]
#
# The full race suite, as the README runs it, N times in a row (default 3) while another process
# keeps one CPU busy (`stress-ng --cpu 1`): issue 42's condition for tests that must wait on
# conditions, never on a machine's speed. Each run is `go test -race -count=1 ./...` with go
# test's default per-package timeout (10 minutes), exactly the README's command plus -count=1 so
# nothing is served from the test cache.
#
# The tree tested is a copy of commit REF (default HEAD) under OUT, so edits in this checkout do
# not disturb the runs:
#   default   a git worktree at OUT/kvparity, with OUT/shared linked to the ../shared beside this
#             checkout when there is one (the public traces the real-trace tests read);
#   --clone   a fresh `git clone` at OUT/kvparity with nothing beside it: a user's clone, where
#             the tests that need ../shared skip by their documented rule.
#
# OUT gets run-K.log (go test's output) and summary.txt: per run the exit status, the wall
# seconds, the load average at its end and the slowest package. The last line of stdout is the
# result: how many runs passed, in a row, and their times. stress-ng runs in its own process group
# and is stopped when the script ends, however it ends.
set -euo pipefail

die() { echo "loaded-suite: $*" >&2; exit 3; }

USAGE="usage: loaded-suite.sh OUT [--commit REF] [--runs N] [--clone]"
[[ ${1:-} != -h && ${1:-} != --help ]] || { sed -n '2,/^set /p' "$0" | sed '$d'; exit 0; }
[[ $# -ge 1 && $1 != -* ]] || die "$USAGE"
OUT=$1
shift
REF=HEAD RUNS=3 CLONE=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--commit) REF=${2:?--commit needs a ref}; shift ;;
	--runs) RUNS=${2:?--runs needs a count}; shift ;;
	--clone) CLONE=1 ;;
	-h | --help) sed -n '2,/^set /p' "$0" | sed '$d'; exit 0 ;;
	*) die "unknown argument $1; $USAGE" ;;
	esac
	shift
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs: $RUNS is not a positive count"
command -v stress-ng >/dev/null || die "stress-ng is not installed (apt-get install stress-ng)"
[[ ! -e $OUT ]] || die "$OUT exists: give a new OUT"

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
commit=$(git -C "$repo" rev-parse --verify "$REF^{commit}") || die "--commit: $REF is not a commit"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
tree=$OUT/kvparity
if ((CLONE)); then
	git clone --quiet --no-local "$repo" "$tree"
	git -C "$tree" checkout --quiet --detach "$commit"
else
	git -C "$repo" worktree add --quiet --detach "$tree" "$commit"
	if [[ -d $repo/../shared ]]; then
		ln -s "$(cd "$repo/../shared" && pwd)" "$OUT/shared"
	fi
fi

setsid stress-ng --cpu 1 --timeout 6h >/dev/null 2>&1 &
busy=$!
stop() {
	kill -- -"$busy" 2>/dev/null || true
	wait "$busy" 2>/dev/null || true
	if ((!CLONE)); then git -C "$repo" worktree remove --force "$tree" 2>/dev/null || true; fi
}
trap stop EXIT

summary=$OUT/summary.txt
echo "commit $(git -C "$tree" rev-parse --short HEAD) · $( ((CLONE)) && echo "fresh clone, no ../shared" || echo "worktree, ../shared $( [[ -e $OUT/shared ]] && echo linked || echo absent)") · stress-ng --cpu 1 · $(nproc) CPUs" >"$summary"
passed=0 streak=0 times=()
for ((k = 1; k <= RUNS; k++)); do
	start=$(date +%s)
	set +e
	(cd "$tree" && go test -race -count=1 ./...) >"$OUT/run-$k.log" 2>&1
	code=$?
	set -e
	secs=$(($(date +%s) - start))
	slowest=$(awk '$1 == "ok" || $1 == "FAIL" { if ($NF ~ /s$/) { t = $NF; sub(/s$/, "", t); if (t + 0 > best) { best = t + 0; name = $2 } } } END { if (name != "") printf "%s %.0f s", name, best }' "$OUT/run-$k.log")
	echo "run $k: exit $code, ${secs} s, load $(cut -d' ' -f1-3 /proc/loadavg), slowest ${slowest:-?}" >>"$summary"
	times+=("${secs} s")
	if ((code == 0)); then
		passed=$((passed + 1)) streak=$((streak + 1))
	else
		streak=0
		grep -E '^(--- FAIL|FAIL|panic:)' "$OUT/run-$k.log" | head -20 >>"$summary" || true
	fi
done
cat "$summary" >&2
echo "loaded-suite: $passed of $RUNS runs passed ($streak in a row at the end) beside stress-ng --cpu 1: ${times[*]}"
