#!/usr/bin/env python3
"""Real pairs of Dynamo release replays for the diagnosis (issue 26).

Runs the published `python -m dynamo.replay` of ai-dynamo 1.3.1 and 1.4.0 (one virtual
environment each, ~/.cache/kvparity/venv-VERSION, made by `scripts/release-venvs.sh`) over
windows of the shared traces, aggregated and disaggregated, KV router and round robin, two
repetitions of each (release builds break routing ties with an unseeded RNG, so a repetition
is the only seed there is), and writes the pairs' manifest:

    same version twice   (VERSION, topology, router, trace) repetition 1 against 2
    1.3.1 against 1.4.0  (topology, router, trace) repetition 1 of each
    a 5,000-request pair of each kind (the timing target)

Everything is written under OUT (default ~/.cache/kvparity/release-pairs), never into the
checkout: the trace windows, each run's --report-jsonl and --report-json, and pairs.tsv
(name, A records, B records, A summary, B summary). A run already written is kept (delete OUT
to draw them again). Each replay runs from an argument vector in its own process group, two at
a time (the machine has two cores); a failed replay fails the script with its stderr's tail.

usage: scripts/release-pairs.py [--out DIR] [--traces DIR] [--small | --heldout]
  --small: only the agg/disagg KV-router pairs on the mooncake window (the CI test's set)
  --heldout: the independent held-out set (default OUT ~/.cache/kvparity/release-heldout):
             other trace windows, engines (trtllm, sglang), worker counts and arrival speeds
"""
import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

VERSIONS = ["1.3.1", "1.4.0"]
TOPOLOGIES = {
    "agg": ["--num-workers", "4"],
    "disagg": ["--num-prefill-workers", "2", "--num-decode-workers", "2",
               "--prefill-engine-args", '{"worker_type":"prefill"}',
               "--decode-engine-args", '{"worker_type":"decode"}'],
}
ROUTERS = {"kv": ["--router-mode", "kv_router"], "rr": ["--router-mode", "round_robin"]}
# (name, shared trace, first line, requests)
TRACES = [("moon1000", "mooncake_trace_1000.jsonl", 0, 1000),
          ("conv1000", "conversation_trace.jsonl", 3000, 1000)]
BIG = ("conv5000", "conversation_trace.jsonl", 0, 5000)
# The held-out set: (name, topology flags, trace window), each with both routers. Its traces,
# engines, worker counts and arrival speeds are none of the set above. (1.3.1's disaggregated
# sglang replay does not finish; TRT-LLM has no disaggregated trace replay.)
HELDOUT = [
    ("agg3-trtllm-x2", ["--num-workers", "3", "--extra-engine-args", '{"engine_type":"trtllm"}', "--arrival-speedup-ratio", "2"],
     ("conv800b", "conversation_trace.jsonl", 8000, 800)),
    ("agg2-sglang-b64", ["--num-workers", "2", "--extra-engine-args", '{"engine_type":"sglang","block_size":64,"num_gpu_blocks":3000}'],
     ("moon800b", "mooncake_trace_1000.jsonl", 200, 800)),
    ("disagg1+3-x2", ["--num-prefill-workers", "1", "--num-decode-workers", "3",
                      "--prefill-engine-args", '{"worker_type":"prefill"}', "--decode-engine-args", '{"worker_type":"decode"}',
                      "--arrival-speedup-ratio", "2"],
     ("conv800b", "conversation_trace.jsonl", 8000, 800)),
]
# A replay of 5,000 requests takes under a minute; one that runs past this has hung.
TIMEOUT_S = 600


def venv_python(version):
    return Path.home() / ".cache" / "kvparity" / f"venv-{version}" / "bin" / "python"


def window(traces, out, name, trace, first, count):
    """The trace window, written once under OUT (the shared trace is read, never copied)."""
    path = out / "traces" / f"{name}.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(traces / trace) as src:
            lines = src.readlines()[first:first + count]
        if len(lines) != count:
            sys.exit(f"{traces / trace}: {len(lines)} lines from line {first + 1}, want {count}")
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(lines))
        tmp.rename(path)
    return path


class Run:
    def __init__(self, out, version, topo, router, trace_name, trace_path, rep, topo_flags=None):
        self.name = f"{version}-{topo}-{router}-{trace_name}-r{rep}"
        self.dir = out / "runs" / self.name
        self.records, self.summary = self.dir / "records.jsonl", self.dir / "summary.json"
        flags = TOPOLOGIES[topo] if topo_flags is None else topo_flags
        self.argv = [str(venv_python(version)), "-m", "dynamo.replay", *flags, *ROUTERS[router],
                     "--trace-block-size", "512", "--report-json", str(self.summary),
                     "--report-jsonl", str(self.records), str(trace_path)]

    def done(self):
        return self.records.exists() and self.summary.exists() and (self.dir / "ok").exists()


