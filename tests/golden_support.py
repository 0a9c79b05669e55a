"""The golden outputs: one run of the bundled suites with a fixed answerer, its terminal
summary, JSON report, Markdown summary and HTML page kept in tests/golden/ and reviewed
like code. tests/test_golden.py compares a fresh run with them.

Regenerate them after a change that is meant to change what a run prints or writes:

    .venv/bin/python tests/golden_support.py

then read the diff (`git diff tests/golden`) as you would read code.

The run: every bundled suite, a seeded subset of whole scenarios (`--tom-limit=20`),
answered by `tests/demo_answerers.py:weak` (right on most items, wrong or unparseable on a
known share), no cache, Python's warnings ignored (an older matplotlib warns about its own
parser), in the process that asks for it (`run_golden`). What changes from machine to machine or run to run is taken out
before the comparison: times, dates, package versions, the folders of the checkout and of
the output, and the plots' pictures (matplotlib draws them a little differently from one
version to the next; the page keeps their number and titles). Floats are rounded to 4
decimal places: FANToM's embedding similarities may differ in the last digits between
versions of sentence-transformers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from in_process_run import RunOutput, run_here

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
GOLDEN = TESTS / "golden"
ANSWERER = "python:tests/demo_answerers.py:weak"
NAMES = ("terminal.txt", "report.json", "summary.md", "report.html")

_PROGRESS = re.compile(r"^[.FsxXE]+\s*\[\s*\d+%\]$")
_PYTEST_LAST = re.compile(r"^\d+ (failed|passed).* in [\d.]+s( \(.*\))?$")
_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
_IMAGE = re.compile(r"data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+")
_DATA = re.compile(r'(<script type="application/json" id="tom-data">).*?(</script>)', re.DOTALL)
_DROPPED = ("started", "finished", "duration_seconds", "versions")
_WHEN = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[+-]\d\d:\d\d|Z)? \([\d.]+ s\)")
_VERSIONS = re.compile(r"(<tr><th>versions</th><td[^>]*>).*?(</td></tr>)")


def run_golden(out: Path) -> RunOutput:
    """Run the bundled suites as the golden run does, in this process (`in_process_run`:
    FANToM's embedding model is the one this process loaded), writing its files into
    `out`."""
    return run_here(["suites", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                     "-W", "ignore", f"--tom-model={ANSWERER}", "--tom-cache=off",
                     "--tom-limit=20", f"--tom-report={out / 'report.json'}",
                     f"--tom-markdown={out / 'summary.md'}", f"--tom-html={out / 'report.html'}"],
                    cwd=REPO, columns=120)


def _places(text: str, out: Path) -> str:
    return text.replace(str(out), "<OUT>").replace(str(REPO), "<REPO>")


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def normal_terminal(text: str, out: Path) -> str:
    """The run's output less the progress lines and pytest's closing line (its time)."""
    lines = [ln for ln in text.splitlines()
             if not _PROGRESS.match(ln) and not _PYTEST_LAST.match(ln.strip("= "))]
    return _places("\n".join(lines), out) + "\n"


def normal_report(text: str, out: Path) -> str:
    """The JSON report less its times and versions, paths relative, floats rounded."""
    data = json.loads(_places(text, out))
    for key in _DROPPED:
        data.pop(key, None)
    for record in data.get("items", []):
        record.pop("seconds", None)
    return json.dumps(_rounded(data), indent=1, ensure_ascii=False) + "\n"


def normal_page(text: str, out: Path) -> str:
    """The HTML page less its embedded report (the JSON golden has it), the plots'
    pictures (their titles and count stay), the time it was made and the versions."""
    text = _DATA.sub(r"\1…\2", text)
    text = _VERSIONS.sub(r"\1…\2", _WHEN.sub("<WHEN>", text))
    text = _SVG.sub("<svg>…</svg>", text)
    text = _IMAGE.sub("data:image/…", text)
    return _places(text, out)


def outputs(out: Path) -> dict[str, str]:
    """The four golden texts of a fresh run into `out` (which it fills)."""
    run = run_golden(out)
    stdout = run.stdout
    report = out / "report.json"
    if not report.exists():
        raise AssertionError(f"the golden run wrote no report:\n{stdout[-3000:]}\n"
                             f"{run.stderr[-3000:]}")
    read = {name: (out / name).read_text(encoding="utf-8") for name in NAMES[1:]}
    return {"terminal.txt": normal_terminal(stdout, out),
            "report.json": normal_report(read["report.json"], out),
            "summary.md": _places(read["summary.md"], out),
            "report.html": normal_page(read["report.html"], out)}


def main() -> int:
    """Write a fresh run's outputs into tests/golden/ (the regenerate command)."""
    import tempfile  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as folder:
        texts = outputs(Path(folder))
    GOLDEN.mkdir(exist_ok=True)
    for name, text in texts.items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
        print(f"wrote {GOLDEN / name} ({len(text):,} characters)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
