"""Shared test fixtures: paths, the loopback chat server, and a pytester runner for tom runs."""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer  # tests/ is on sys.path: `pythonpath` in pyproject.toml
from html_browser import browser  # noqa: F401  (fixture: headless Chromium)
from report_runs import demo_reports  # noqa: F401  (fixture: two saved reports)

from pytest_tom.backends.openai_api.openai_backend import PATH_ENV, pick_path, pick_transport

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
SUITES = REPO / "suites"
SHARED_DATA = REPO.parent / "shared" / "data"
FAMILY_TESTS = TESTS / "families"  # tests/families/<name>/: a family's tests and answerers

# pytester's in-process runs drop the modules each run imports; importing the plugin's
# modules once here keeps every run from compiling and assertion-rewriting them again
# (PYTHONDONTWRITEBYTECODE is set on these machines).
for _name in ("pytest_tom.plugin", "pytest_tom.plugin.items", "pytest_tom.catalogue.load", "pytest_tom.results.aggregate",
              "pytest_tom.asking.runner", "pytest_tom.families.generic.family", "pytest_tom.backends.python_backend",
              "pytest_tom.backends.openai_api.openai_backend", "pytest_tom.report.terminal",
              "pytest_tom.report.json_report", "tabulate"):
    importlib.import_module(_name)

# Native packages that cannot be imported twice in one process: torch's second import fails
# ("SystemError: ... bad call flags") and can crash the interpreter, PyO3 packages
# (tokenizers, safetensors) refuse a second initialisation. pytester's in-process runs drop
# every module a run imported, so an `hf:` or embedding run after another one imported them
# again. Keep them loaded, as pytester keeps zope and readline for the same reason.
KEEP_LOADED = ("torch", "transformers", "sentence_transformers", "tokenizers", "safetensors",
               "accelerate", "huggingface_hub", "gguf", "scipy", "sklearn", "xllamacpp")
# Installed modules stay too, once a run imported them: the plugin's own (about 20 that a
# plain run imports lazily: the run loop, the outputs, the gates, the compare and HTML
# writers) and what they import from the standard library and site-packages (matplotlib for
# the HTML page ...): they were compiled and executed again in every in-process run
# (PYTHONDONTWRITEBYTECODE: no bytecode cache), about a fifth of such a run's cost. Kept
# together, as in a user's process: a kept module never holds a copy of a library the next
# run imports anew. What an inner run defines itself (its conftest, test files, answerers,
# the packages a test installs in its folder, tests/' support modules) is dropped, as before.
KEEP_OWN = "pytest_tom"
INSTALLED = tuple(dict.fromkeys(
    os.path.join(p, "") for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                  sys.base_exec_prefix)))
_INSTALLED_FILES: dict[str, bool] = {}  # a module's file -> installed (asked at every run's end)


def installed(name: str) -> bool:
    """Whether sys.modules[name] is the plugin's or comes from the interpreter's own
    folders (the standard library, site-packages)."""
    if name.split(".", 1)[0] == KEEP_OWN:
        return True
    file = getattr(sys.modules.get(name), "__file__", None)
    if not isinstance(file, str):
        return False
    known = _INSTALLED_FILES.get(file)
    if known is None:
        known = _INSTALLED_FILES[file] = file.startswith(INSTALLED)
    return known


def _keep_native_packages_loaded() -> None:
    import _pytest.pytester as pytester_module  # noqa: PLC0415 private, checked below

    original = getattr(pytester_module, "SysModulesSnapshot", None)
    if original is None or getattr(original, "keeps_native_packages", False):
        return

    def keep(name: str, given: Any = None) -> bool:
        return (name.split(".", 1)[0] in KEEP_LOADED or installed(name)
                or bool(given and given(name)))

    class KeepingSnapshot(original):  # type: ignore[misc, valid-type]
        keeps_native_packages = True

        def __init__(self, preserve: Any = None) -> None:
            super().__init__(preserve=lambda name: keep(name, preserve))

    pytester_module.SysModulesSnapshot = KeepingSnapshot  # type: ignore[misc]


