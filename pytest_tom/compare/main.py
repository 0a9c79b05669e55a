"""The `compare` and `html` commands: load reports, build, print and write."""

from __future__ import annotations

import argparse
import json
import sys

from pytest_tom.compare.paired import compare_runs
from pytest_tom.compare.render import render_markdown, render_text
from pytest_tom.compare.runs import ReportFileError, load_runs
from pytest_tom.report.atomic import write_atomic
from pytest_tom.report.html import missing
from pytest_tom.report.html.build import write_html


def _load(paths: list[str], command: str, labels: str | None = None):  # type: ignore[no-untyped-def]
    try:
        return load_runs(paths, [x.strip() for x in labels.split(",")] if labels else None)
    except ReportFileError as exc:
        print(f"pytest-tom {command}: {exc}", file=sys.stderr)
        return None


def run_compare(args: argparse.Namespace) -> int:
    if len(args.reports) < 2:
        print("pytest-tom compare: give at least two JSON reports (the first is the reference); "
              "for one run use `pytest-tom html REPORT.json -o report.html`", file=sys.stderr)
        return 2
    if args.resamples < 100:
        print("pytest-tom compare: --resamples must be at least 100", file=sys.stderr)
        return 2
    runs = _load(args.reports, "compare", args.labels)
    if runs is None:
        return 2
    cmp = compare_runs(runs, seed=args.seed, resamples=args.resamples)
    sys.stdout.write(render_text(cmp, all_rows=args.all))
    if args.markdown:
        write_atomic(args.markdown, render_markdown(cmp))
        print(f"markdown: {args.markdown}")
    if args.json:
        write_atomic(args.json, json.dumps(cmp, indent=1, ensure_ascii=False) + "\n")
        print(f"json: {args.json}")
    if args.html:
        write_html(args.html, runs, comparison=cmp)
        print(f"html: {args.html}")
    return 0


def run_html(args: argparse.Namespace) -> int:
    runs = _load(args.reports, "html", args.labels)
    if runs is None:
        return 2
    lacking = missing()
    if lacking:
        print(f"pytest-tom html: {', '.join(lacking)} missing: pip install 'pytest-tom[html]'",
              file=sys.stderr)
        return 2
    cmp = None
    if len(runs) > 1:
        cmp = compare_runs(runs, seed=args.seed, resamples=args.resamples)
    write_html(args.output, runs, comparison=cmp)
    print(f"html: {args.output}")
    return 0
