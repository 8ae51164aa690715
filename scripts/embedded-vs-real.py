#!/usr/bin/env python3
"""Embedded engine against real Dynamo on one trace and one set of flags (issue: measure only).

usage: scripts/embedded-vs-real.py TRACE NAME=BINARY [NAME=BINARY ...] -- REPLAY ARGS...

Each BINARY is run three times (fresh processes) with the given replay args, writing canonical
reports and timings; "builtin" means `kvparity replay` (the kvparity binary in $KVPARITY, default
./kvparity). Prints one table: lifecycle counters (preemptions, completions, overlap-positive
routing decisions, handoffs), TTFT/TPOT p50 and p99, and the median of replay_execution_ms over
the runs (wall_time_ms when a harness has no replay_execution_ms).
"""
import json, os, statistics, subprocess, sys, tempfile

def run(binary, trace, args, out):
    cmd = [os.environ.get("KVPARITY", "./kvparity"), "replay"] if binary == "builtin" else [binary]
    cmd += [trace, *args, "--canonical-reports-jsonl", f"{out}/c.jsonl", "--timings-jsonl", f"{out}/t.jsonl"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rec = json.loads(open(f"{out}/c.jsonl").readline())
    timing = json.loads(open(f"{out}/t.jsonl").readline())
    return rec, timing

def counters(rec):
    pr = rec["per_request"]
    s = rec["summary"]
    handoffs = sum(1 for r in pr if r.get("source_released_ms") is not None and r.get("destination_activated_ms") is not None)
    return {
        "preemptions": len(rec["coverage"]["pressure"]["records"]),
        "completed": sum(1 for r in pr if r["terminal_status"] == "completed"),
        "overlap>0": sum(1 for r in pr for h in r["routing_history"] if (h.get("reported_overlap_tokens") or 0) > 0),
        "handoffs": handoffs,
        "ttft p50": s["median_ttft_ms"], "ttft p99": s["p99_ttft_ms"],
        "tpot p50": s["median_tpot_ms"], "tpot p99": s["p99_tpot_ms"],
    }

def main():
    sep = sys.argv.index("--")
    trace, arms, args = sys.argv[1], sys.argv[2:sep], sys.argv[sep + 1:]
    rows = []
    for arm in arms:
        name, binary = arm.split("=", 1)
        times, c = [], None
        for _ in range(3):
            with tempfile.TemporaryDirectory() as out:
                rec, timing = run(binary, trace, args, out)
                c = counters(rec)
                field = "replay_execution_ms" if timing.get("replay_execution_ms") is not None else "wall_time_ms"
                times.append(timing[field])
        c[f"{field} (median of 3)"] = statistics.median(times)
        rows.append((name, c))
    keys = list(rows[0][1].keys())
    print("| " + " | ".join(["engine"] + keys) + " |")
    print("|" + "---|" * (len(keys) + 1))
    for name, c in rows:
        cells = [f"{c[k]:.1f}" if isinstance(c[k], float) else str(c[k]) for k in keys]
        print("| " + " | ".join([name] + cells) + " |")

if __name__ == "__main__":
    main()
