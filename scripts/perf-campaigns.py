"""perf-campaigns.py — the row copies and the table of scripts/perf-campaigns.sh.

  rows ROW ROWDIR N OUT MODE VARIANT   write OUT/row-k.toml, k = 1..N (schedule seed + k - 1)
  line K DIR EXIT WALL LOAD            one table line from campaign DIR's perf/result.json
  count TABLE                          the verdict counts of a table
"""

import json
import os
import re
import sys


def rows(row, rowdir, n, out, mode, variant):
    text = open(row).read()
    seed = int(re.search(r"^schedule_seed\s*=\s*(\d+)", text, re.M).group(1))
    # Relative paths (a shipped row's trace) are read from the row's folder.
    text = re.sub(r'^(path\s*=\s*")(?!/|crate:|generated:)', lambda m: m.group(1) + rowdir + "/", text, flags=re.M)
    cand = re.search(r"^\[candidate\]\n(.*?)(?=^\[)", text, re.M | re.S)
    body = cand.group(1)
    if mode in ("aa", "variant"):
        body = re.sub(r"^variant\s*=.*\n", "", body, flags=re.M)
    if mode == "variant":
        body += 'variant  = "%s"\n' % variant
    text = text[: cand.start(1)] + body + text[cand.end(1) :]
    for k in range(1, int(n) + 1):
        t = re.sub(r"^schedule_seed\s*=\s*\d+", "schedule_seed = %d" % (seed + k - 1), text, flags=re.M)
        open(os.path.join(out, "row-%d.toml" % k), "w").write(t)


def line(k, d, code, wall, load):
    try:
        r = json.load(open(os.path.join(d, "perf", "result.json")))
    except (OSError, ValueError) as e:
        err = open(d + ".err").read().strip().splitlines()
        print("%3s  exit %s  no perf result (%s): %s" % (k, code, e.__class__.__name__, err[-1] if err else ""))
        return
    a = r.get("analysis") or {}
    breached = [x["name"] for x in (a.get("battery") or {}).get("diagnostics") or [] if x.get("outcome") == "breached"]
    lag1 = next((x.get("statistic") for x in (a.get("battery") or {}).get("diagnostics") or [] if x.get("name", "").startswith("lag-1")), None)
    # The bounds of the rule that decided: the block medians' when they did.
    lo, hi = r.get("lower") or 0, r.get("upper") or 0
    dep = a.get("dependent") or {}
    if r.get("decided_by") == dep.get("method"):
        lo, hi = dep.get("lower") or 0, dep.get("upper") or 0
    print(
        "%3s  seed %d  %-12s by %-17s median %.4f  bounds [%.4f, %.4f]  r1 %s  breached %s  reruns %d  wall %.0f s  load %s"
        % (k, r["schedule"]["seed"], r["verdict"], r.get("decided_by") or "-", r.get("median_ratio") or 0,
           lo, hi, "%.3f" % lag1 if lag1 is not None else "-",
           ",".join(breached) or "none", len(r.get("invalidations") or []), float(wall), load)
    )


def count(table):
    words = {}
    for l in open(table):
        m = re.match(r"\s*\d+\s+seed \d+\s+(\S+)\s+by (\S+)", l)
        w = (m.group(1), m.group(2)) if m else ("NO-RESULT", "-")
        words[w] = words.get(w, 0) + 1
    print("counts: " + ", ".join("%d %s (by %s)" % (c, w, by) for (w, by), c in sorted(words.items())))


if __name__ == "__main__":
    {"rows": rows, "line": line, "count": count}[sys.argv[1]](*sys.argv[2:])
