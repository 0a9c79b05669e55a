"""A freshly started server with a listen backlog of 5, on each request path (issue 47).

cpp-httplib's and Python's `http.server`'s default backlog is 5: a client that opens
`--tom-concurrency` connections at once overflows the accept queue, the server's kernel
drops handshakes, and a request whose connection was never accepted waited for the whole
`--tom-timeout` (runs of about 122 s where 3 s would do). This runs the case of the issue:
N items (default 2,000) at latency L (100 ms) and concurrency C (64), `--tom-cache off`,
each run against a fresh test server (`tests/chat_server.py`, `backlog=5`), on every
request path in turn (worker, the openai client over aiohttp and over httpx),
interleaved, `--repeat` times. Each run is one pytest process timed as
`benchmarks/throughput.py` times it (its `run_pytest` and phase plugin); printed per run:
the request phase (end of collection to the last answer) against the ideal N·L/C, where
it went (`to first`: the end of collection to the first request the server saw, e.g. the
request process's start or `import openai`; `span`: the server's first request to its last
answer, which the ramp and the per-request CPU make longer than N·L/C), the
connections the server accepted, the connects retried (the terminal's requests line) and
the kernel's listen-queue overflows during the run (`TcpExtListenOverflows`, Linux), and
at the end, per path, the ratios and how many runs were within the target (1.3 × ideal).

On a loaded machine the request phase is bound by the CPU before any backlog counts:
`--reference` runs each path a second time in each round against a server with the test
server's usual backlog (256), so that the backlog's own cost is the ratio of the two.
`--plain` adds, in each round, the same N requests made by a plain aiohttp loop (no
pytest, aiohttp imported before its clock starts, all C connections opened at once)
against a fresh test server with the usual backlog: what this machine and this server
allow at that moment, which the request phase is also judged against.
`--checkout DIR` runs another checkout of pytest-tom (e.g. one from before issue 47)
with this benchmark and test server.

    python benchmarks/backlog.py [--n 2000] [--latency 0.1] [--concurrency 64]
                                 [--backlog 5] [--repeat 5] [--paths worker sdk sdk-httpx]
                                 [--reference] [--plain] [--checkout DIR] [--timeout 120]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from statistics import median

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tests"))

from chat_server import ChatServer  # noqa: E402
from runner_support import expected_right, numbers_suite, respond  # noqa: E402
from throughput import PHASES_PLUGIN, reference_loop, run_pytest  # noqa: E402

TARGET = 1.3
# the request paths of openai: (--tom-openai-transport, and the client's transport)
PATHS = {
    "worker": ["--tom-openai-transport=worker"],
    "sdk": ["--tom-openai-transport=sdk", "--tom-transport=aiohttp"],
    "sdk-httpx": ["--tom-openai-transport=sdk", "--tom-transport=httpx"],
}


def listen_overflows() -> int | None:
    """The kernel's count of connections dropped because a listen queue was full."""
    try:
        lines = Path("/proc/net/netstat").read_text().splitlines()
    except OSError:
        return None
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            row = dict(zip(names.split()[1:], values.split()[1:], strict=False))
            return int(row.get("ListenOverflows", 0))
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--backlog", type=int, default=5, help="the server's listen backlog")
    ap.add_argument("--repeat", type=int, default=5, help="runs per path, interleaved")
    ap.add_argument("--paths", nargs="+", default=list(PATHS), choices=list(PATHS))
    ap.add_argument("--timeout", type=float, default=120.0, help="--tom-timeout of the runs")
    ap.add_argument("--reference", action="store_true",
                    help="each path also against a server with backlog 256, interleaved")
    ap.add_argument("--plain", action="store_true",
                    help="each round also a plain aiohttp loop against a fresh backlog-256 server")
    ap.add_argument("--checkout", type=Path, default=REPO,
                    help="the pytest-tom checkout to run (default this one)")
    args = ap.parse_args()
    # what run_pytest reads besides those
    args.failure_rate, args.cache, args.report, args.autoload = 0.0, "off", "", False
    args.tb, args.xdist = "no", 0

    ideal = args.n * args.latency / args.concurrency
    args.backlog_asked = args.backlog
    backlogs = [args.backlog, *([256] if args.reference else [])]
    ratios: dict[tuple[str, int], list[float]] = {(p, b): [] for p in args.paths for b in backlogs}
    plain: list[float] = []  # the plain aiohttp loop's wall time / ideal, per round
    print(f"N {args.n} · latency {args.latency * 1000:.0f} ms · concurrency {args.concurrency} · "
          f"backlog {args.backlog} · a fresh server per run · cache off · ideal N·L/C "
          f"{ideal:.2f} s · cpus {os.cpu_count()} · checkout {args.checkout}")
    print(f"{'run':>3} {'path':10} {'backlog':>7} {'request phase':>13} {'/ ideal':>8} "
          f"{'to first':>8} {'span':>6} {'whole':>7} {'conns':>6} {'connects retried':>16} "
          f"{'overflows':>9} {'right':>6} {'load':>5}")
    ok = True
    with tempfile.TemporaryDirectory(prefix="tom-backlog-") as tmp:
        root = Path(tmp)
        (root / "numbers.tom.yaml").write_text(numbers_suite(args.n))
        (root / "tom_phases.py").write_text(PHASES_PLUGIN)
        env = dict(os.environ, TOM_PHASES=str(root / "phases.txt"),
                   PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(root), str(args.checkout),
                                                            os.environ.get("PYTHONPATH")])))
        env.pop("PYTEST_TOM_OPENAI_TRANSPORT", None)
        plugins = ["-p", "pytest_tom.plugin"]
        for run in range(1, args.repeat + 1):
            for path, backlog in ratios:
                args.backlog = backlog
                before = listen_overflows()
                got = run_pytest(args, root, env, plugins,
                                 [*PATHS[path], f"--tom-timeout={args.timeout:g}"])
                after = listen_overflows()
                if isinstance(got, str):
                    print(got)
                    print(f"FAILED: the {path} run did not print its scores or its phases")
                    return 1
                rp = got["request_phase"]
                ratios[path, backlog].append(rp / ideal)
                overflows = "?" if before is None or after is None else str(after - before)
                print(f"{run:>3} {path:10} {backlog:>7} {rp:13.2f} {rp / ideal:8.2f} "
                      f"{got['to_first']:8.2f} {got['span']:6.2f} {got['whole']:7.2f} "
                      f"{got['connections']:>6} {got['connect_retries']:>16} {overflows:>9} "
                      f"{got['right']:>6} {got['load']:5.2f}", flush=True)
                ok = ok and got["right"] == expected_right(args.n)
            if args.plain:
                with ChatServer(respond, latency=args.latency) as server:
                    ref = reference_loop("raw aiohttp", server.base_url, args)
                if ref is None:
                    print("FAILED: the plain aiohttp loop did not run")
                    return 1
                plain.append(ref[0] / ideal)
                print(f"{run:>3} {'plain loop':10} {256:>7} {ref[0]:13.2f} {ref[0] / ideal:8.2f} "
                      f"{'':8} {'':6} {ref[2]:7.2f} {'':>6} {'':>16} {'':>9} {'':>6} "
                      f"{os.getloadavg()[0]:5.2f}", flush=True)
    print(f"-- request phase / ideal, per path ({args.repeat} runs; target ≤ {TARGET})")
    for (path, backlog), values in ratios.items():
        within = sum(1 for v in values if v <= TARGET)
        print(f"{path:10} backlog {backlog:<4} median {median(values):.2f} · min {min(values):.2f} · max "
              f"{max(values):.2f} · within the target in {within} of {len(values)} runs")
    if plain:
        print(f"plain loop  backlog 256  median {median(plain):.2f} · min {min(plain):.2f} · max "
              f"{max(plain):.2f}")
        print("-- request phase / the plain aiohttp loop's wall time, per path (medians)")
        for (path, backlog), values in ratios.items():
            print(f"{path:10} backlog {backlog:<4} {median(values) / median(plain):.2f}")
    if args.reference:
        print("-- backlog 5 / backlog 256, request phase, per path (medians)")
        for path in args.paths:
            ratio = median(ratios[path, args.backlog_asked]) / median(ratios[path, 256])
            print(f"{path:10} {ratio:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
