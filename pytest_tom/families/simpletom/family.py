"""The SimpleToM family (Gu et al., ICLR 2026): two-sentence stories in which a key fact
is hidden from the person acting (the cracked helmet on the shelf, the sour milk in the
fridge), each asked three ways: mental state (is the person aware of the fact?),
behaviour (what will they do next?) and judgement (is that behaviour reasonable?). The
paper's finding: models answer the awareness question and then fail to use it.

A scenario is one story with its three questions; its three answers are one scenario
(one resampling unit) for the joint figures. The prompt shows the options as `(A) text`
lines and asks for just the letter in parentheses, as the authors' protocol does.
Replies are read correctly by default, or with the authors' cascade (`(A)`, then `(A`,
then a bare letter) with `--tom-simpletom-reading authors`. Accuracy and the share of
unreadable replies per kind, and behaviour and judgement accuracy among the stories
whose awareness question was answered right, are declared metrics.

The parts this module names in `parts` (`families/parts.py`): suite shape `schema`, items `expand`,
prompts `prompts`, answer rule `scoring` (the two readings: `reading`), the joint
summaries `joint`, tables `metrics`, declared metrics `headline`, options `options`,
converter `convert`, official files `download`, the probes' hook `probes`.
"""

from __future__ import annotations

from pytest_tom.families.kit import Family
from pytest_tom.families.kit import Parts

from . import download
from . import expand
from . import headline
from . import metrics
from . import options
from . import probes
from . import prompts
from . import schema
from . import scoring


class SimpleTomFamily(Family):
    name = "simpletom"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, options, download, probes,
                  "pytest_tom.families.simpletom.convert")
    description = "SimpleToM stories asked three ways: awareness, behaviour, judgement"
    # the authors' budget: 20 tokens for the answer, 500 with chain of thought
    answer_tokens = 20
    reasoning_tokens = 500
    lower_is_better = ("unreadable.*",)
