#!/usr/bin/env python3
"""perturbed-campaigns: run N determinism-only campaigns of each row and tally the verdicts.

Usage: scripts/perturbed-campaigns.py N ROW.toml [ROW.toml ...]   (from the repository root;
KVPARITY=path uses a built binary, else `go build` makes one; WORK=dir keeps the campaigns)

For each row it prints how many campaigns ended STABLE / UNSTABLE per arm, the findings that
named the trigger, the preflight's judgement, and the stage's time with and without the
preflight and perturbed repetitions (median over campaigns, from the journal's timestamps:
plain = first plain repetition start to last plain repetition end; whole = first record after
the campaign's founding records to the last run end).
"""
import collections, datetime, json, os, statistics, subprocess, sys, tempfile

def ts(s):
    s = s.rstrip("Z")
    if "." in s:
        a, b = s.split(".")
        s = a + "." + b[:6]
    return datetime.datetime.fromisoformat(s)

def journal(path):
    out = []
    for line in open(path):
        out.append(json.loads(line.split(" ", 1)[1]))
    return out

def main():
    n, rows = int(sys.argv[1]), sys.argv[2:]
    binary = os.environ.get("KVPARITY")
    work = os.environ.get("WORK") or tempfile.mkdtemp(prefix="perturbed-campaigns.")
    if not binary:
        binary = os.path.join(work, "kvparity")
        subprocess.run(["go", "build", "-o", binary, "."], check=True)
    for row in rows:
        verdicts = collections.Counter()
        findings = collections.Counter()
        preflight = collections.Counter()
        plain_s, whole_s = [], []
        name = os.path.splitext(os.path.basename(row))[0]
        for i in range(n):
            d = os.path.join(work, f"{name}-{i}")
            r = subprocess.run([binary, "run", row, "--stage", "determinism", "--campaign", d, "--json"],
                               capture_output=True, text=True)
            try:
                doc = json.loads(r.stdout)
            except json.JSONDecodeError:
                print(f"{row} campaign {i}: no JSON (exit {r.returncode}): {r.stderr[-400:]}")
                continue
            for arm in ("baseline", "candidate"):
                a = doc["arms"][arm]
                verdicts[(arm, a["verdict"])] += 1
                if a.get("finding"):
                    findings[(arm, a["finding"])] += 1
                p = a.get("preflight")
                if p:
                    preflight[(arm, "single-core" if p["single_core"] else f"{p['cpus_per_run']} CPUs per run")] += 1
            recs = journal(os.path.join(d, "journal.jsonl"))
            plain = [x for x in recs if x.get("kind") == "repetition" and x["type"] in ("run_start", "run_end")]
            runs = [x for x in recs if x["type"] in ("run_start", "run_end")]
            if plain:
                plain_s.append((ts(plain[-1]["at"]) - ts(plain[0]["at"])).total_seconds())
                whole_s.append((ts(runs[-1]["at"]) - ts(runs[0]["at"])).total_seconds())
        print(f"== {row}: {n} campaigns")
        for (arm, v), k in sorted(verdicts.items()):
            print(f"  {arm:9} {v:10} {k}")
        for (arm, f), k in sorted(findings.items()):
            print(f"  {arm:9} finding ({k}): {f}")
        for (arm, p), k in sorted(preflight.items()):
            print(f"  {arm:9} preflight {p}: {k}")
        if plain_s:
            mp, mw = statistics.median(plain_s), statistics.median(whole_s)
            print(f"  stage time median: plain repetitions {mp:.2f} s, whole stage {mw:.2f} s, ratio {mw/mp:.2f}")

main()
