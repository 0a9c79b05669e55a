"""Usage errors found at start, before anything is collected or asked: the real reason,
early, in one message (exit status 4).

- `--tom-method` offered by no installed family; a method offered by some applies
  where offered (the others run vanilla; the header says which);
- a family's own options (`Family.option_problems`), e.g. a `--tom-embedder` path
  that does not exist;
- a family metric in `--tom-fail-under` / `--tom-max-drop` that its family never
  reports (`fantom.allstar`: did you mean `fantom.all_star`?);
- an empty path on the command line (`--tom-markdown=""`), which would silently
  write nothing;
- an output that cannot be written (`--tom-report`, `--tom-html`, `--tom-markdown`,
  `--tom-record`, `--tom-save-baseline`, `--junitxml`): a directory, a folder that
  cannot be created or written. Checked on the controller, before the first
  request, so a long run is not lost at its end; a missing folder is created.

An xdist worker checks the empty paths alone: it runs with its controller's options,
which the controller checked before it started any worker (the checks of the families
load every installed family, about 30 ms of each worker's start for what the run does
not use).
"""

from __future__ import annotations

import pytest

from pytest_tom import families
from pytest_tom.core.option_table import TomOptions
from pytest_tom.core.settings import FALLBACK_METHOD, Settings
from pytest_tom.gates.spec import GateOptions, GateSpecError, check_family_metrics
from pytest_tom.pytest_compat import junit_path
from pytest_tom.report.atomic import unwritable

OUTPUT_OPTIONS = ("report", "html", "markdown", "record", "save_baseline")
PATH_OPTIONS = ("report", "record", "markdown", "save_baseline", "baseline", "embedder",
                "cache_dir")


def check_start(config: pytest.Config, options: TomOptions, settings: Settings,
                is_worker: bool) -> None:
    """Raise one UsageError listing every problem of the options (an xdist worker: those
    of its paths only, see the module's docstring)."""
    problems: list[str] = []
    for name in PATH_OPTIONS:  # `--tom-markdown="$GITHUB_STEP_SUMMARY"` with the variable unset
        value = config.getoption(f"tom_{name}", None)
        if isinstance(value, str) and not value.strip():
            flag = "--tom-" + name.replace("_", "-")
            problems.append(f"{flag}: an empty path; give a file (in CI: is the variable set?), "
                            f"or leave the option out")
    if not is_worker:
        problems += output_problems(config) + family_problems(options, settings)
    if problems:
        raise pytest.UsageError("\n".join(dict.fromkeys(problems)))


def family_problems(options: TomOptions, settings: Settings) -> list[str]:
    """The method no family offers, each family's own options, the family metrics of the
    gates that their family never reports.

    Only the families these checks need are loaded (loading all eleven built-in ones took
    about 0.16 s of every run's start, numpy included): none for the method every family
    runs (`FALLBACK_METHOD`), and a family's own checks only when the run sets one of its
    options away from its default (a default is valid by declaration)."""
    problems: list[str] = []
    method = settings.method
    if method != FALLBACK_METHOD:
        offering, _ = families.method_offers(method)
        if not offering:
            problems.append(f"--tom-method {method!r}: no installed family offers it; "
                            f"methods: {', '.join(families.all_methods())}")
    for name in families.available():
        try:
            if not families.sets_options(name, settings.options):
                continue
            fam = families.get(name)
        except Exception:  # a broken family: its suites will say so
            continue
        problems += fam.option_problems(settings.options)

    try:
        check_family_metrics(GateOptions.of(options), settings.options)
    except GateSpecError as exc:
        problems.append(str(exc))
    return problems


def output_problems(config: pytest.Config) -> list[str]:
    """One line per output file of the run that could not be written (option and path)."""
    outputs = [(f"--tom-{name.replace('_', '-')}", config.getoption(f"tom_{name}", None), True)
               for name in OUTPUT_OPTIONS]
    outputs.append(("--junitxml", junit_path(config), False))
    problems = []
    for flag, value, atomic in outputs:
        if isinstance(value, str) and value.strip():
            why = unwritable(value, atomic=atomic)
            if why:
                problems.append(f"{flag} {value}: {why}; nothing was asked")
    return problems


def method_note(method: str) -> str | None:
    """For the header: where a method applies when not every family offers it (the method
    every family runs needs no family loaded to say so)."""
    if method == FALLBACK_METHOD:
        return None
    offering, others = families.method_offers(method)
    if not offering or not others:
        return None
    return (f"tom: method {method} applies to {', '.join(offering)}; suites of "
            f"{', '.join(others)} run vanilla (they do not offer {method})")
