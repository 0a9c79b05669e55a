"""A fully cached rerun against pytest's floor: scale.py's `cached` line alone, quickly.

Sets up, once, what benchmarks/scale.py measures as its cached rerun: a generic suite of
N items (`tests/runner_support.numbers_suite`, default 20,000), one run against the
loopback chat server that fills the response cache, and pytest's floor (N trivial
parametrized tests, `-q -p no:cacheprovider`). Then it times only the two, interleaved
`--repeat` times: the rerun (`--tom-model=openai:bench --tom-cache=on --tom-report=c.json
-q --tb=no -p no:cacheprovider`, PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, `-p pytest_tom.plugin`;
every answer from the cache, checked: no request reaches the server) and the floor.

Several `--checkout`s are measured in turn within each repeat (an A/B of two worktrees,
interleaved, so each sees the same load); each has its own folder and cache, filled by
its own run. The reports of the checkouts' reruns are compared byte for byte (they must
not differ but for their dates, times and folders: the same answers, the same report). `--profile DIR` also writes one cProfile
of each checkout's rerun and of the floor there (`*.prof`, read with `pstats`), outside
the timed repeats.

Prints per repeat: each rerun's wall and CPU seconds, the floor's, the ratios rerun / floor
of both and the load; then the medians and the load's range. On a busy machine the wall
times follow the other work; the CPU ratio moves less (quote the load with either).

    python benchmarks/cached_rerun.py [--items 20000] [--repeat 5]
        [--checkout /work/main --checkout .] [--profile /tmp/prof]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

from chat_server import ChatServer  # noqa: E402
from installed_bytecode import compile_checkout  # noqa: E402
from runner_support import expected_right, numbers_suite, respond  # noqa: E402
from scale import FLOOR, measure  # noqa: E402


def rerun_cmd(base_url: str, profile: Path | None = None) -> list[str]:
    """scale.py's cached rerun: the command line of a run whose every answer is cached."""
    prefix = [sys.executable]
    if profile is not None:
        prefix += ["-m", "cProfile", "-o", str(profile)]
    return [*prefix, "-m", "pytest", "numbers.tom.yaml", "-p", "pytest_tom.plugin",
            "-p", "no:cacheprovider", "--tom-model=openai:bench", f"--tom-base-url={base_url}",
            "--tom-cache=on", "--tom-concurrency=64", "--tom-report=c.json", "-q", "--tb=no"]


