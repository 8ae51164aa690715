#!/usr/bin/env bash
# bench-diff-memory: peak RSS and wall time of `kvparity diff` on two 10 MB reports whose
# 5,000,000 array elements all differ (issue 13's flooding case), for this tree and for an
# older revision built in the same invocation, with the ratios new/old and RSS/input.
#
# Usage: scripts/bench-diff-memory.sh [REV]   (REV defaults to 04af81a, before the diff's
# memory work; N=elements overrides 5000000)
set -euo pipefail
cd "$(dirname "$0")/.."
REV=${1:-04af81a}; N=${N:-5000000}
WORK=$(mktemp -d -t bench-diff-mem.XXXXXX); trap 'rm -rf "$WORK"' EXIT
go build -o "$WORK/new" .
mkdir "$WORK/old" && git archive "$REV" | tar -x -C "$WORK/old"
(cd "$WORK/old" && go build -o "$WORK/oldbin" .)
python3 - "$WORK" "$N" <<'P'
import sys
w, n = sys.argv[1], int(sys.argv[2])
for name, v in (("a", "0"), ("b", "1")):
    open(f"{w}/{name}.json", "w").write('{"events":[' + ",".join([v] * n) + "]}")
P
measure() { # binary -> "rss_kib seconds"
  /usr/bin/time -f "%M %e" "$1" diff "$WORK/a.json" "$WORK/b.json" 2>"$WORK/t" >/dev/null || true
  tail -1 "$WORK/t"
}
in=$(( $(stat -c %s "$WORK/a.json") + $(stat -c %s "$WORK/b.json") ))
read -r orss osec < <(measure "$WORK/oldbin"); read -r nrss nsec < <(measure "$WORK/new")
python3 - "$in" "$orss" "$osec" "$nrss" "$nsec" "$REV" <<'P'
import sys
inp, orss, osec, nrss, nsec, rev = int(sys.argv[1]), *map(float, sys.argv[2:6]), sys.argv[6]
mb = lambda kib: kib / 1024
print(f"inputs {inp/1e6:.1f} MB")
print(f"{rev:>8}: peak RSS {mb(orss):7.0f} MiB ({orss*1024/inp:5.1f}x inputs)  {osec:5.2f} s")
print(f"    this: peak RSS {mb(nrss):7.0f} MiB ({nrss*1024/inp:5.1f}x inputs)  {nsec:5.2f} s")
print(f"ratio this/{rev}: RSS {nrss/orss:.2f}  time {nsec/osec:.2f}")
P
