"""The package's architecture as a test: every module is in a declared layer, layers
import only downward, no import cycles (imports inside functions and `if TYPE_CHECKING:`
imports count too: an import for a type annotation is a dependency all the same),
families stay in their folders, the request path goes one way, no function of the plugin
takes an untyped run, imports sit at the top except the few lazy ones listed with their
reasons, and an inactive plugin imports neither PyYAML nor any family
(docs/architecture.md). No rule has an exception."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "pytest_tom"

# lower number = lower layer; a module may import its own layer and the ones below
LAYERS: dict[str, int] = {
    "core": 0,
    "suite": 1,
    "scoring": 2, "metrics": 2, "backends": 2,
    "families": 3,
    "asking": 4,  # how a run asks the model: runner, retries, cache, early stop
    "catalogue": 4,  # which suites there are: reading a file, bundled, fetched, named
    "items": 5,  # one item's life without pytest: conversation, samples, probes, record
    "results": 5,  # the result and report model: results, aggregation, run report, merge
    "gates": 6,
    "compare": 7,  # comparing saved reports: analysis only (report renders it)
    "report": 8,  # every output, comparisons included: report may import compare
    "plugin": 9,  # the pytest layer: entry point, hooks, items, session, request phase
    "commands": 10,  # the subcommands of `pytest-tom`, one module each (cli.py dispatches)
}
# the modules of the package root, each named: a new module or folder must be declared
ROOT_MODULES: dict[str, int] = {
    "pytest_tom": 0,  # the package's docstring and version: imports nothing
    "pytest_tom.api": 10,  # the public import surface for family and backend authors
    "pytest_tom.cli": 10,  # the `pytest-tom` command
    # every private pytest name, with the versions it was checked on (report/ and plugin/)
    "pytest_tom.pytest_compat": 8,
}
PYTEST_FREE = ("core", "suite", "scoring", "metrics", "families", "asking", "catalogue", "items",
               "results", "gates")
# inside the pytest layer the request path goes one way: the entry point activates the
# run, whose hook objects (test loop, outputs) drive the phases; the phases read the run
# context and ask the engine; items ask the request phase for their answers, and nothing
# reaches back up. A module imports only modules of a lower rank (never its own).
PLUGIN_ORDER: dict[str, int] = {
    # leaves: the entry point's light helpers, the model, the bundled suites, the checks
    "stash": 0, "pytest_options": 0, "own_model_hook": 0, "inactive": 0, "markers": 0,
    "large_runs": 0, "worker_start_error": 0, "usage_errors": 0, "own_model": 0,
    "suite_option": 0,
    "other_plugins": 0,
    "context": 1,  # the run context, built once: options, settings, model, shard
    "request_phase": 2, "selection": 2,  # the phases that read only the context
    "items": 3, "lookahead": 3, "streaming": 3, "run_gates": 3, "fixtures": 3,
    "run_loop": 4, "outputs": 4,  # the hook objects that drive the phases
    "activate": 5,  # builds the context and the phases, registers the hook objects
    "plugin": 6,  # the entry point, pytest_tom/plugin/__init__.py
}
# an import inside a function carries `# noqa: PLC0415 <why>` on its line (ruff checks the
# rest, pyproject.toml); no module holds unmarked ones any more
UNMARKED_LAZY: set[str] = set()
MAX_LAZY = 30


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


class UnknownLayer(LookupError):
    pass


def layer_of(module: str) -> tuple[str, int]:
    """The declared layer of `module`; an undeclared folder or root module is an error."""
    if module in ROOT_MODULES:
        return "root", ROOT_MODULES[module]
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in LAYERS:
        return parts[1], LAYERS[parts[1]]
    raise UnknownLayer(f"{module} is in no declared layer: put it in a layer's folder, or "
                       f"declare its folder in LAYERS (and docs/architecture.md)")


def _in_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(module: str) -> set[str]:
    """pytest_tom modules `module` imports: at module level, in functions, and for type
    checking alone (`if TYPE_CHECKING:`)."""
    return imports_in(MODULES[module], module)


def imports_in(path: Path, module: str, known: Collection[str] = MODULES.keys()) -> set[str]:
    """The modules of `known` that the file `path` (module `module`) imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            # `from pkg import sub` imports the submodule when there is one
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                     for a in node.names]
        else:
            continue
        out.update(n for n in names if n in known and n != module)
    return out


GRAPH = {m: imports_of(m) for m in MODULES}


