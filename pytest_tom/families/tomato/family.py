"""The ToMATO family (Shinoda et al., AAAI 2025): four-option questions about what one
speaker of a two-agent conversation believes, intends, desires, feels or knows (first
order), or thinks the other does (second order); ToMATO-FB is the subset whose right
answer is a false belief.

A scenario is one question: the transcript, the question, four options, the right letter,
the mental state, the order, whether it is a false-belief question, and the target's Big
Five traits. The prompt shows the options as `[A]`..`[D]` and asks for the bracketed
letter. Replies are read correctly by default, or as the authors' script reads them
(the first bracketed letter) with `--tom-tomato-reading authors`. Decoding is the run's
(greedy by default); `--tom-tomato-sampling authors` samples as the authors did
(temperature 0.6, top_p 0.9, seed 42). Accuracy per mental state x order, per mental
state, per order and on the false-belief subset are declared metrics.

The parts this module names in `parts` (`families/parts.py`): suite shape `schema`, items `expand`,
prompts and the sampling protocol `prompts`, answer rule `scoring` (the two readings:
`reading`), tables `metrics`, declared metrics `headline`, options `options`, converter
`convert`, official files `download`, the probes' hook `probes`.
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


class TomatoFamily(Family):
    name = "tomato"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, options, download, probes,
                  "pytest_tom.families.tomato.convert")
    description = "ToMATO four-option questions on conversations: accuracy per mental state x order"
    # the authors' generation budget was 256 new tokens (500 for the API models); a
    # bracketed letter needs a few, the room covers a sentence of explanation
    answer_tokens = 256
    lower_is_better = ("unreadable",)
