"""The request phase and the whole pytest run against a loopback chat-completions server.

Starts the test server (`tests/chat_server.py`) with a fixed latency L (and an
optional failure rate), generates a suite of N items, runs pytest on it with
the openai backend at concurrency C, and times each phase of the pytest
process with a small plugin (start-up, collection, request phase, test loop,
summary, exit). In the same run it measures the references:

- ideal: N·L/C, the request phase with zero cost per request;
- bare openai loop: the same N calls by `AsyncOpenAI().chat.completions.create`
  (default transport) under a semaphore, no plugin;
- raw aiohttp loop: the same N calls posted by aiohttp alone;

and prints every figure with its ratio to its reference and the load average
when it was measured. The pytest run is made once per test loop mode: `stream`
(the default: items scored while the answers arrive) and `requests-first`
(`--tom-requests-first`: every answer before the first item), each against a
fresh server and an emptied cache. The request phase is the time from the end
of collection to the last answer (in both modes), and `after the last answer`
is what the test loop still took after it. Under `--xdist K` the controller
collects nothing and sees no answer: its test loop (workers' start-up and
collection included) counts as the request phase. Targets (first mode): request phase
≤ 1.3 × ideal; whole run ≤ 1.3 × (request phase + collection). The response cache is on (the default) in a fresh
folder, so writing it is part of the measured time. `--tb line` shows what
pytest's failure summary costs (N/5 items are answered wrong). Only pytest-tom
is loaded (PYTEST_DISABLE_PLUGIN_AUTOLOAD): other plugins installed beside it
cost what they cost in any pytest run (on the development machine hypothesis'
terminal summary alone imports hypothesis, about a second); `--autoload` loads
them all.

    python benchmarks/throughput.py [--n 2000] [--latency 0.1] [--concurrency 64]
                                    [--failure-rate 0.0] [--cache on|off] [--tb STYLE]
                                    [--xdist K] [--modes stream requests-first]
                                    [--report PATH] [--no-reference]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

from chat_server import ChatServer  # noqa: E402
from installed_bytecode import compile_checkout  # noqa: E402
from runner_support import expected_right, numbers_suite, respond  # noqa: E402

TARGET = 1.3

PHASES_PLUGIN = '''
"""Timestamps of the phases of this pytest process, written to $TOM_PHASES at exit."""
import atexit, os, time
import pytest

T = {}

def mark(name):
    T.setdefault(name, time.time())

WORKER = []  # an xdist worker's phases are not the run's: only the controller writes

def _dump():
    if WORKER:
        return
    mark("exit")
    with open(os.environ["TOM_PHASES"], "w") as f:
        for k, v in T.items():
            f.write(f"{k} {v!r}\\n")

atexit.register(_dump)

@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    mark("configure")
    if hasattr(config, "workerinput"):
        WORKER.append(True)
@pytest.hookimpl(tryfirst=True)
def pytest_collection(session): mark("collection")
@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session): mark("collected")
@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session): mark("loop_start")  # after pytest-tom's request phase, if any
@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    mark("loop_done")
    from pytest_tom.plugin.request_phase import REQUESTS_KEY
    requests = session.config.stash.get(REQUESTS_KEY, None)
    runner = requests.peek_runner() if requests is not None else None
    if runner is not None and getattr(runner.stats, "finished", None) is not None:  # last answer
        T["last_answer"] = time.time() - (time.perf_counter() - runner.stats.finished)
@pytest.hookimpl(tryfirst=True)
def pytest_terminal_summary(terminalreporter): mark("summary")
@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config): mark("unconfigured")
'''


def reference_loop(name: str, url: str,
                   args: argparse.Namespace) -> tuple[float, float, float] | None:
    from request_path import run_variant

    ns = argparse.Namespace(n=args.n, concurrency=args.concurrency, repeat=1)
    return run_variant(name, url, ns)


MODES = {"stream": [], "requests-first": ["--tom-requests-first"]}
NEEDED = ("configure", "collection", "collected", "loop_start", "loop_done", "last_answer",
          "summary", "unconfigured", "exit")


def run_pytest(args: argparse.Namespace, root: Path, env: dict[str, str], plugins: list[str],
               extra: list[str]) -> dict[str, Any] | str:
    """One pytest process against a fresh server: its phases (seconds), or what went wrong."""
    phases_file = root / "phases.txt"
    phases_file.unlink(missing_ok=True)
    with ChatServer(respond, latency=args.latency, failure_rate=args.failure_rate,
                    retry_after=0.05, backlog=getattr(args, "backlog", None)) as server:
        cmd = [sys.executable, "-m", "pytest", "numbers.tom.yaml", "-p", "no:cacheprovider",
               *plugins, "-p", "tom_phases", "--tom-model=openai:bench",
               f"--tom-base-url={server.base_url}",
               f"--tom-concurrency={args.concurrency // max(1, args.xdist)}",
               f"--tom-cache={args.cache}", f"--tom-cache-dir={root / 'cache'}",
               "--tom-cache-clear", "--tom-retries=10", "--tom-backoff=0.05",
               *([f"--tom-report={args.report}"] if args.report else []),
               *(["-p", "no:randomly"] if args.autoload else []),
               *([f"--tb={args.tb}"] if args.tb else []),
               *(["-n", str(args.xdist)] if args.xdist else []), *extra]
        start = time.time()
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env)
        end = time.time()
        load = os.getloadavg()[0]
        span = (server.last_reply or 0) - (server.first_arrival or 0)
        wall = time.time() - time.perf_counter()  # the server's clock to wall time
        first_arrival = wall + (server.first_arrival or 0)
        requests, failures = server.requests, server.failures
        connections = server.connections
    m_right = re.search(r"^all +(\d+) +(\d+)", proc.stdout, re.M)
    marks = {}
    if phases_file.exists():
        for line in phases_file.read_text().splitlines():
            k, v = line.split()
            marks[k] = float(v)
    if args.xdist and "collection" in marks:  # the controller collects nothing: the
        marks.setdefault("collected", marks["collection"])  # workers do, in the loop
    if m_right is None or any(k not in marks for k in NEEDED if k != "last_answer"):
        return (f"{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}\nphases: {sorted(marks)}")
    # under xdist the workers' answers are not seen here: the loop is the request phase;
    # a pytest-tom older than the streamed loop does not say: its loop started after them
    last = marks.get("last_answer", marks["loop_done" if args.xdist else "loop_start"])
    retried = re.search(r"(\d+) connects? retried", proc.stdout)
    return {
        "right": int(m_right.group(2)), "load": load, "span": span, "requests": requests,
        "connections": connections, "connect_retries": int(retried.group(1)) if retried else 0,
        "requests_line": next((line for line in proc.stdout.splitlines()
                               if line.startswith("tom requests:")), ""),
        "to_first": first_arrival - marks["collected"],  # end of collection to first request
        "failures": failures, "whole": end - start,
        "startup": marks["collection"] - start,
        "collection": marks["collected"] - marks["collection"],
        "request_phase": last - marks["collected"],  # collected to the last answer
        "loop": marks["loop_done"] - marks["loop_start"],
        "after_last": marks["loop_done"] - max(last, marks["loop_start"]),
        "summary": marks["unconfigured"] - marks["loop_done"],
        "exit": end - marks["unconfigured"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--failure-rate", type=float, default=0.0)
    ap.add_argument("--cache", default="on", choices=("on", "off"))
    ap.add_argument("--tb", default=None, help="pytest --tb style (default: pytest's)")
    ap.add_argument("--xdist", type=int, default=0, metavar="K",
                    help="run with -n K workers, each at concurrency C/K (default: no xdist)")
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES),
                    help="test loop modes to run, the first one is judged against the targets "
                    "(default: stream, then requests-first as its reference)")
    ap.add_argument("--report", default="report.json",
                    help="--tom-report of the runs (default report.json; '' for none)")
    ap.add_argument("--autoload", action="store_true",
                    help="let pytest load every installed plugin (default: only pytest-tom, and "
                    "xdist with --xdist: PYTEST_DISABLE_PLUGIN_AUTOLOAD=1)")
    ap.add_argument("--no-reference", action="store_true",
                    help="skip the reference loops (bare openai, raw aiohttp)")
    args = ap.parse_args()

    ideal = args.n * args.latency / args.concurrency
    compiled = compile_checkout(REPO)
    runs: dict[str, dict[str, Any]] = {}
    refs: dict[str, tuple[float, float, float, float]] = {}  # wall, CPU, process, load
    with tempfile.TemporaryDirectory(prefix="tom-throughput-") as tmp:
        root = Path(tmp)
        (root / "numbers.tom.yaml").write_text(numbers_suite(args.n))
        (root / "tom_phases.py").write_text(PHASES_PLUGIN)
        env = dict(os.environ, TOM_PHASES=str(root / "phases.txt"),
                   PYTHONPATH=os.pathsep.join(filter(None, [str(root), str(REPO),
                                                            os.environ.get("PYTHONPATH")])))
        plugins: list[str] = []
        if not args.autoload:  # other installed plugins (hypothesis ...) cost seconds of their own
            env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
            plugins = ["-p", "pytest_tom.plugin", *(["-p", "xdist.plugin"] if args.xdist else [])]
        for mode in args.modes:
            got = run_pytest(args, root, env, plugins, MODES[mode])
            if isinstance(got, str):
                print(got)
                print(f"FAILED: the {mode} run did not print its scores or its phases")
                return 1
            runs[mode] = got
        if not args.no_reference:
            with ChatServer(respond, latency=args.latency) as server:
                for name in ("openai httpx", "raw aiohttp"):
                    ref = reference_loop(name, server.base_url, args)
                    if ref is not None:
                        refs[name] = (*ref, os.getloadavg()[0])
    first = runs[args.modes[0]]
    print(f"N {args.n} · latency {args.latency * 1000:.0f} ms · concurrency {args.concurrency}"
          + (f" ({args.xdist} xdist workers × {args.concurrency // args.xdist})" if args.xdist else "")
          + f" · failure rate {args.failure_rate:.0%} ({first['failures']} retried) · requests "
          + f"{first['requests']} · cache {args.cache} · --tb {args.tb or 'auto'} · cpus "
          + f"{os.cpu_count()} · plugins {'all installed' if args.autoload else 'pytest-tom only'}")
    print(compiled)
    print(f"{'figure':46} {'seconds':>8} {'ratio':>7}  reference  (load)")
    print(f"{'ideal N·L/C':46} {ideal:8.2f}")
    for name, (wall, cpu, process, load) in refs.items():
        label = f"{'bare openai loop' if 'openai' in name else 'raw aiohttp loop'} ({name})"
        print(f"{label:46} {wall:8.2f} {wall / ideal:7.2f}  ideal ({load:.2f}); "
              f"{cpu / args.n * 1000:.2f} ms CPU per call")
        print(f"{'  ... its whole process (start-up, imports)':46} {process:8.2f} "
              f"{process / ideal:7.2f}  ideal")
    ok = True
    for mode, r in runs.items():
        rp, base = r["request_phase"], r["request_phase"] + r["collection"]
        print(f"-- test loop: {mode}" + (" (--tom-requests-first)" if MODES[mode] else ""))
        print(f"{'request phase (server: first to last answer)':46} {r['span']:8.2f} "
              f"{r['span'] / ideal:7.2f}  ideal ({r['load']:.2f})")
        print(f"{'request phase (plugin: to the last answer)':46} {rp:8.2f} "
              f"{rp / ideal:7.2f}  ideal ({r['load']:.2f})")
        for name, (wall, _cpu, _process, load) in refs.items():
            label = "bare openai loop" if "openai" in name else "raw aiohttp loop"
            print(f"{'  request phase / ' + label:46} {'':8} {rp / wall:7.2f}  ({load:.2f})")
        print(f"{'  ... before the first / after the last answer':46} {rp - r['span']:8.2f} "
              f"{(rp - r['span']) / rp:7.2f}  request phase")
        print(f"{'  ... collected to the first request (server)':46} {r['to_first']:8.2f} "
              f"{r['to_first'] / rp:7.2f}  request phase")
        for label, key in (("start-up (to collection)", "startup"), ("collection", "collection"),
                           ("test loop (scoring, reports)", "loop"),
                           ("  ... after the last answer", "after_last"),
                           ("summary and unconfigure", "summary"), ("exit", "exit")):
            print(f"{label:46} {r[key]:8.2f} {r[key] / r['whole']:7.2f}  whole run")
        print(f"{'whole pytest process':46} {r['whole']:8.2f} {r['whole'] / base:7.2f}  request "
              f"phase + collection ({r['load']:.2f})")
        raw = refs.get("raw aiohttp")
        if raw is not None:
            print(f"{'  / the raw aiohttp loop (timed inside)':46} {'':8} {r['whole'] / raw[0]:7.2f}"
                  f"  ({raw[3]:.2f})")
            print(f"{'  / the raw aiohttp script (whole process)':46} {'':8} "
                  f"{r['whole'] / raw[2]:7.2f}  ({raw[3]:.2f})")
        if mode != args.modes[0]:
            print(f"{'  ' + args.modes[0] + ' / ' + mode + ' (whole process)':46} {'':8} "
                  f"{first['whole'] / r['whole']:7.2f}  ({r['load']:.2f})")
        print(f"right answers {r['right']} (expected {expected_right(args.n)})")
        ok = ok and r["right"] == expected_right(args.n)
    rp, base = first["request_phase"], first["request_phase"] + first["collection"]
    for label, ratio in (("request phase ≤ 1.3 × ideal", rp / ideal),
                         ("whole run ≤ 1.3 × (request phase + collection)", first["whole"] / base)):
        print(f"target ({args.modes[0]}) {label}: {'met' if ratio <= TARGET else 'NOT met'} "
              f"({ratio:.2f})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
