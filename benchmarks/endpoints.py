"""The bundled suites against 1, 2 and 4 endpoints of one model (`--tom-base-url "URL URL"`).

Each endpoint is a loopback chat-completions server (`tests/chat_server.py`)
with a fixed latency L (default 200 ms) and a fixed number of slots S (default
8): at most S requests are worked on at once, the others wait, as on a
llama.cpp server started with `-np S` or a vLLM replica at its batch limit. So
one endpoint answers at most S/L requests a second, and k endpoints k times as
many. The pytest run (every bundled suite under `suites/`, the openai backend,
the response cache on in a fresh folder as in a first run, `--tom-concurrency` C, default 32 = 4 endpoints x 8 slots) is
timed for each endpoint count, and every figure is printed as a ratio to the
1-endpoint run of the same script run (the machine is shared and noisy; the
load average is printed beside each run).

Figures per run: the whole pytest process (start-up, collection, scoring and
summary included: about the same for every endpoint count) and the request
phase as the servers saw it (first request arriving to the last answer sent).
The ideal request phase is N·L / min(C, k·S). Every run must answer every item,
without errors, with as many answers as the 1-endpoint run, and no prompt answered
more often than there (a few bundled items send the same messages with other
parameters: those are answered once per parameter set in every run).

    python benchmarks/endpoints.py [--endpoints 1 2 4] [--latency 0.2] [--slots 8]
                                   [--concurrency 32] [--limit N] [--failing]

`--failing` makes the first endpoint of each multi-endpoint run fail half its
requests (HTTP 500), to see what retries moved elsewhere cost.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from chat_server import ChatServer  # noqa: E402


def answer(body: dict[str, Any]) -> str:
    """The same short answer to everything: the scores do not matter here, the time does."""
    return "a)"


def run(count: int, args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """One pytest process over the bundled suites against `count` fresh servers."""
    report = root / f"report-{count}.json"
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(ChatServer(
            answer, latency=args.latency, slots=args.slots, seed=i,
            failure_rate=0.5 if (args.failing and count > 1 and i == 0) else 0.0,
            failure_statuses=(500,))) for i in range(count)]
        cmd = [sys.executable, "-m", "pytest", str(REPO / "suites"), "-q", "--tb=no",
               "-p", "no:cacheprovider", "-p", "pytest_tom.plugin", "--tom-model=openai:bench",
               "--tom-base-url=" + " ".join(s.base_url for s in servers),
               f"--tom-concurrency={args.concurrency}", "--tom-items=report",
               f"--tom-cache-dir={root / f'cache-{count}'}", "--tom-cache-clear",
               "--tom-retries=10", "--tom-backoff=0.05", f"--tom-report={report}",
               *([f"--tom-limit={args.limit}"] if args.limit else [])]
        env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env)
        whole = time.perf_counter() - start
        load = os.getloadavg()[0]
        firsts = [s.first_arrival for s in servers if s.first_arrival is not None]
        lasts = [s.last_reply for s in servers if s.last_reply is not None]
        answered: Counter[str] = Counter()
        for s in servers:
            answered.update(s.answered)
        per_server = [(s.requests, s.failures, s.peak_in_flight) for s in servers]
    if not report.exists():
        raise SystemExit(f"the {count}-endpoint run wrote no report:\n{proc.stdout[-3000:]}\n"
                         f"{proc.stderr[-2000:]}")
    data = json.loads(report.read_text())
    items = len(data["items"])
    errors = data["totals"].get("errors", 0)
    twice = sum(1 for v in answered.values() if v > 1)
    return {"count": count, "whole": whole, "phase": max(lasts) - min(firsts), "load": load,
            "items": items, "errors": errors, "answers": sum(answered.values()), "twice": twice,
            "per_server": per_server, "endpoints": data.get("endpoints", [])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--endpoints", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--slots", type=int, default=8, help="requests each server works on at once")
    ap.add_argument("--concurrency", type=int, default=32, help="--tom-concurrency (default 32)")
    ap.add_argument("--limit", type=int, default=None, help="--tom-limit N (default: every item)")
    ap.add_argument("--failing", action="store_true",
                    help="the first endpoint of a multi-endpoint run fails half its requests")
    args = ap.parse_args()
    counts = sorted(set(args.endpoints))
    if 1 not in counts:
        counts.insert(0, 1)  # the reference
    print(f"bundled suites, latency {args.latency * 1000:g} ms, {args.slots} slots per endpoint, "
          f"--tom-concurrency {args.concurrency}" + (f", --tom-limit {args.limit}" if args.limit
                                                      else "") +
          (", first endpoint failing half its requests" if args.failing else ""))
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    results = []
    with tempfile.TemporaryDirectory(prefix="tom-endpoints-") as tmp:
        for count in counts:
            r = run(count, args, Path(tmp))
            results.append(r)
            print(f"  ran {count} endpoint(s): {r['whole']:.1f} s (load {r['load']:.2f})",
                  flush=True)
    ref = results[0]
    n = ref["items"]
    print(f"\n{n} items, {ref['answers']} answers ({ref['twice']} prompts twice, with other "
          f"parameters); ratios to the 1-endpoint run of this script run")
    print(f"{'endpoints':>9}  {'whole run':>15}  {'request phase':>17}  {'ideal phase':>17}  "
          f"{'load':>5}  requests (failures) per endpoint")
    ok = True
    for r in results:
        slots = min(args.concurrency, r["count"] * args.slots)
        ideal = r["answers"] * args.latency / slots
        ideal_ref = ref["answers"] * args.latency / min(args.concurrency, args.slots)
        spread = ", ".join(f"{q} ({f})" for q, f, _ in r["per_server"])
        print(f"{r['count']:>9}  {r['whole']:>7.1f} s {r['whole'] / ref['whole']:>5.2f}x  "
              f"{r['phase']:>7.1f} s {r['phase'] / ref['phase']:>6.2f}x  "
              f"{ideal:>7.1f} s {ideal / ideal_ref:>6.2f}x  {r['load']:>5.2f}  {spread}")
        if (r["items"], r["errors"], r["answers"], r["twice"]) != (n, 0, ref["answers"],
                                                                    ref["twice"]):
            ok = False
            print(f"           !! {r['items']} items, {r['errors']} errors, {r['answers']} "
                  f"answers, {r['twice']} prompts answered twice (1 endpoint: {ref['answers']}, "
                  f"{ref['twice']})")
    print("\nwhole run: the pytest process; request phase: first request to last answer at the "
          "servers; ideal: answers x latency / min(concurrency, endpoints x slots)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