def run_all(runs, parallel=2):
    todo = [r for r in runs if not r.done()]
    live = []
    try:
        while todo or live:
            while todo and len(live) < parallel:
                r = todo.pop(0)
                r.dir.mkdir(parents=True, exist_ok=True)
                log = open(r.dir / "stderr.log", "wb")
                p = subprocess.Popen(r.argv, stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL,
                                     start_new_session=True)  # its own process group, ended with it
                live.append((r, p, log, time.monotonic()))
            time.sleep(0.2)
            for item in list(live):
                r, p, log, t0 = item
                if p.poll() is None:
                    if time.monotonic() - t0 > TIMEOUT_S:
                        sys.exit(f"{r.name}: dynamo.replay still running after {TIMEOUT_S} s (hung?); see {r.dir / 'stderr.log'}")
                    continue
                live.remove(item)
                log.close()
                if p.returncode != 0:
                    tail = (r.dir / "stderr.log").read_text(errors="replace")[-2000:]
                    sys.exit(f"{r.name}: dynamo.replay exited {p.returncode}:\n{tail}")
                (r.dir / "ok").write_text(f"{time.monotonic() - t0:.1f} s\n")
                print(f"  {r.name}  {time.monotonic() - t0:.1f} s", file=sys.stderr)
    finally:
        for r, p, log, _ in live:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--traces", type=Path, default=Path(__file__).resolve().parent.parent.parent / "shared" / "traces")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--small", action="store_true")
    mode.add_argument("--heldout", action="store_true")
    args = ap.parse_args()
    for v in VERSIONS:
        if not venv_python(v).exists():
            sys.exit(f"{venv_python(v)} missing: run scripts/release-venvs.sh first")
    out = args.out or Path.home() / ".cache" / "kvparity" / ("release-heldout" if args.heldout else "release-pairs")
    out = out.expanduser()
    traces = TRACES[:1] if args.small else TRACES
    topos = list(TOPOLOGIES)
    routers = ["kv"] if args.small else list(ROUTERS)
    runs, pairs = {}, []

    def run(v, topo, router, tr, rep):
        path = window(args.traces, out, *tr)
        r = Run(out, v, topo, router, tr[0], path, rep)
        runs.setdefault(r.name, r)
        return r

    if args.heldout:
        for topo, flags, tr in HELDOUT:
            for router in ROUTERS:
                def hrun(v, rep, topo=topo, flags=flags, tr=tr, router=router):
                    r = Run(out, v, topo, router, tr[0], window(args.traces, out, *tr), rep, flags)
                    return runs.setdefault(r.name, r)
                for v in VERSIONS:
                    pairs.append((f"same-{v}-{topo}-{router}-{tr[0]}", hrun(v, 1), hrun(v, 2)))
                pairs.append((f"1.3.1-vs-1.4.0-{topo}-{router}-{tr[0]}", hrun("1.3.1", 1), hrun("1.4.0", 1)))
        traces = []
    for tr in traces:
        for topo in topos:
            for router in routers:
                for v in VERSIONS:
                    pairs.append((f"same-{v}-{topo}-{router}-{tr[0]}", run(v, topo, router, tr, 1), run(v, topo, router, tr, 2)))
                pairs.append((f"1.3.1-vs-1.4.0-{topo}-{router}-{tr[0]}", run("1.3.1", topo, router, tr, 1), run("1.4.0", topo, router, tr, 1)))
    if not args.small and not args.heldout:
        pairs.append((f"same-1.4.0-agg-kv-{BIG[0]}", run("1.4.0", "agg", "kv", BIG, 1), run("1.4.0", "agg", "kv", BIG, 2)))
        pairs.append((f"1.3.1-vs-1.4.0-agg-kv-{BIG[0]}", run("1.3.1", "agg", "kv", BIG, 1), run("1.4.0", "agg", "kv", BIG, 1)))
    print(f"{len(runs)} replays ({sum(not r.done() for r in runs.values())} to run) under {out}", file=sys.stderr)
    run_all(list(runs.values()))
    manifest = out / ("pairs-small.tsv" if args.small else "pairs.tsv")
    with open(manifest, "w") as f:
        for name, a, b in pairs:
            f.write("\t".join([name, str(a.records), str(b.records), str(a.summary), str(b.summary)]) + "\n")
    print(manifest)


if __name__ == "__main__":
    main()