def floor_cmd(profile: Path | None = None) -> list[str]:
    prefix = [sys.executable]
    if profile is not None:
        prefix += ["-m", "cProfile", "-o", str(profile)]
    return [*prefix, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_floor.py"]


def _timeless(report: Path) -> Any:
    """A run report less what differs from run to run: its dates and times, and its folder
    (each checkout's rerun has its own)."""
    data = json.loads(report.read_text().replace(str(report.parent), "<folder>"))
    for key in ("started", "finished", "duration_seconds"):
        data.pop(key, None)
    for item in data.get("items", []):
        item.pop("seconds", None)
    return data


def env_for(checkout: Path) -> dict[str, str]:
    return dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPATH=str(checkout))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--checkout", type=Path, action="append", default=[],
                    help="a pytest-tom checkout to measure, repeatable (default: this one)")
    ap.add_argument("--profile", type=Path, default=None,
                    help="also write a cProfile of each rerun and of the floor into this folder")
    args = ap.parse_args()
    checkouts = [c.resolve() for c in args.checkout] or [REPO]
    n = args.items
    print(f"{n} items · cached rerun vs pytest's floor · cpus {os.cpu_count()} · load "
          f"{os.getloadavg()}")
    for c in checkouts:
        print(f"{c}: {compile_checkout(c)}")
    with tempfile.TemporaryDirectory(prefix="tom-cached-") as tmp, ChatServer(respond) as server:
        root = Path(tmp)
        floor_dir = root / "floor"
        floor_dir.mkdir()
        (floor_dir / "test_floor.py").write_text(FLOOR.format(n=n))
        suite = numbers_suite(n)
        dirs = []
        for i, c in enumerate(checkouts):
            d = root / f"run{i}"
            d.mkdir()
            (d / "numbers.tom.yaml").write_text(suite)
            _, _, status, out, _ = measure(rerun_cmd(server.base_url), d, env_for(c))
            if status not in (0, 1) or f"{expected_right(n)}" not in out:
                print(f"{c}: the run that fills the cache failed ({status}):\n{out[-2000:]}")
                return 1
            dirs.append(d)
        if args.profile is not None:
            args.profile.mkdir(parents=True, exist_ok=True)
            for i, (c, d) in enumerate(zip(checkouts, dirs, strict=True)):
                measure(rerun_cmd(server.base_url, args.profile / f"rerun{i}.prof"), d, env_for(c))
            measure(floor_cmd(args.profile / "floor.prof"), floor_dir, env_for(checkouts[0]))
            print(f"profiles in {args.profile}: " + ", ".join(
                [f"rerun{i}.prof = {c}" for i, c in enumerate(checkouts)] + ["floor.prof"]))
        rows: list[list[tuple[float, float]]] = [[] for _ in checkouts]
        floors: list[tuple[float, float]] = []
        loads: list[float] = []
        for r in range(args.repeat):
            # alternate the order of the checkouts from repeat to repeat: neither is always first
            order = list(range(len(checkouts)))
            if r % 2:
                order.reverse()
            line = []
            for i in order:
                asked = server.requests
                wall, _, status, out, cpu = measure(rerun_cmd(server.base_url), dirs[i],
                                                    env_for(checkouts[i]))
                if server.requests != asked or f"{expected_right(n)}" not in out:
                    print(f"{checkouts[i]}: the rerun asked the server ({server.requests - asked}"
                          f" requests) or did not score every item ({status}):\n{out[-2000:]}")
                    return 1
                rows[i].append((wall, cpu))
                loads.append(os.getloadavg()[0])
            wall, _, status, out, cpu = measure(floor_cmd(), floor_dir, env_for(checkouts[0]))
            if status != 0 or f"{n} passed" not in out:
                print(f"plain pytest failed:\n{out[-2000:]}")
                return 1
            floors.append((wall, cpu))
            loads.append(os.getloadavg()[0])
            for i in range(len(checkouts)):
                w, c = rows[i][-1]
                line.append(f"rerun{i} {w:5.2f} s ({c:5.2f} CPU) ×floor {w / wall:4.2f} "
                            f"(CPU {c / cpu:4.2f})")
            print(f"{r + 1:>2}: " + " · ".join(line) + f" · floor {wall:5.2f} s ({cpu:5.2f} CPU)"
                  f" · load {loads[-1]:.2f}", flush=True)
        reports = [_timeless(d / "c.json") for d in dirs]
        same = all(rep == reports[0] for rep in reports)
        floor_med = statistics.median(w for w, _ in floors)
        print(f"medians of {args.repeat}: floor {floor_med:.2f} s "
              f"({statistics.median(c for _, c in floors):.2f} s CPU)")
        for i, c in enumerate(checkouts):
            wall = statistics.median(w for w, _ in rows[i])
            cpu = statistics.median(c for _, c in rows[i])
            paired = statistics.median(w / f for (w, _), (f, _) in zip(rows[i], floors,
                                                                       strict=True))
            paired_cpu = statistics.median(c / f for (_, c), (_, f) in zip(rows[i], floors,
                                                                           strict=True))
            print(f"  rerun{i} {c}: {wall:.2f} s ({cpu:.2f} s CPU), ×floor {wall / floor_med:.2f}"
                  f" (median of the paired ratios {paired:.2f}; target <= 1.3); CPU ×floor "
                  f"{paired_cpu:.2f} (paired)")
        print(f"reports of the reruns {'identical' if same else 'DIFFER'} (times aside) · load "
              f"{min(loads):.2f}-{max(loads):.2f}")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
