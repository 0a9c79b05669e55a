"""The option table: declared once (TomOptions fields, families' options.py), every name
unique, read into a frozen object, bad values named."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util

import pytest

from pytest_tom import families
from pytest_tom.core.option_table import TomOptions, build_options, core_table
from pytest_tom.plugin.pytest_options import table


def test_every_option_once_and_each_family_declares_its_own() -> None:
    names = [o.name for o in table()]
    assert len(names) == len(set(names)), names
    assert {"model", "fail_under", "fantom_context", "opentom_protocol", "embedder"} <= set(names)
    for name, target in families.available().items():
        module = families.options_module(target)
        declared = getattr(importlib.import_module(module), "OPTIONS", ()) if module and \
            importlib.util.find_spec(module) else ()
        assert tuple(families.get(name).options) == tuple(declared), name


def test_values_are_typed_and_frozen() -> None:
    opts = build_options({"seed": "7", "temperature": "0.5", "cache_clear": "yes",
                          "fantom_context": "full"}, families.declared_options())
    assert (opts.seed, opts.temperature, opts.cache_clear) == (7, 0.5, True)
    assert opts.family["fantom_context"] == "full" and opts.get("fantom_context") == "full"
    assert opts.concurrency == 16 and opts.as_dict()["fantom_group"] == "set"
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.seed = 3  # type: ignore[misc]
    assert [o.name for o in core_table()] == [f.name for f in dataclasses.fields(TomOptions)
                                              if f.name != "family"]


@pytest.mark.parametrize(("raw", "message"), [
    ({"seed": "x"}, "--tom-seed / tom_seed: 'x' is not valid"),
    ({"cache": "maybe"}, "--tom-cache: 'maybe' is not one of on, read, write, off"),
    ({"fantom_group": "team"}, "--tom-fantom-group: 'team' is not one of set, part, conversation"),
    ({"embedder_dtype": "float16"},
     "--tom-embedder-dtype: 'float16' is not one of auto, float32, bfloat16"),
])
def test_bad_values_name_the_option(raw: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError) as exc:
        build_options(raw, families.declared_options())
    assert str(exc.value) == message


@pytest.mark.parametrize(("raw", "message"), [
    ({"concurrency": "0"}, "--tom-concurrency must be at least 1, not 0"),
    ({"retries": "-1"}, "--tom-retries must be 0 or more, not -1"),
    ({"samples": "0"}, "--tom-samples must be at least 1, not 0"),
    ({"limit": "-2"}, "--tom-limit must be at least 1, not -2"),
    ({"batch_size": "0"}, "--tom-batch-size must be at least 1, not 0"),
    ({"threads": "0"}, "--tom-threads must be at least 1, not 0"),
    ({"local_ctx": "-1"}, "--tom-local-ctx must be at least 1, not -1"),
    ({"deadline": "0"}, "--tom-deadline 0.0: the seconds one call, retries included may take "
                        "must be a positive number"),
    ({"backoff": "-0.5"}, "--tom-backoff -0.5: must be 0 or more seconds"),
    ({"timeout": "nan"}, "--tom-timeout nan: the seconds one attempt may take must be a "
                         "positive number"),
])
def test_the_table_refuses_every_impossible_number(raw: dict[str, str], message: str) -> None:
    """The one place where option values are checked: the runner, the sample requests and
    the backends take them as they come (plugin/request_phase checks nothing again)."""
    with pytest.raises(ValueError) as exc:
        build_options(raw, families.declared_options())
    assert str(exc.value) == message


def test_the_smallest_allowed_numbers_pass() -> None:
    opts = build_options({"concurrency": "1", "retries": "0", "samples": "1", "limit": "1",
                          "batch_size": "1", "threads": "1", "local_ctx": "1", "backoff": "0"},
                         families.declared_options())
    assert (opts.concurrency, opts.retries, opts.samples, opts.limit, opts.batch_size,
            opts.threads, opts.local_ctx, opts.backoff) == (1, 0, 1, 1, 1, 1, 1, 0.0)


@pytest.mark.parametrize(("name", "given", "merged"), [
    ("fail_under", ["turn=0.5", "goal=0.1,", "errors<=0"], "turn=0.5,goal=0.1,errors<=0"),
    ("fail_under", "turn=0.5,goal=0.1", "turn=0.5,goal=0.1"),  # once, or from the ini file
    ("max_drop", ["0.02", "goal=0.05"], "0.02,goal=0.05"),
])
def test_repeated_gate_options_accumulate(name: str, given: object, merged: str) -> None:
    assert {o.name: o.repeat for o in core_table()}[name]
    assert getattr(build_options({name: given}), name) == merged


def test_fail_under_given_twice_on_the_command_line_keeps_both(pytester: pytest.Pytester) -> None:
    """Through pytest's own parser: the last value does not replace the first."""
    pytester.makeconftest("""
from pytest_tom.plugin.pytest_options import read_options

def pytest_configure(config):
    print("FAIL-UNDER", read_options(config).fail_under)
""")
    result = pytester.runpytest("-s", "--tom-fail-under=turn=0.5",
                                "--tom-fail-under=goal=0.1", "--co")
    result.stdout.fnmatch_lines(["FAIL-UNDER turn=0.5,goal=0.1"])