def test_every_module_is_in_a_layer() -> None:
    unknown = []
    for module in MODULES:
        try:
            layer_of(module)
        except UnknownLayer as exc:
            unknown.append(str(exc))
    assert not unknown, "\n".join(unknown)
    assert "pytest_tom.plugin" in GRAPH and len(GRAPH) > 80


@pytest.mark.parametrize("module", ["pytest_tom.util.helpers", "pytest_tom.util",
                                    "pytest_tom.helpers", "pytest_tom.plugins.x"])
def test_an_undeclared_folder_or_root_module_has_no_layer(module: str) -> None:
    with pytest.raises(UnknownLayer):
        layer_of(module)


def test_every_plugin_module_has_a_place_on_the_request_path() -> None:
    names = {m.split(".")[2] if m.count(".") >= 2 else "plugin"
             for m in MODULES if layer_of(m)[0] == "plugin"}
    assert names <= set(PLUGIN_ORDER), f"undeclared in PLUGIN_ORDER: {names - set(PLUGIN_ORDER)}"


def test_the_request_path_goes_one_way() -> None:
    def rank(module: str) -> int:
        return PLUGIN_ORDER[module.split(".")[2] if module.count(".") >= 2 else "plugin"]

    bad = [f"{module} imports {target}" for module, targets in GRAPH.items()
           if layer_of(module)[0] == "plugin"
           for target in sorted(targets)
           if layer_of(target)[0] == "plugin" and rank(target) >= rank(module)
           and target != module]
    assert not bad, "\n".join(bad)


# parameter names of the run and its phases: in plugin/ they are typed, never Any
RUN_NAMES = {"tom", "session", "ctx", "context", "run", "requests", "gates", "selection",
             "outputs", "slot", "model", "files", "lookahead", "stream"}


def untyped_runs(path: Path) -> list[str]:
    """`function(parameter)` of each function in `path` taking the run, or one of its
    phases, as Any or without a type."""
    bad = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.arg in RUN_NAMES and (arg.annotation is None
                                             or "Any" in ast.unparse(arg.annotation)):
                    bad.append(f"{node.name}({arg.arg})")
    return bad


def test_no_plugin_function_takes_an_untyped_run() -> None:
    bad = [f"{module}: {where}" for module, path in MODULES.items()
           if layer_of(module)[0] == "plugin" for where in untyped_runs(path)]
    assert not bad, "\n".join(bad)


def test_an_any_typed_session_is_found(tmp_path: Path) -> None:
    path = tmp_path / "request_phase.py"
    path.write_text("from typing import Any\nimport pytest\n"
                    "def configure(tom: Any) -> None: ...\n"
                    "def run(session: pytest.Session, ctx) -> None: ...\n", encoding="utf-8")
    assert untyped_runs(path) == ["configure(tom)", "run(ctx)"]


def function_level_imports(module: str) -> list[tuple[int, str]]:
    """(line, source line) of each import inside a function (TYPE_CHECKING blocks aside)."""
    path = MODULES[module]
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or _in_type_checking(node, parents):
            continue
        up = node
        while up in parents and not isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
            up = parents[up]
        if isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node.lineno, lines[node.lineno - 1].strip()))
    return out


LAZY = {module: function_level_imports(module) for module in MODULES}


def test_imports_at_the_top_except_a_few_with_a_reason() -> None:
    lazy = [(m, line, src) for m, found in LAZY.items() for line, src in found]
    unexplained = [f"{m}:{line}: {src}" for m, line, src in lazy if m not in UNMARKED_LAZY
                   and len(src.partition("# noqa: PLC0415")[2].split()) < 2]
    assert not unexplained, ("an import inside a function needs `# noqa: PLC0415 <why>` "
                             "(or move it to the top):\n" + "\n".join(unexplained))
    assert len(lazy) < MAX_LAZY, "\n".join(f"{m}:{line}: {src}" for m, line, src in lazy)


def test_the_entry_point_is_the_one_lazy_boundary_of_the_plugin() -> None:
    """Modules imported only once the plugin is active import at the top; the entry
    point (imported by every pytest run) defers the active run."""
    lazy_plugin = {m for m in LAZY if LAZY[m] and layer_of(m)[0] == "plugin"}
    assert lazy_plugin <= {"pytest_tom.plugin"}, lazy_plugin
    assert any("plugin.activate" in src for _, src in LAZY["pytest_tom.plugin"])


def test_no_layer_imports_upward() -> None:
    bad = []
    for module, targets in GRAPH.items():
        name, rank = layer_of(module)
        for target in sorted(targets):
            tname, trank = layer_of(target)
            if trank > rank:
                bad.append(f"{module} ({name}) imports {target} ({tname})")
    assert not bad, "\n".join(bad)


