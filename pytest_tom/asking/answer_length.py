"""How long an answer may be when the user does not say (`--tom-max-tokens`).

An OpenAI-compatible server generates until the model stops or its own limit
(often the whole context): a small or base model asked "Where will Maya look?"
may write thousands of tokens, and every such item runs into the timeout. The
benchmarks' answers are short (a letter, yes/no, names, a small JSON), so the
backends that generate (`BackendAbilities.family_max_tokens`: openai:, hf:, local:, and
an answerer that declares it) get a length per family and call: the family's `answer_tokens` for an answer, its
`reasoning_tokens` for the first call of a reasoning method (chain of thought,
SimToM's perspective step), whose text the next call or the scorer reads; a reasoning
model's thought gets room on top (`asking/reasoning.budget_text`). Other answerers get
no max_tokens and choose their own (`NO_MAX_TOKENS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# the header's words when no max_tokens is sent: a python: answerer that does not declare
# family_max_tokens (docs/own-model.md), or replay:, chooses its own length
NO_MAX_TOKENS = ("max_tokens none sent (the answerer's own length; family_max_tokens = True "
                 "takes each family's)")

# methods whose first call reasons before (or instead of) answering
REASONING_METHODS = frozenset({"cot", "simtom", "1shot-cot"})


def default_max_tokens(family: Any, method: str, step: int) -> int:
    """The max_tokens of call `step` (0 = first) of `method` for an item of `family`."""
    if step == 0 and method in REASONING_METHODS:
        return int(family.reasoning_tokens)
    return int(family.answer_tokens)


def header_text(families: Iterable[Any], method: str) -> str:
    """`max_tokens 64 per answer (fantom, generic 128) ...` for the report header."""
    families = list(families)
    by_budget: dict[int, list[str]] = {}
    for fam in families:
        by_budget.setdefault(int(fam.answer_tokens), []).append(fam.name)
    if not by_budget:
        return "max_tokens per family"
    common = max(by_budget, key=lambda n: (len(by_budget[n]), -n))
    others = [f"{', '.join(sorted(names))} {n}" for n, names in sorted(by_budget.items())
              if n != common]
    text = f"max_tokens {common} per answer" + (f" ({'; '.join(others)})" if others else "")
    if method in REASONING_METHODS:
        reasoning = sorted({int(f.reasoning_tokens) for f in families})
        text += f", {'/'.join(map(str, reasoning))} to reason"
    return text + " (family defaults; --tom-max-tokens N to change)"


def sent_text(settings: Mapping[str, object]) -> str:
    """The answer length a saved report's requests carried, in words: the option's value,
    else what the run recorded (`answer_length`: the family defaults, or none sent to an
    answerer that chooses its own), never `max_tokens None`. `settings`: a saved report's
    (`results.run_report.SettingsJSON`), read only."""
    if settings.get("max_tokens") is not None:
        return f"max_tokens {settings['max_tokens']}"
    return str(settings.get("answer_length") or "max_tokens not given (the family defaults or "
               "none sent; this report does not record which)")
