"""FANToM (Kim et al., 2023): Theory of Mind in conversations with information asymmetry.

A conversation expands into sets; a set (one piece of information one character
missed while away) into a fact question, a choice and a free-response item per
belief question, answerability and info-access list questions, and per-character
yes/no questions. Prompts and answer reading follow the authors' evaluator (with
its listed defects fixed, see `fantom.parsing`); prompts are in `fantom.prompts`, the
answer rules in `fantom.scoring` (free responses by sentence embeddings,
`pytest_tom.scoring.embeddings`, prepared in batches; the embedder options checked and
items skipped without embeddings there too); its metrics (Table 9 of both scenarios:
ALL*, ALL, weighted F1, ...; belief accuracy by ToM order) are declared in
`fantom.headline` (ALL* and ALL grouped as `--tom-fantom-group` says), the tables that
show them and the figures beyond them (the control task's set-level figures, per
character, error types) are in `fantom.metrics`.

The parts this module names in `parts` (`families/parts.py`) give the hooks; what is FANToM's alone
is written here: the unit `--tom-shard` keeps whole.
"""

from __future__ import annotations

from pytest_tom.families.kit import Family
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Parts
from pytest_tom.families.kit import Settings

from . import download
from . import expand
from . import headline
from . import metrics
from . import options
from . import probes
from . import prompts
from . import schema
from . import scoring


class FantomFamily(Family):
    name = "fantom"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, options, download, probes,
                  "pytest_tom.families.fantom.convert")
    description = (
        "FANToM: conversations where characters leave and rejoin; belief, "
        "answerability and info-access questions; ALL* and the paper's table"
    )
    # error counts of the list and yes/no questions (per context, e.g. inaccessible.*)
    lower_is_better = ("*.wrong", "*.unparseable", "*.request_errors", "*.included_unaware",
                       "*.excluded_aware")
    metric_patterns = ()  # names beyond aggregate([]) (usage_checks)
    answer_tokens = 128  # free answers are a sentence; lists of names

    def shard_unit(self, item: ItemSpec, settings: Settings) -> str:
        """The ALL*/ALL grouping of `--tom-fantom-group`: a set (the item's group), a part
        or a whole conversation."""
        grouping = str(settings.options.get("fantom_group") or "set")
        return str(item.meta.get(grouping) or item.group)