def test_no_import_cycles() -> None:
    found = import_cycles(GRAPH)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The modules of every import cycle of `graph` (its strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def strongconnect(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in graph:
        if v not in index:
            strongconnect(v)
    return cycles


def test_an_import_for_type_checking_closes_a_cycle(tmp_path: Path) -> None:
    """The cycle of the old plugin (the stash named the session for its key's type, the
    session the phases, a phase the stash) is found although one edge was only for type
    checking."""
    files = {
        "stash": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                 "    from pytest_tom.plugin.session import TomSession\n",
        "session": "from pytest_tom.plugin.request_phase import submit\n",
        "request_phase": "from pytest_tom.plugin.stash import get_session\n",
    }
    known = {f"pytest_tom.plugin.{name}" for name in files}
    graph = {}
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
        found = imports_in(tmp_path / f"{name}.py", f"pytest_tom.plugin.{name}", known)
        graph[name] = {m.rpartition(".")[2] for m in found}
    assert graph["stash"] == {"session"}
    assert import_cycles(graph) == [["request_phase", "session", "stash"]]


def test_family_folders_import_no_other_family() -> None:
    bad = []
    for module, targets in GRAPH.items():
        parts = module.split(".")
        if len(parts) < 4 or parts[1] != "families":
            continue
        for target in targets:
            tparts = target.split(".")
            if len(tparts) >= 4 and tparts[1] == "families" and tparts[2] != parts[2]:
                bad.append(f"{module} imports {target}")
    assert not bad, "\n".join(bad)


FAMILY_KITS = ("pytest_tom.families.kit", "pytest_tom.families.option_kit")


def package_imports(path: Path, module: str) -> list[str]:
    """Every pytest_tom module or package `path` names in an import, anywhere in the file
    (in functions and TYPE_CHECKING blocks too), relative imports resolved."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out += [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                    for a in node.names]
    return [m for m in out if m == "pytest_tom" or m.startswith("pytest_tom.")]


def test_family_folders_import_only_the_kit_and_their_own_modules() -> None:
    """Every folder under families/ (a new family too) is built from `families.kit` (its
    `options.py` from `families.option_kit`, which the inert plugin can read) and modules
    of its own folder: nothing else of pytest_tom (issue 31)."""
    folders = sorted(p for p in (PACKAGE / "families").iterdir()
                     if p.is_dir() and (p / "__init__.py").is_file())
    assert len(folders) >= 5
    bad = []
    for folder in folders:
        own = f"pytest_tom.families.{folder.name}"
        for path in sorted(folder.rglob("*.py")):
            module = module_name(path)
            bad += [f"{module} imports {target}" for target in package_imports(path, module)
                    if target not in FAMILY_KITS and target != own
                    and not target.startswith(f"{own}.")]
    assert not bad, "\n".join(bad)


def test_the_family_kit_test_catches_an_import_beside_the_kit(tmp_path: Path) -> None:
    """The check above fails on what the built-in families did before issue 31."""
    path = tmp_path / "scoring.py"
    path.write_text("from pytest_tom.core.model import ItemSpec\n"
                    "from pytest_tom.families.kit import Outcome\n"
                    "from . import prompts\n"
                    "def f():\n    from pytest_tom.scoring import json_final\n")
    found = package_imports(path, "pytest_tom.families.fantom.scoring")
    assert found == ["pytest_tom.core.model", "pytest_tom.families.kit",
                     "pytest_tom.families.fantom.prompts", "pytest_tom.scoring.json_final"]


def test_lower_layers_do_not_import_pytest() -> None:
    bad = []
    for module, path in MODULES.items():
        if layer_of(module)[0] not in PYTEST_FREE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n == "pytest" or n.startswith(("pytest.", "_pytest")) for n in names):
                bad.append(module)
    assert not bad, f"modules below the plugin importing pytest: {bad}"


def test_core_imports_nothing_else() -> None:
    for module, targets in GRAPH.items():
        if layer_of(module)[0] == "core":
            assert all(layer_of(t)[0] == "core" for t in targets), (module, targets)


INERT = """
import sys, pytest
rc = pytest.main(["-p", "pytest_tom.plugin", "-p", "no:cacheprovider", "-q", sys.argv[1]])
loaded = [m for m in sys.modules if m == "yaml" or m.startswith("yaml.")
          or (m.startswith("pytest_tom.families.") and not m.endswith(".options")
              and m.count(".") >= 3)
          or m.startswith(("pytest_tom.asking", "pytest_tom.catalogue", "pytest_tom.items",
                         "pytest_tom.results", "pytest_tom.suite", "pytest_tom.plugin.outputs",
                         "pytest_tom.plugin.context", "pytest_tom.core.model",
                         "pytest_tom.core.sweep", "pytest_tom.core.probe"))]
print("RC", rc)
print("LOADED", sorted(loaded))
"""


@pytest.mark.parametrize("active", [False, True])
def test_inactive_plugin_loads_no_yaml_and_no_family(tmp_path: Path, active: bool) -> None:
    (tmp_path / "a.tom.yaml").write_text("suite: s\nscenarios: []\n", encoding="utf-8")
    (tmp_path / "test_plain.py").write_text("def test_ok():\n    pass\n", encoding="utf-8")
    if active:  # the check can fail: an active run does load them
        (tmp_path / "pytest.ini").write_text("[pytest]\ntom_model = python:answers:a\n")
        (tmp_path / "answers.py").write_text("def a(req):\n    return 'yes'\n")
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", INERT, str(tmp_path)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300).stdout
    loaded = next(line for line in out.splitlines() if line.startswith("LOADED"))
    if active:
        assert "'yaml" in loaded and "pytest_tom.catalogue" in loaded
    else:
        assert loaded == "LOADED []", out
        assert "RC 0" in out  # the plain test ran, the suite file was left alone


def snippet_lines(code: str, cwd: Path) -> list[str]:
    """The lines `code` prints, run by a fresh interpreter with this checkout first on its
    path (what a run's process imports is the subject: nothing imported here counts)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


WORKER_IMPORTS = """
import sys
from pytest_tom import families
from pytest_tom.plugin import activate  # all an active run imports, outputs included
for name in families.available():  # every family, its metrics too
    families.get(name)
print("BEFORE", "numpy" in sys.modules)
from pytest_tom.metrics.intervals import median_interval
print("MEDIAN", median_interval([4.0, 1.0, 3.0, 2.0, 5.0, 6.0, 7.0]))
print("AFTER", "numpy" in sys.modules)
"""


def test_numpy_is_imported_by_the_first_computation_not_by_the_imports(tmp_path: Path) -> None:
    """core/lazy_numpy.py: every module of an active run and every family imported (with
    their metric declarations; a family's own metric modules take `np` from the kit),
    numpy is not: an xdist worker, which never aggregates, is spared its import; the first
    figure computed imports it and computes as numpy does."""
    lines = snippet_lines(WORKER_IMPORTS, tmp_path)
    assert lines[0] == "BEFORE False" and lines[2] == "AFTER True", lines
    assert lines[1].startswith("MEDIAN Interval(value=4.0, low=1.0, high=7.0"), lines[1]


START_CHECKS = """
import sys
from pytest_tom import families
from pytest_tom.core.option_table import build_options
from pytest_tom.plugin.context import run_settings
from pytest_tom.plugin.usage_errors import family_problems, method_note

def loaded():
    return sorted(m.split(".")[2] for m in sys.modules
                  if m.startswith("pytest_tom.families.") and m.endswith(".family"))

def check(values):
    options = build_options(values, families.declared_options())
    settings = run_settings(options)
    return family_problems(options, settings), method_note(settings.method)

print("DEFAULTS", check({}), loaded())
print("TRIES", check({"tombench_tries": "0"}), loaded())
print("METHOD", check({"method": "simtom"})[1] is not None, len(loaded()) > 2)
"""


def test_the_start_checks_load_only_the_families_they_need(tmp_path: Path) -> None:
    """plugin/usage_errors.family_problems: the default method and default family options
    need no family loaded (eleven took about 0.16 s of every run's start); an option set
    away from its default loads its family, whose check still refuses a bad value; another
    method loads the families to say where it applies."""
    lines = snippet_lines(START_CHECKS, tmp_path)
    assert lines[0] == "DEFAULTS ([], None) []", lines[0]
    assert lines[1].startswith("TRIES (['--tom-tombench-tries 0: must be at least 1'], None)")
    assert lines[1].endswith("['tombench']"), lines[1]
    assert lines[2] == "METHOD True True", lines[2]


def test_the_exit_status_has_one_writer() -> None:
    """Only the outputs' end of the session sets pytest's exit status (the gates and the
    baseline return the status they ask for): two writers could undo each other."""
    writers = sorted(name for name, path in MODULES.items()
                     if any(isinstance(node, ast.Assign) and any(
                         isinstance(t, ast.Attribute) and t.attr == "exitstatus"
                         for t in node.targets)
                         for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))))
    assert writers == ["pytest_tom.plugin.outputs"], writers
