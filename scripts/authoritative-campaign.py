#!/usr/bin/env python3
"""authoritative-campaign.sh's helper: reduce a row to N pairs; summarise a matrix's verdicts
and its wall time against the floor (the replay processes' own wall times, from the journals)."""
import json, os, re, sys


def reduce(src, dst, pairs):
    text = open(src).read()
    name = os.path.basename(dst)[:-len(".toml")]
    text = re.sub(r'^name = ".*"$', 'name = "%s"' % name, text, count=1, flags=re.M)
    text = re.sub(r'^pairs = \d+$', "pairs = %d" % int(pairs), text, count=1, flags=re.M)
    text = re.sub(r'^warmups_per_arm = \d+$', "warmups_per_arm = 2", text, count=1, flags=re.M)
    head = ("# A REDUCED copy of %s for a quick run (authoritative-campaign.sh --pairs %s): %s pairs and\n"
            "# 2 warmups per arm, not the protocol's 60 and 5; its report says so. Everything else is the\n"
            "# shipped row's, its qualified capacity included.\n" % (src, pairs, pairs))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    open(dst, "w").write(head + text)


def qualified(row, result, code):
    """Stop unless the qualification chose the row's own capacity (exit 1 otherwise)."""
    text = open(row).read()
    m = re.search(r'"--num-gpu-blocks"\s*,\s*"(\d+)"', text)
    want = int(m.group(1)) if m else None
    try:
        res = json.load(open(result))
    except (OSError, ValueError) as e:
        sys.exit("%s: no qualification result (exit %s): %s" % (row, code, e))
    line = "%s: %s at %s blocks (the row holds %s): %s" % (row, res.get("outcome"), res.get("chosen"), want, res.get("why"))
    print(line, file=sys.stderr)
    if res.get("outcome") != "QUALIFIED" or res.get("chosen") != want:
        sys.exit("%s: requalify the row and record why its capacity changed" % row)


def journal(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            # each line is "<crc> <json>" or plain JSON, as engine/journal writes it
            i = line.find("{")
            try:
                yield json.loads(line[i:])
            except ValueError:
                continue


def summary(matrix, code, wall):
    wall = float(wall)
    floor = 0.0
    runs = 0
    for root, _, files in os.walk(matrix):
        if "journal.jsonl" in files:
            for rec in journal(os.path.join(root, "journal.jsonl")):
                if rec.get("type") == "run_end":
                    floor += rec.get("elapsed_ms", 0) / 1000
                    runs += 1
    verdicts = []
    undecided = []
    try:
        m = json.load(open(os.path.join(matrix, "matrix.json")))
        for r in m.get("rows", []):
            words = " ".join("%s %s" % (k, (r.get(k) or {}).get("verdict", "-")) for k in ("semantic", "performance", "overall"))
            verdicts.append("%s: %s" % (r.get("row"), words))
            if (r.get("semantic") or {}).get("verdict") in (None, "UNDECIDED", "BLOCKED"):
                undecided.append(r.get("row"))
    except (OSError, ValueError) as e:
        verdicts.append("no matrix.json (%s)" % e)
        undecided.append("matrix")
    print("; ".join(verdicts))
    ratio = wall / floor if floor else float("inf")
    print("exit %s · wall %.0f s · floor %.0f s (%d replay processes) · wall/floor %.2f×" % (code, wall, floor, runs, ratio))
    if undecided:
        # The matrix's own exit status is the verdicts' (a cross-version matrix may FAIL); the
        # script fails only when a row's semantic verdict was never decided.
        sys.exit("no semantic verdict for: %s" % ", ".join(undecided))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "reduce":
        reduce(*sys.argv[2:5])
    elif cmd == "qualified":
        qualified(*sys.argv[2:5])
    elif cmd == "summary":
        summary(*sys.argv[2:5])
    else:
        sys.exit("usage: authoritative-campaign.py reduce SRC DST N | summary MATRIX CODE WALL")
