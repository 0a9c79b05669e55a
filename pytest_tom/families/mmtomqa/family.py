"""The MMToM-QA family, text only: a home, a person's actions in it, and a question about
the person's belief or goal with two options.

The parts this module names in `parts` (`families/parts.py`): a scenario is one question (`schema`):
the apartment, the person, the actions, the question, its options (a) and (b) and the
right letter; the questions of one episode form a group (`expand`); the prompt is the
authors' text-only prompt (`prompts`); the answer is read as an answer, or as the
authors' script reads it with `--tom-mmtomqa-reading=authors` (`scoring`); accuracy per
question type, per belief and goal inference and overall are declared in `headline`,
laid out as the paper's table by `metrics`; `convert` reads the authors' questions.json.
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


class MmToMQAFamily(Family):
    name = "mmtomqa"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, options, download, probes,
                  "pytest_tom.families.mmtomqa.convert")
    description = "MMToM-QA (text only): belief and goal inference, two options"
    metric_patterns = ()  # no names beyond the declared ones
