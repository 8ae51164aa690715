#!/usr/bin/env bash
# e2e-report.sh: a whole campaign through the workbench in a real terminal, ending in the report.
# Builds kvparity, opens it in a private detached tmux server (100x30) on the tiny built-in row,
# presses S (determinism) and waits for parity, p (performance) and waits for the perf verdict,
# s (save report) and waits for "report written", then q. Then, headless:
#   - `kvparity report DIR` must reproduce the workbench's report.md and report.json byte for byte;
#   - report.md must state the semantic verdict PASS and the recorded performance verdict;
#   - `kvparity clean DIR` must leave exactly the evidence stage 9 retains, and the report
#     written again afterwards must be reproducible too.
#
# usage: scripts/e2e-report.sh          (from anywhere in the repository)
# env:   KVPARITY_BIN=path   use this binary instead of building one
#        KEEP=1              keep the work folder (printed) for inspection
#        TIMEOUT=seconds     how long to wait for each stage (default 120)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-e2e.XXXXXX")"
sock="kvparity-e2e-$$"
session="wb"
timeout="${TIMEOUT:-120}"
dir="$work/campaign"

cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	if [[ -n "${KEEP:-}" ]]; then echo "e2e-report: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() { echo "e2e-report: FAIL: $*" >&2; exit 1; }

command -v tmux >/dev/null || { echo "e2e-report: tmux is not installed" >&2; exit 2; }
bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$work/kvparity"
	(cd "$root" && go build -o "$bin" .)
fi

tmux -L "$sock" -f /dev/null new-session -d -s "$session" -x 100 -y 30 \
	"cd '$work' && '$bin' --row tiny --campaign '$dir'; echo \"kvparity exited with status \$?\"; sleep 30"
capture() { tmux -L "$sock" capture-pane -p -t "$session"; }
# wait_for PATTERN: poll the screen until PATTERN (extended regex) shows, or fail.
wait_for() {
	local deadline=$((SECONDS + timeout))
	while ((SECONDS < deadline)); do
		capture | grep -qE "$1" && return 0
		sleep 0.3
	done
	capture >&2
	fail "\"$1\" never appeared on the screen"
}

wait_for "press S to start the determinism stage"
tmux -L "$sock" send-keys -t "$session" S
wait_for "parity (PASS|FAIL|BLOCKED)"
tmux -L "$sock" send-keys -t "$session" p
wait_for "perf (PASS|FAIL|INCONCLUSIVE|BLOCKED)"
tmux -L "$sock" send-keys -t "$session" s
wait_for "report written: "
tmux -L "$sock" send-keys -t "$session" q
wait_for "kvparity exited with status 0"

[[ -s "$dir/report.md" && -s "$dir/report.json" ]] || fail "the save key wrote no report"
cp "$dir/report.md" "$work/saved.md"
cp "$dir/report.json" "$work/saved.json"
"$bin" report "$dir" >/dev/null
cmp -s "$dir/report.md" "$work/saved.md" || fail "kvparity report does not reproduce the workbench's report.md"
cmp -s "$dir/report.json" "$work/saved.json" || fail "kvparity report does not reproduce the workbench's report.json"
grep -q "^## Semantic verdict: PASS$" "$dir/report.md" || fail "report.md does not state the semantic verdict PASS"
grep -qE "^## Performance verdict: (PASS|FAIL|INCONCLUSIVE)$" "$dir/report.md" || fail "report.md states no performance verdict"

"$bin" clean "$dir"
left="$(cd "$dir" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')"
want="artifacts.json campaign.lock host.json journal.jsonl perf/result.json perf/samples.json perf/samples.txt plots/e2e.png plots/e2e.svg plots/pressure.png plots/pressure.svg plots/ratios.png plots/ratios.svg plots/ttft.png plots/ttft.svg report.json report.md row.toml runs/det/baseline-1/evidence.json runs/det/baseline-1/metrics.json runs/det/baseline-2/evidence.json runs/det/baseline-2/metrics.json runs/det/candidate-1/evidence.json runs/det/candidate-1/metrics.json runs/det/candidate-2/evidence.json runs/det/candidate-2/metrics.json schedule.json summary.md trace/checksums.json "
[[ "$left" == "$want" ]] || fail "after clean: $left (want $want)"
cp "$dir/report.md" "$work/cleaned.md"
"$bin" report "$dir" >/dev/null
cmp -s "$dir/report.md" "$work/cleaned.md" || fail "the report after clean is not reproducible"
echo "e2e-report: PASS (workbench campaign, saved report reproduced headless, semantic PASS, clean left the evidence)"
