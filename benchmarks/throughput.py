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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--failure-rate", type=float, default=0.0)
    ap.add_argument("--cache", default="on", choices=("on", "off"))
    args = ap.parse_args()

    ideal = args.n * args.latency / args.concurrency
    with tempfile.TemporaryDirectory(prefix="tom-throughput-") as tmp:
        root = Path(tmp)
        (root / "numbers.tom.yaml").write_text(numbers_suite(args.n))
        with ChatServer(respond, latency=args.latency, failure_rate=args.failure_rate,
                        retry_after=0.05) as server:
            cmd = [sys.executable, "-m", "pytest", "numbers.tom.yaml", "-p", "no:cacheprovider",
                   "--tom-model=openai:bench", f"--tom-base-url={server.base_url}",
                   f"--tom-concurrency={args.concurrency}", f"--tom-cache={args.cache}",
                   "--tom-retries=10", "--tom-backoff=0.05", "--tom-report=report.json",
                   "-p", "no:randomly"]
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
        m = re.search(r"tom requests: (\d+)/(\d+) .*done in ([\d.]+)s", out)
        m_right = re.search(r"^all +(\d+) +(\d+)", out, re.M)
    if m is None or m_right is None:
        print(out[-3000:], err[-2000:])
        print("FAILED: the run did not print its request line or its scores")
        return 1
    plugin_time = float(m.group(3))
    right = int(m_right.group(2))
    print(f"items N                 {args.n}")
    print(f"latency L               {args.latency * 1000:.0f} ms")
    print(f"concurrency C           {args.concurrency}")
    print(f"failure rate            {args.failure_rate:.0%} ({failures} failed answers retried)")
    print(f"requests received       {requests}")
    print(f"ideal N·L/C             {ideal:.2f} s")
    print(f"request phase (server)  {span:.2f} s  = {span / ideal:.2f} × ideal")
    print(f"request phase (plugin)  {plugin_time:.1f} s  = {plugin_time / ideal:.2f} × ideal")
    print(f"whole pytest process    {total:.2f} s (start-up, collection, requests, scoring, report)")
    print(f"CPU time: pytest {client_cpu:.2f} s (whole process), test server {server_cpu:.2f} s")
    print(f"right answers           {right} (expected {expected_right(args.n)})")
    ok = span / ideal <= TARGET and plugin_time / ideal <= TARGET + 0.05 and right == expected_right(args.n)
    print(f"target ≤ {TARGET}× ideal:     {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
