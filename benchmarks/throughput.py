"""Throughput of the request phase against a loopback chat-completions server.

Starts the test server (`tests/chat_server.py`) with a fixed latency L (and an
optional failure rate), generates a suite of N items, runs pytest on it with
the openai backend at concurrency C, and prints the request phase's wall time
against the ideal N·L/C. Target: at most 1.3 × the ideal (N = 2,000, L = 100 ms,
C = 64). The request phase is timed twice: by the server (first request
received to last answer sent) and by the plugin (its "done in" line); the whole
pytest process (start-up, collection, scoring, report) is printed beside them.
The response cache is on (the default) in a fresh folder, so writing it is
part of the measured time.

    python benchmarks/throughput.py [--n 2000] [--latency 0.1] [--concurrency 64]
                                    [--failure-rate 0.0] [--cache on|off]
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from chat_server import ChatServer  # noqa: E402
from runner_support import expected_right, numbers_suite, respond  # noqa: E402

TARGET = 1.3


BARE = """
import asyncio, sys, time
import openai

async def main(url, n, c):
    client = openai.AsyncOpenAI(api_key="not-needed", base_url=url, max_retries=10)
    sem = asyncio.Semaphore(c)

    async def one(i):
        async with sem:
            r = await client.chat.completions.create(
                model="bench", temperature=0.0, seed=0,
                messages=[{"role": "user", "content": f"Is the number {i} even?"}])
            return r.choices[0].message.content

    start, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(i) for i in range(n)))
    print(time.perf_counter() - start, time.process_time() - cpu)
    await client.close()

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
"""


def bare_client(url: str, args: argparse.Namespace) -> tuple[float, float] | None:
    """Wall and CPU seconds of the same calls made by the openai client alone: the floor
    of this machine, whatever the plugin does."""
    proc = subprocess.run([sys.executable, "-c", BARE, url, str(args.n), str(args.concurrency)],
                          capture_output=True, text=True)
    try:
        wall, cpu = map(float, proc.stdout.split())
    except ValueError:
        print("bare client run failed:", proc.stderr[-1000:])
        return None
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--failure-rate", type=float, default=0.0)
    ap.add_argument("--cache", default="on", choices=("on", "off"))
    ap.add_argument("--xdist", type=int, default=0, metavar="K",
                    help="run with -n K workers, each at concurrency C/K (default: no xdist)")
    ap.add_argument("--no-reference", action="store_true",
                    help="skip the bare openai client reference run")
    args = ap.parse_args()

    ideal = args.n * args.latency / args.concurrency
    with tempfile.TemporaryDirectory(prefix="tom-throughput-") as tmp:
        root = Path(tmp)
        (root / "numbers.tom.yaml").write_text(numbers_suite(args.n))
        with ChatServer(respond, latency=args.latency, failure_rate=args.failure_rate,
                        retry_after=0.05) as server:
            cmd = [sys.executable, "-m", "pytest", "numbers.tom.yaml", "-p", "no:cacheprovider",
                   "--tom-model=openai:bench", f"--tom-base-url={server.base_url}",
                   f"--tom-concurrency={args.concurrency // max(1, args.xdist)}",
                   f"--tom-cache={args.cache}",
                   "--tom-retries=10", "--tom-backoff=0.05", "--tom-report=report.json",
                   "-p", "no:randomly", *(["-n", str(args.xdist)] if args.xdist else [])]
            start = time.perf_counter()
            server_cpu = time.process_time()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            out, err = proc.stdout, proc.stderr
            client_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            total = time.perf_counter() - start
            server_cpu = time.process_time() - server_cpu
            span = (server.last_reply or 0) - (server.first_arrival or 0)
            requests, failures = server.requests, server.failures
            reference = None if args.no_reference else bare_client(server.base_url, args)
        m = re.search(r"tom requests: (\d+)/(\d+) .*done in ([\d.]+)s", out)
        m_right = re.search(r"^all +(\d+) +(\d+)", out, re.M)
    if (m is None and not args.xdist) or m_right is None:
        print(out[-3000:], err[-2000:])
        print("FAILED: the run did not print its request line or its scores")
        return 1
    plugin_time = float(m.group(3)) if m else None  # no live line under xdist
    right = int(m_right.group(2))
    print(f"items N                 {args.n}")
    print(f"latency L               {args.latency * 1000:.0f} ms")
    print(f"concurrency C           {args.concurrency}"
          + (f" ({args.xdist} xdist workers × {args.concurrency // args.xdist})" if args.xdist else ""))
    print(f"failure rate            {args.failure_rate:.0%} ({failures} failed answers retried)")
    print(f"requests received       {requests}")
    print(f"ideal N·L/C             {ideal:.2f} s")
    print(f"request phase (server)  {span:.2f} s  = {span / ideal:.2f} × ideal")
    if plugin_time is not None:
        print(f"request phase (plugin)  {plugin_time:.1f} s  = {plugin_time / ideal:.2f} × ideal")
    if reference is not None:
        ref_wall, ref_cpu = reference
        print(f"bare openai client      {ref_wall:.2f} s  = {ref_wall / ideal:.2f} × ideal "
              f"(the same {args.n} calls, asyncio.gather + a semaphore, no plugin; "
              f"{ref_cpu / args.n * 1000:.1f} ms CPU per call)")
    print(f"whole pytest process    {total:.2f} s (start-up, collection, requests, scoring, report)")
    print(f"CPU time: pytest {client_cpu:.2f} s (whole process), test server {server_cpu:.2f} s")
    print(f"right answers           {right} (expected {expected_right(args.n)})")
    ok = span / ideal <= TARGET and right == expected_right(args.n)
    print(f"target ≤ {TARGET}× ideal:     {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
