#!/usr/bin/env python3
"""desk-loop-phases.py JOURNAL: the times desk-loop.sh reports, as shell words.

Prints one line: stale_at pinned_at parity_at gen build_seconds units fresh changed entry
(epoch seconds for the first three; 0 when a record is missing). Each journal line is
"CRC32 {record}"; the records read are the candidate's stale record (watch saw the new
revision built), its newest pin (with the build's record) and the last parity verdict.
"""
import datetime
import json
import os
import sys

recs = [json.loads(line.split(" ", 1)[1]) for line in open(sys.argv[1]) if line.strip()]


def ts(r):
    return datetime.datetime.fromisoformat(r["at"].replace("Z", "+00:00")).timestamp() if r else 0


stale = next((r for r in recs if r["type"] == "stale" and r.get("arm") == "candidate"), None)
pins = [r for r in recs if r["type"] == "pinned" and r.get("arm") == "candidate"]
parity = [r for r in recs if r["type"] == "verdict" and r.get("stage") == "parity"]
pin = pins[-1] if len(pins) > 1 else None
b = (pin or {}).get("artifact", {}).get("Build") or {}
entry = os.path.dirname(os.path.dirname(b["binary"])) if b.get("binary") else "-"
print(ts(stale), ts(pin), ts(parity[-1] if len(parity) > 1 else None), pin["gen"] if pin else 0,
      b.get("build_seconds", 0), b.get("compiled_units", 0), b.get("fresh_units", 0), b.get("changed_files", 0), entry)
