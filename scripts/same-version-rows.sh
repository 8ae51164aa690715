#!/usr/bin/env bash
# same-version-rows.sh OUT --checkout DIR --baseline REF --candidate REF [--trace FILE] [--rows DIR]
#
# Writes into the folder OUT (made if missing; never the repository's rows/) one same-version row
# per authoritative row (default rows/authoritative/*.toml): the authoritative row with only its
# [baseline] and [candidate] replaced by the arms `kvparity init-row --checkout DIR --baseline REF
# --candidate REF` writes (git: sources pinned to full commits, paths relative to OUT), its
# name prefixed "samever-", and its header comment rewritten. [trace] (the https:// address and
# its sha256), [replay] args, [determinism], [perf] and [canonical] are the authoritative row's,
# unchanged: init-row names only a local trace file, so the row keeps the authoritative [trace]
# table, and the local copy given to init-row (--trace) must have that sha256 and enough rows for
# the window (checked).
#
#   --trace FILE   a local copy of the authoritative rows' trace, for init-row to read (default:
#                  kvparity's trace cache entry for the rows' sha256, which `kvparity trace add
#                  FILE` fills: $KVPARITY_BUILD_CACHE/trace-files/SHA256.jsonl)
#   --rows DIR     the authoritative rows (default: rows/authoritative of this repository)
#
# OUT/<row>.toml is written for each authoritative <row>.toml (an existing one is replaced: OUT
# is this script's output folder). stdout gets the rows written, one path a line.
# env: KVPARITY_BIN=path  the kvparity binary (default: built from this repository into a temp dir)
set -euo pipefail

die() { echo "same-version-rows: $*" >&2; exit 2; }
USAGE="usage: same-version-rows.sh OUT --checkout DIR --baseline REF --candidate REF [--trace FILE] [--rows DIR]"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="" checkout="" base="" cand="" trace="" rows="$root/rows/authoritative"
while (($#)); do
	arg="$1"
	shift
	case "$arg" in
	--checkout | --baseline | --candidate | --trace | --rows)
		(($#)) || die "$arg needs a value ($USAGE)"
		case "$arg" in
		--checkout) checkout="$1" ;; --baseline) base="$1" ;; --candidate) cand="$1" ;;
		--trace) trace="$1" ;; --rows) rows="$1" ;;
		esac
		shift
		;;
	-h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $arg ($USAGE)" ;;
	*) [[ -z "$out" ]] || die "two output folders given: $out and $arg"; out="$arg" ;;
	esac
