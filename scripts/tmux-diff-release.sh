#!/usr/bin/env bash
# tmux-diff-release.sh: the workbench's diff pane on a real pair of Dynamo release replays
# (issue 26), in a real terminal. The workbench's diff pane opens on a campaign's kept
# baseline and candidate reports and reads a release replay's --report-jsonl records as
# natively as a canonical report, but no command opens it on two files of one's own; so the
# script copies a finished campaign whose parity failed (both reports kept) into a temp
# folder, puts the pair's records where the copy keeps its two reports, opens the copy
# (kvparity open) in a detached tmux session, presses d and prints the screen. The copy is
# deleted at exit; the campaign and the pair's files are only read.
#
# usage: scripts/tmux-diff-release.sh [PAIR]   (default 1.3.1-vs-1.4.0-disagg-kv-moon1000)
# env:   PAIRS=file          the pairs' manifest (default ~/.cache/kvparity/release-pairs/pairs.tsv,
#                            written by scripts/release-pairs.py)
#        CAMPAIGN=dir        a finished determinism campaign with both reports kept (default:
#                            run one of rows/dynamo-1.5.1-vs-1.6.1.toml in the temp folder;
#                            its builds must be in the build cache)
#        KVPARITY_BIN=path   use this binary instead of building one
#        CAPTURE_OUT=file    also copy the capture there
#        SIZE=WxH            terminal size (default 120x40)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pair="${1:-1.3.1-vs-1.4.0-disagg-kv-moon1000}"
pairs="${PAIRS:-$HOME/.cache/kvparity/release-pairs/pairs.tsv}"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-tmux-diff.XXXXXX")"
sock="kvparity-diff-$$"
session="diff"
size="${SIZE:-120x40}"
cols="${size%x*}"
rows="${size#*x}"

cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

command -v tmux >/dev/null || { echo "tmux-diff-release: tmux is not installed" >&2; exit 2; }
[[ -f "$pairs" ]] || { echo "tmux-diff-release: $pairs: no manifest (python3 scripts/release-pairs.py)" >&2; exit 2; }
line="$(awk -F'\t' -v p="$pair" '$1 == p' "$pairs")"
[[ -n "$line" ]] || { echo "tmux-diff-release: $pairs: no pair named $pair" >&2; exit 2; }
IFS=$'\t' read -r _ recA recB _ _ <<<"$line"

bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$work/kvparity"
	(cd "$root" && go build -o "$bin" .)
fi

campaign="$work/campaign"
if [[ -n "${CAMPAIGN:-}" ]]; then
	cp -r "$CAMPAIGN" "$campaign"
	rm -f "$campaign/campaign.lock"
else
	# exit status 1: parity FAIL between the two versions, which is what keeps both reports
	(cd "$root" && "$bin" run rows/dynamo-1.5.1-vs-1.6.1.toml --campaign "$campaign" --stage determinism >/dev/null 2>"$work/run.log") || true
fi
for arm in baseline candidate; do
	[[ -f "$campaign/runs/det/$arm-1/report.json" ]] || { echo "tmux-diff-release: $campaign keeps no $arm-1 report (parity passed?)" >&2; cat "$work/run.log" >&2 2>/dev/null; exit 2; }
done
cp "$recA" "$campaign/runs/det/baseline-1/report.json"
cp "$recB" "$campaign/runs/det/candidate-1/report.json"

tmux -L "$sock" -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" \
	"cd '$work' && '$bin' open '$campaign'; echo \"kvparity exited with status \$?\"; sleep 30"

capture() { tmux -L "$sock" capture-pane -p -t "$session"; }
wait_for() { for _ in $(seq 1 "${2:-50}"); do capture | grep -q -- "$1" && return 0; sleep 0.1; done; }

wait_for "DETERMINISM" 150
tmux -L "$sock" send-keys -t "$session" d
wait_for "^ first " 150
tmux -L "$sock" send-keys -t "$session" z # the diff pane alone: its diagnosis whole
sleep 1
screen="$(capture)"
echo "$screen"
[[ -n "${CAPTURE_OUT:-}" ]] && printf '%s\n' "$screen" >"$CAPTURE_OUT"
# The pane's head: "first" (the first divergence) and "why" (the diagnosis's leading cause).
grep -q "^ first " <<<"$screen" && grep -q "^ why " <<<"$screen" || { echo "tmux-diff-release: FAIL: the diff pane shows no first divergence and diagnosis" >&2; exit 1; }
grep -q "unclassified" <<<"$screen" && { echo "tmux-diff-release: FAIL: the diagnosis leaves differences unclassified" >&2; exit 1; }
tmux -L "$sock" send-keys -t "$session" q
echo "tmux-diff-release: PASS ($pair: the diff pane shows the first divergence and the diagnosis)"
