"""The BigToM family: causal templates expanded into 25 conditions each.

One scenario of a BigToM suite is a causal template: one sentence per variable
(context, desire, percept, initial belief, causal event with the agent's aware /
not-aware percept, the actions given the new / initial state, the belief and
action questions with their aware / not-aware answers, a random event with its
percepts). At collection each template becomes 25 items
(`<template>::<condition>`, see `bigtom.conditions`), two options each, their
order shuffled per item with the seed. An answer is right when it names the
right letter and not the other one. Aggregates: accuracy per condition, and the
joint scores TB ∧ FB and TC ∧ FC, declared in `bigtom.headline`, laid out like
Table 2 of the paper by `bigtom.metrics`.

The parts this module names in `parts` (`families/parts.py`): suite shape and checks `schema`,
items `expand`, methods and prompts `prompts`, answer rule `scoring`, tables `metrics`,
declared metrics `headline`, converter `convert`.
"""

from __future__ import annotations

from pytest_tom.families.kit import Family
from pytest_tom.families.kit import Parts

from . import download
from . import expand
from . import headline
from . import metrics
from . import probes
from . import prompts
from . import schema
from . import scoring


class BigTomFamily(Family):
    name = "bigtom"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, download=download,
                  probes=probes, convert="pytest_tom.families.bigtom.convert")
    description = "BigToM causal templates: 25 conditions per template, TB ∧ FB joint scores"
    lower_is_better = ("initial_state_rate",)  # answers naming the initial state: an error rate
    metric_patterns = ()  # names beyond aggregate([]) (usage_checks)