done
[[ -n "$out" && -n "$checkout" && -n "$base" && -n "$cand" ]] || die "$USAGE"
[[ -d "$checkout/.git" ]] || die "--checkout $checkout is not a git checkout"
shopt -s nullglob
auth=("$rows"/*.toml)
((${#auth[@]})) || die "--rows $rows holds no .toml rows"
command -v python3 >/dev/null && python3 -c 'import tomllib' 2>/dev/null || die "needs python3 ≥ 3.11 (tomllib)"

out="$(realpath -m "$out")" # checked before anything is made
case "$out/" in "$(realpath -m "$root/rows")/"*) die "$out is inside the repository's rows/: give another folder" ;; esac
mkdir -p "$out"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/kvparity-samever-rows.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
bin="${KVPARITY_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$tmp/kvparity"
	(cd "$root" && go build -o "$bin" .)
fi

# The authoritative rows must all name one trace: its sha256 picks the default local copy.
sha="$(python3 - "${auth[@]}" <<'EOF'
import sys, tomllib
shas = {tomllib.load(open(p, "rb"))["trace"]["sha256"] for p in sys.argv[1:]}
if len(shas) != 1:
    sys.exit(f"the rows name {len(shas)} different traces: {sorted(shas)}")
print(shas.pop())
EOF
)"
if [[ -z "$trace" ]]; then
	trace="${KVPARITY_BUILD_CACHE:-$HOME/.cache/kvparity/builds}/trace-files/$sha.jsonl"
	[[ -f "$trace" ]] || die "no local copy of the trace $sha in kvparity's trace cache ($trace): run \`kvparity trace add FILE\` or give --trace FILE"
fi

for row in "${auth[@]}"; do
	stem="$(basename "$row" .toml)"
	dest="$out/$stem.toml"
	draft="$out/.init-row-$stem.toml" # init-row writes next to the row, so its paths hold for it
	rm -f "$draft"
	"$bin" init-row --checkout "$checkout" --baseline "$base" --candidate "$cand" --trace "$trace" --profile release -o "$draft" 2>"$tmp/init-row.err" ||
		{ rm -f "$draft"; cat "$tmp/init-row.err" >&2; die "kvparity init-row failed for $row"; }
	SAMEVER_ROOT="$root" python3 - "$row" "$draft" "$dest" "$stem" <<'EOF' || { rm -f "$draft"; exit 1; }
import os, re, sys, tomllib

auth_path, draft_path, dest, stem = sys.argv[1:]
auth_text = open(auth_path).read()
draft_text = open(draft_path).read()
auth, draft = tomllib.loads(auth_text), tomllib.loads(draft_text)

# The local trace init-row read must be the authoritative rows' trace, long enough for the window.
at, dt = auth["trace"], draft["trace"]
if dt["sha256"] != at["sha256"]:
    sys.exit(f"{auth_path}: the local trace init-row read has sha256 {dt['sha256']}, the row names {at['sha256']}")
if dt["count"] < at.get("offset", 0) + at["count"]:
    sys.exit(f"{auth_path}: the local trace has {dt['count']} usable rows in init-row's window, the row needs {at.get('offset', 0) + at['count']}")

def table(text, name):
    """The text of [name]: from its header to the line before the next header (or comment
    block above one), trailing blank lines dropped."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, l in enumerate(lines) if l.strip() == f"[{name}]")
    end = start + 1
    while end < len(lines) and not lines[end].startswith("["):
        end += 1
    while end > start + 1 and (lines[end - 1].strip() == "" or lines[end - 1].startswith("#")):
        end -= 1
    return start, end, lines

def replace_table(text, name, new_body):
    start, end, lines = table(text, name)
    return "".join(lines[:start]) + new_body + "".join(lines[end:])

def table_text(text, name):
    start, end, lines = table(text, name)
    return "".join(lines[start:end])

# init-row's comment lines about the arms: "# baseline: ..." and "# candidate: ..." with their
# continuation lines, up to the line that starts its build notes.
arms = []
keep = False
for l in draft_text.splitlines():
    if l.startswith("# baseline:") or l.startswith("# candidate:"):
        keep = True
    elif not l.startswith("#   "):
        keep = False
    if keep:
        arms.append(l)

name = "samever-" + stem
root = os.environ["SAMEVER_ROOT"]
shown = os.path.abspath(auth_path)
if shown.startswith(root + os.sep):
    shown = os.path.relpath(shown, root)
head = (
    f"# Same-version row {stem} of the protocol's authoritative matrix (stage 4): Dynamo 1.6.1's\n"
    "# offline_replay_bench against itself, built by kvparity from two commits of a Dynamo-shaped checkout\n"
    "# made from the published 1.6.1 crates (scripts/dynamo-checkout.sh --version 1.6.1): the base, and\n"
    "# a behaviour-neutral one-line edit (a comment in lib/kv-router). It should pass: same canonical\n"
    "# bytes, and performance within the gate. Written by scripts/same-version-rows.sh from\n"
    f"# {shown}: only [baseline] and [candidate] differ (from kvparity init-row\n"
    "# --checkout); [trace], [replay] args, [determinism], [perf] and [canonical] are the authoritative\n"
    "# row's. Its capacity is the authoritative row's until `kvparity qualify` freezes it on this\n"
    "# baseline.\n"
    + "\n".join(arms) + "\n"
)
body = auth_text[re.search(r"(?m)^name\s*=", auth_text).start():]
# The authoritative row's own qualification (a probe table on its baseline, a comment kvparity
# qualify writes above [replay]) is not this row's: drop it; qualify writes this row's.
body = re.sub(r"(?m)^# Qualified by kvparity qualify \(protocol stage 3\).*\n(?:#.*\n)*", "", body)
body = re.sub(r'(?m)^name\s*=.*$', 'name = "' + name + '"', body, count=1)
for arm in ("baseline", "candidate"):
    body = replace_table(body, arm, table_text(draft_text, arm))
text = head + body

got = tomllib.loads(text)
want = dict(auth)
want["name"] = name
want["baseline"], want["candidate"] = draft["baseline"], draft["candidate"]
if got != want:
    sys.exit(f"{dest}: the written row does not read back as the authoritative row with init-row's arms")
with open(dest + ".tmp", "w") as f:
    f.write(text)
os.replace(dest + ".tmp", dest)
EOF
	rm -f "$draft"
	echo "$dest"
done
