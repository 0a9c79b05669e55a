"""The files `pytest-tom init` writes (text only; `commands/init.py` decides what to write)."""

from __future__ import annotations

EXAMPLE_SUITE = """\
# An example suite of your own (written by `pytest-tom init`; edit or replace it).
# The format: every key is described in pytest-tom's docs/suite-format.md; check a suite
# without a model with `pytest-tom validate tom/`.
suite: example
family: generic
version: 1
description: Two short false-belief stories to start from.
scenarios:
  - id: umbrella-hook
    tags: [first_order]
    context: |
      Noor hangs her umbrella on the hook by the front door and goes upstairs to work.
      While she is upstairs, her flatmate Tomas borrows the umbrella, comes back, and
      leaves it to dry in the bathtub. Noor does not see any of this.
    characters: [Noor, Tomas]
    questions:
      - id: belief
        ask: Where will Noor look for her umbrella?
        choices: [on the hook by the front door, in the bathtub]
        answer: on the hook by the front door
      - id: reality
        ask: Where is the umbrella now?
        choices: [on the hook by the front door, in the bathtub]
        answer: in the bathtub
      - id: knows
        ask: Does Noor know that the umbrella was moved?
        yes_no: "no"
  - id: biscuit-tin
    tags: [unexpected_contents]
    context: |
      A tin on the kitchen shelf says "Biscuits", but this morning Ilse emptied it and
      filled it with buttons. Her neighbour Ravi, who was not there, drops by for tea and
      sees the tin on the shelf.
    characters: [Ilse, Ravi]
    questions:
      - id: belief
        ask: What does Ravi think is in the tin?
        choices: [biscuits, buttons]
        answer: biscuits
      - id: reality
        ask: What is in the tin?
        choices: [biscuits, buttons]
        answer: buttons
      - id: knows
        ask: Does Ilse know what is in the tin?
        yes_no: "yes"
"""

ANSWERER = '''\
"""A placeholder model for the example (written by `pytest-tom init`):

    pytest tom --tom-model=python:tom/answer.py:answer

It shows the plumbing end to end and always picks the first choice shown, so expect
about chance. Replace its body with a call to your model (the request holds the
messages, `request.messages`, and the item, `request.item`), or point --tom-model at a
server: --tom-model=openai:MODEL --tom-base-url=http://127.0.0.1:8080/v1
"""


def answer(request):
    choices = request.item.choices
    return choices[0] if choices else "no"
'''

_CONFTEST_DOC = '''\
"""{what} (written by `pytest-tom init`: edit freely).

pytest-tom runs the suites in tom/ (and bundled ones: --tom-suite=fantom,bigtom ...)
against the model --tom-model names:

    pytest tom --tom-model=mymodel                            # the hook below answers
    pytest tom --tom-model=python:tom/answer.py:answer       # a Python function answers
    pytest tom --tom-model=openai:MODEL --tom-base-url=URL   # any OpenAI-compatible server

The hook is pytest-tom's way in for your own model (its docs: own-model.md): it is
called once per process with the --tom-model spec and returns an object with
`answer(request) -> str` for the specs it knows, None for the others.{where}
"""
'''

_HOOK = '''
import pytest


class MyModel:
    """Load your model once in __init__; answer one item in answer()."""

    def answer(self, request):
        # request.messages: the chat messages; request.item: id, choices, tags ...
        choices = request.item.choices
        return choices[0] if choices else "no"  # a placeholder: the first choice


@pytest.hookimpl(optionalhook=True)  # this file also loads when pytest-tom is disabled
def pytest_tom_backend(config, spec):
    if spec == "mymodel":
        return MyModel()
    return None
'''

# the repository had no conftest.py: the hook in a new one at its root
CONFTEST = _CONFTEST_DOC.format(what="pytest configuration of this repository",
                                where="") + _HOOK

# the repository has a conftest.py of its own (never edited): the hook beside the suites,
# in tom/conftest.py, which pytest loads when it is given tom/ (`pytest tom ...`)
TOM_CONFTEST = _CONFTEST_DOC.format(
    what="pytest configuration of the ToM suites in tom/",
    where="\n\nThis file is beside the suites because the repository has a conftest.py of its\n"
          "own; pytest loads it for `pytest tom ...` (tom/ on the command line). To answer\n"
          "--tom-model=mymodel in every run, move the hook into the root conftest.py.") + _HOOK

WORKFLOW = """\
# Theory-of-Mind suites in CI (written by `pytest-tom init`).
# Set the repository variable TOM_MODEL (e.g. openai:my-model) and, for a server, the
# variable TOM_BASE_URL and the secret OPENAI_API_KEY. The first run that completes with
# every item answered saves tom/baseline.json as the artifact tom-baseline: commit it, and
# every later run gates against it (a significant drop of turn or goal accuracy fails the
# job). A run with errors (a server down, a wrong key) saves no baseline and fails.
# A reasoning model (Qwen3, DeepSeek-R1, gpt-oss ...): also set the variable
# TOM_THINKING_TOKENS (e.g. 4096): each request then gets that room for the thought on top
# of its answer length, and the run fails when any answer was cut off by the budget
# (gate cut_off<=0: a budget too small is not read as wrong answers). See pytest-tom's
# docs/reasoning-models.md.
name: tom

on:
  push:
  pull_request:
  workflow_dispatch:

jobs:
  tom:
    runs-on: ubuntu-latest
    timeout-minutes: 90
    env:
      TOM_MODEL: ${{ vars.TOM_MODEL }}
      OPENAI_BASE_URL: ${{ vars.TOM_BASE_URL }}
      OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}
      TOM_THINKING_TOKENS: ${{ vars.TOM_THINKING_TOKENS }}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install
        run: |
          python -m pip install --upgrade pip
          python -m pip install "pytest-tom[html,xdist]"
          if [ -f requirements.txt ]; then python -m pip install -r requirements.txt; fi
          # the repository itself, so that a conftest.py that imports its model works here
          if [ -f setup.py ] || grep -qs '^\\[project\\]' pyproject.toml; then
            python -m pip install -e .
          fi
      - name: ToM suites (report mode, gated against tom/baseline.json)
        run: |
          if [ -z "$TOM_MODEL" ]; then
            echo "::error::set the repository variable TOM_MODEL (e.g. openai:my-model)"
            exit 1
          fi
          if [ -f tom/baseline.json ]; then
            gate="--tom-baseline=tom/baseline.json"
          else
            echo "::notice::no tom/baseline.json yet: this run saves one when every item is answered (artifact tom-baseline); commit it"
            gate="--tom-save-baseline=tom/baseline.json"
          fi
          thinking=""
          if [ -n "$TOM_THINKING_TOKENS" ]; then  # a reasoning model: room, and no cut-off answer
            thinking="--tom-thinking-tokens=$TOM_THINKING_TOKENS --tom-fail-under=cut_off<=0"
          fi
          python -m pytest tom --tom-suite=bundled --tom-model="$TOM_MODEL" \\
            --tom-items=report $gate $thinking \\
            --tom-report=tom-report.json --tom-html=tom-report.html \\
            --tom-markdown="$GITHUB_STEP_SUMMARY" -p no:cacheprovider
      - name: Upload the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: tom-report
          path: |
            tom-report.html
            tom-report.json
          if-no-files-found: ignore
      - name: Upload the new baseline (commit it as tom/baseline.json)
        if: success() && hashFiles('tom/baseline.json') != ''
        uses: actions/upload-artifact@v4
        with:
          name: tom-baseline
          path: tom/baseline.json
"""
