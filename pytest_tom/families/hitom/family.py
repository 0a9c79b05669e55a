"""The Hi-ToM family: stories about agents moving an object between containers, with one
question per ToM order (0: where the object really is; 1-4: what A thinks B thinks ...),
15 options each, in the authors' two prompting styles and with or without deceptive
public and private claims.

The parts this module names in `parts` (`families/parts.py`): a scenario is one story with its
questions (`schema`); each question is one item (`<story>::order<k>`), the story's
questions one group (`expand`); the prompt is laid out as the authors' prompt files,
in pytest-tom's own words unless a converted suite carries the authors' (`prompts`,
`prompt_files`); the answer is the option the reply gives, read by the kit's
multiple-choice reader (its opening, else its last answer statement), or as the authors'
notebooks count it with `--tom-hitom-reading authors` (`scoring`); accuracy per order, per setting and per story length and the authors'
joint accuracy are declared in `headline`, laid out as the paper's tables and heat maps
by `metrics`; `convert` reads the authors' Hi-ToM_data.json.
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


class HiTomFamily(Family):
    name = "hitom"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, options, download, probes,
                  "pytest_tom.families.hitom.convert")
    description = "Hi-ToM: higher-order beliefs (orders 0-4), with and without deception"
    metric_patterns = ()  # no names beyond the declared ones
    answer_tokens = 256  # CoTP: the answer first, then its explanation
