"""OpenToM questions and prompts: the question templates of the dataset, the answer
instruction of each genre, and the conversations of the three methods.

- vanilla: the narrative, the question and its answer format, no explanation;
- cot: the same, reasoning first, the answer on the last line (the last line is scored);
- simtom: two calls (Wilf et al.'s perspective taking, as the OpenToM paper runs
  it): first "which events does the character know about?", then the question
  with the narrative and that character-centric account. Narrator questions
  have no character and are asked once, as in vanilla.
"""

from __future__ import annotations

from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Message
from pytest_tom.families.kit import single_call
from pytest_tom.families.opentom.schema import Cast

METHODS = ("vanilla", "cot", "simtom")
ANSWER_FORMAT = {
    "loc_coarse": 'Answer the question with "Yes" or "No".',
    "loc_fine": "Answer with the location, in the words of the story.",
    "mhop_fullness": 'Answer with "more full", "equally full" or "less full".',
    "mhop_accessibility": 'Answer with "more accessible", "equally accessible" or '
                          '"less accessible".',
    "attitude": "Answer with the letter and the word of one option.",
}
NO_EXPLANATION = "Do not give any explanation."
COT = "Reason step by step before answering. Write the answer in the end, on a line of its own."
SIMTOM_PERSPECTIVE = (
    "Which events of this story does {name} know about? List only what {name} did, saw or "
    "was told, in the order it happened, and leave out everything {name} did not witness. "
    "Do not answer any question yet."
)
SIMTOM_INTRO = "What {name} knows about, according to an earlier reading of the story:"


def default_question(genre: str, order: str | None, perspective: str, container: str | None,
                     sc: Cast) -> str:
    """The dataset's wording of a question, from the scenario's characters, entity and places."""
    roles = {"mover": str(sc["mover"]), "observer": str(sc["observer"])}
    who = roles.get(perspective, "")
    other = roles["observer" if perspective == "mover" else "mover"]
    entity = str(sc["entity"])
    if genre == "attitude":
        return (f"As {roles['observer']}, what is your attitude towards {roles['mover']}'s action "
                f"of moving the {entity} from {sc['original_place']} to {sc['new_place']}?")
    second = order == "second"
    if genre == "loc_coarse":
        if second:
            return (f"From {who}'s perspective, does {other} think that the {entity} is in its "
                    f"initial location by the end of the story?")
        return f"From {who}'s perspective, is the {entity} in its initial location by the end of the story?"
    if genre == "loc_fine":
        if second:
            return (f"From {who}'s perspective, where precisely does {other} think that the "
                    f"{entity} is located by the end of the story?")
        return f"From {who}'s perspective, where is the {entity} located precisely by the end of the story?"
    if genre == "mhop_fullness":
        place = str(sc["original_place" if container == "original" else "new_place"])
        if second:
            return (f"From {who}'s perspective, how does {other} think {place}'s fullness would "
                    f"change by the end of the story?")
        return f"From {who}'s perspective, how does {place}'s fullness change by the end of the story?"
    if genre == "mhop_accessibility":
        if second:
            return (f"From {who}'s perspective, how would the {entity}'s accessibility change for "
                    f"{other} by the end of the story?")
        return (f"From {who}'s perspective, how would the {entity}'s accessibility change by the "
                f"end of the story?")
    raise ValueError(f"unknown OpenToM genre {genre!r}")


def question_block(item: ItemSpec) -> str:
    lines = [f"Question: {item.question}", *item.choices_shown]
    return "\n".join(lines)


def story(item: ItemSpec) -> str:
    return f"Story:\n{item.data['narrative'].strip()}"


def vanilla_prompt(item: ItemSpec) -> str:
    return (f"{story(item)}\n\n{question_block(item)}\n"
            f"{ANSWER_FORMAT[item.kind]} {NO_EXPLANATION}\nAnswer:")


def cot_prompt(item: ItemSpec) -> str:
    return f"{story(item)}\n\n{question_block(item)}\n{ANSWER_FORMAT[item.kind]}\n{COT}"


def simtom_first(item: ItemSpec, name: str) -> str:
    return f"{story(item)}\n\n{SIMTOM_PERSPECTIVE.format(name=name)}"


def simtom_second(item: ItemSpec, name: str, perspective: str) -> str:
    return (f"{story(item)}\n\n{SIMTOM_INTRO.format(name=name)}\n{perspective.strip()}\n\n"
            f"Answer from {name}'s perspective.\n{question_block(item)}\n"
            f"{ANSWER_FORMAT[item.kind]} {NO_EXPLANATION}\nAnswer:")


def conversation(item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
    """The next call of `method` for `item` given the responses so far (None when done)."""
    if method == "cot":
        return single_call([{"role": "user", "content": cot_prompt(item)}], responses)
    name = item.data.get("character")
    if method == "simtom" and name:
        if not responses:
            return [{"role": "user", "content": simtom_first(item, name)}]
        if len(responses) == 1:
            return [{"role": "user", "content": simtom_second(item, name, responses[0])}]
        return None
    if method in ("vanilla", "simtom"):
        return single_call([{"role": "user", "content": vanilla_prompt(item)}], responses)
    raise ValueError(f"the opentom family has no method {method!r}")