_keep_native_packages_loaded()


def shared_data(*parts: str) -> Path:
    """A file of the upstream benchmark data beside the repo; skips the test when absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"upstream data not available: {path} (only in the project's workspace)")
    return path


@pytest.fixture(autouse=True)
def own_fetch_folder(tmp_path_factory: pytest.TempPathFactory,
                     monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test has its own fetch folder (`pytest-tom fetch`, `--tom-suite` of fetched
    names), empty, never the user's cache: $PYTEST_TOM_FETCH_DIR points at it."""
    folder = tmp_path_factory.mktemp("fetched")
    monkeypatch.setenv("PYTEST_TOM_FETCH_DIR", str(folder))
    return folder


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A chat-completions server on 127.0.0.1 answering "a)" (tests set `.responder`)."""
    with ChatServer() as server:
        yield server


def header_budgets(output: str) -> dict[str, int]:
    """family -> the max_tokens per answer the `tom:` header line gives it ("max_tokens 64
    per answer (fantom, generic 128; hitom 256)"): the families named in the parentheses
    get theirs, every other family the first number (a defaultdict)."""
    line = next(line for line in output.splitlines() if line.startswith("tom: model"))
    m = re.search(r"max_tokens (\d+) per answer(?: \(([^)]*)\))?", line)
    assert m, line
    out: dict[str, int] = defaultdict(lambda: int(m[1]))
    exceptions = m[2] or ""
    for part in ([] if exceptions.startswith("family defaults") else exceptions.split("; ")):
        names, budget = part.rsplit(" ", 1)
        out.update(dict.fromkeys(names.split(", "), int(budget)))
    return out


def load_report(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


# The options of every run a test makes with pytester (in process, and the subprocesses it
# starts); tests/test_other_plugins.py keeps only the first, the plugins being its subject.
NO_RANDOM_ORDER = "-p no:randomly"
INNER_RUN_OPTIONS = f"{NO_RANDOM_ORDER} -p no:rerunfailures"


@pytest.fixture(autouse=True)
def _inner_runs_without_order_or_rerun_plugins(request: pytest.FixtureRequest) -> None:
    """Two dev dependencies act in every run where they are installed:

    - pytest-randomly shuffles the tests and reseeds `random`: off, like this suite's own
      addopts, so an inner run's order and `random` are those the test wrote;
    - pytest-rerunfailures before 16.6.1 (the oldest versions CI installs: 16.6.1 needs
      pytest 8.2) starts a status server in every run where xdist is installed, and each
      connection of an `-n 2` run's workers, once closed, leaves a thread spinning at full
      CPU (its read loop never sees the end of the stream). In process, those threads
      stay for the rest of the session: the oldest-versions run slowed to a third of its
      speed. Off in inner runs; no test but tests/test_other_plugins.py reruns anything.

    Set after pytester's own set-up, which clears PYTEST_ADDOPTS."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")
        request.getfixturevalue("monkeypatch").setenv("PYTEST_ADDOPTS", INNER_RUN_OPTIONS)


def pytest_report_header(config: pytest.Config) -> str:
    """Which request path the openai: backend takes in this run's tests (CI runs the tests
    of the request path on both: $PYTEST_TOM_OPENAI_TRANSPORT=sdk, and the default)."""
    transport = pick_transport("auto", "http://127.0.0.1:9/v1")
    path = pick_path("auto", transport, "http://127.0.0.1:9/v1")
    why = (f"${PATH_ENV}={os.environ[PATH_ENV]}" if os.environ.get(PATH_ENV)
           else "aiohttp installed" if path == "worker" else "aiohttp not installed")
    return f"openai: request path {path} by default ({why}); the client's transport {transport}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files that hold a `slow` test run first, each file's tests kept together and in
    their order: under `-n 2` the two workers then share the long tests from the start
    instead of one worker finishing a long test alone at the end."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)  # stable: the order within stays
