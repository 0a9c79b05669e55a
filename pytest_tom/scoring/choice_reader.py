"""Which option a free-text reply to a multiple-choice question picks, read as a careful
person reads it.

Models answer in two shapes. Some give the option first and explain after it
(`K. green_drawer\\n\\nExplanation: ...`); others reason first, naming every container
or option on the way, and conclude last (`... So the answer is O. green_bathtub.`). A
reader that takes the first option named reads the second shape wrongly, and one that
takes the last reads the first shape wrongly, so the reply is read by levels, the first
level that names an option deciding:

1. **text**: the whole reply is one option's text (`green_drawer`, `green drawer`).
2. **opening**: the reply opens with an option: `K`, `K.`, `K)`, `(K)`, `[K]`, `[[K]]`,
   `**K**`, `"K"`, `K. green_drawer`, or an answer label first (`Answer: K`,
   `The answer is K ...`); a first line of letters alone (`K or L`) names them all.
3. **statement**: the last answer statement that names an option (`the answer is`,
   `Answer:`, `the correct answer would be`, `I would choose`): what follows it up to the
   end of its sentence (the next line when the label ends its line).
4. **conclusion**: the last concluding sentence that names an option (`So Avery would
   think it is in the blue_pantry.`, `Therefore, ...`, `Based on this, ...`).
5. **last line**: the last line that names exactly one option (when every line that
   names options names several, the last of them, ambiguous).

An option is named by its letter or by its text. A letter counts in the marked forms
`**X**`, `"X"`, `(X)`, `[X]`, `[[X]]`, `X)`, `option X`, `choice X`, `X. <its text>`,
anywhere, in either case; and, where the answer stands (a reply's opening, what follows an
answer label, the start of a line), as a letter alone (`K`, `K.`, `K:`). A capital letter
standing in running text is a word, not a letter (the "I" of "I think", the "A" of "A
lot"), and a lower-case one is one only in the marked forms, after an answer label when
nothing but punctuation follows it, or as the whole reply, so the article "a" never is.
When a place names an option by letter, its letters decide; otherwise the options whose
text it names (whole words, any case, `_` as a space; an option whose every mention is
part of a longer option's text does not count), in the clause before any `because`,
`since`, `but`, `not` ... that explains the choice.

Several different options at the deciding level are ambiguous (`index` None, `named`
holds them); a reply that names no option, or that answers "unknown" or refuses, is
unparseable (`index` None, `named` empty). Both are wrong answers, reported as such by
the family that scores them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pytest_tom.scoring.text import normalise

UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

READ = "read"
AMBIGUOUS = "ambiguous"
UNPARSEABLE = "unparseable"


@dataclass(frozen=True)
class ChoiceReading:
    """The option a reply picks (`index`, 0-based), the options named at the level that
    decided (`named`), that level (`rule`) and the words that decided (`where`)."""

    index: int | None
    named: tuple[int, ...]
    rule: str
    where: str = ""

    @property
    def status(self) -> str:
        """`read` (one option), `ambiguous` (several) or `unparseable` (none)."""
        if self.index is not None:
            return READ
        return AMBIGUOUS if len(self.named) > 1 else UNPARSEABLE

    @property
    def ambiguous(self) -> bool:
        return len(self.named) > 1

    @property
    def unparseable(self) -> bool:
        return not self.named


# -- the places of a reply -----------------------------------------------------------------
_ROLE = re.compile(r"^\s*(?:#+\s*)?(?:assistant|response|output)\s*:[ \t]*", re.IGNORECASE)
_EDGE = "*#>`\"“”'‘’_~ \t-•"
_LABEL = (r"(?:(?:my|the|final|correct|right|best|most\s+likely|likely)\s+)*"
          r"(?:answer|choice|option)(?:\s+(?:to\s+(?:the|this)\s+question|choice|option))?"
          r"(?:\s+(?:is|would\s+be|should\s+be|will\s+be|must\s+be|seems\s+to\s+be|"
          r"appears\s+to\s+be)\b(?:\s+(?:likely|probably|clearly|definitely|then|therefore|thus|"
          r"most\s+likely|most\s+probably))?|\s*[:=])(?:\s*:)?")
_STATEMENT = re.compile(
    rf"(?<![\w-])(?:{_LABEL}|I\s+(?:would|will|'d)?\s*(?:choose|pick|select|go\s+with)\b)",
    re.IGNORECASE)
_CONCLUSION = re.compile(
    r"^\W*(?:\d+[.)]\s*)?(?:so|thus|hence|therefore|consequently|in\s+conclusion|"
    r"in\s+summary|to\s+(?:summari[sz]e|conclude|sum\s+up)|overall|finally|ultimately|"
    r"based\s+on\s+(?:this|that|these|the\s+above|all\s+(?:of\s+)?this|the\s+story|"
    r"the\s+information|the\s+assumptions|the\s+given)|given\s+(?:this|that|these|the\s+above))\b",
    re.IGNORECASE)
# a sentence ends at a stop and a space, but not at a letter's stop ("K. green_drawer")
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b[A-Za-z]\.)\s+|\n+")
# what explains or contrasts an answer rather than giving it
_CLAUSE_END = re.compile(
    r"[;(]|,\s+(?:and|but|since|because|as|while|whereas|although|though|not|which|who|"
    r"where|so|then|even)\b|\s(?:because|since|but|not|rather\s+than|instead\s+of|while|"
    r"whereas|although|though|even\s+though|as\s+(?:she|he|they|it|that|this)|due\s+to|"
    r"after|before|when|from|unlike)\b", re.IGNORECASE)
_REFUSAL = re.compile(
    r"^\W*(?:unknown|not\s+known|undetermined|indeterminate|unclear|none\b|n/?a\b|"
    r"i\s+(?:do\s+not|don't|cannot|can't|can\s+not|am\s+unable\s+to|am\s+not\s+able\s+to)\s+"
    r"(?:know|tell|say|determine|answer|be\s+sure)|(?:it\s+)?(?:is\s+)?(?:impossible|not\s+"
    r"possible)\s+to|(?:it\s+)?cannot\s+be\s+(?:determined|known|answered|said)|"
    r"there\s+is\s+(?:no|not\s+enough)|not\s+enough\s+information|insufficient|"
    r"i'?m\s+sorry|sorry|as\s+an\s+ai)", re.IGNORECASE)


def read_choice(reply: str, options: Sequence[str], letters: str | None = None) -> ChoiceReading:
    """The option `reply` picks among `options`, lettered `letters` (A, B, C ... by
    default; `"ab"` and `"ABCD"` alike: either case is read)."""
    labels = _labels(letters, len(options))
    opts = tuple(str(o) for o in options)
    text = _ROLE.sub("", reply.replace("\r\n", "\n"), count=1).strip()
    if not text:
        return ChoiceReading(None, (), "empty")
    lines = [ln for ln in text.split("\n") if ln.strip(_EDGE)]
    if not lines:
        return ChoiceReading(None, (), "none")
    if _REFUSAL.match(lines[0].strip(_EDGE)):
        return ChoiceReading(None, (), "refusal", lines[0].strip())
    opening = _opening(lines, opts, labels)
    if opening is not None:
        rule = "text" if len(lines) == 1 and not (_alone(opening[1], labels) or
                                                  _leading(opening[1], opts, labels)) else "opening"
        return _done(opening[0], rule, opening[1])
    for rule, places in (("statement", _statements(text)), ("conclusion", _conclusions(text))):
        for place in reversed(places):
            if rule == "statement" and _REFUSAL.match(place):
                return ChoiceReading(None, (), "refusal", place)
            named = _at_answer(place, opts, labels) or _clause_texts(place, opts)
            if named:
                return _done(named, rule, place)
    several: tuple[set[int], str] | None = None
    for line in reversed(lines):
        named = _in_place(line, opts, labels)
        if len(named) == 1:
            return _done(named, "last line", line.strip())
        if named and several is None:
            several = (named, line.strip())
    if several is not None:
        return _done(several[0], "last line", several[1])
    return ChoiceReading(None, (), "none")


def _done(named: set[int], rule: str, where: str) -> ChoiceReading:
    ordered = tuple(sorted(named))
    return ChoiceReading(ordered[0] if len(ordered) == 1 else None, ordered, rule, where)


def _labels(letters: str | None, n: int) -> str:
    labels = (letters or UPPER[:n]).upper()
    if len(labels) < n or len(set(labels)) != len(labels) or not labels.isalpha():
        raise ValueError(f"read_choice: {n} options need {n} distinct letters, got {letters!r}")
    return labels[:n]


# -- the levels -----------------------------------------------------------------------------
def _opening(lines: list[str], opts: tuple[str, ...], labels: str) -> tuple[set[int], str] | None:
    """The options the reply opens with, and its opening line; None when it opens otherwise."""
    first = lines[0].strip(_EDGE)
    named = _alone(first, labels) or _leading(first, opts, labels)
    if named:
        return named, first
    texts = _texts(first, opts)
    if texts and _is_only(first.rstrip(".!:"), [opts[i] for i in texts]):
        return texts, first
    return None


def _statements(text: str) -> list[str]:
    """What follows each answer label up to its sentence's end (the next line when the label
    ends its line, or its sentence ends with a colon), in reply order."""
    places = []
    for m in _STATEMENT.finditer(text):
        rest = text[m.end():]
        line_end = rest.find("\n")
        head = (rest if line_end < 0 else rest[:line_end]).strip(_EDGE + ":")
        if not head:
            rest = rest.lstrip(" \t\n")
        rest = rest.lstrip(" \t:*")
        cut = _SENTENCE_END.search(rest)
        place = rest[:cut.start()] if cut else rest
        places.append(_after_colon(place, rest[cut.end():] if cut else ""))
    return places


def _conclusions(text: str) -> list[str]:
    """The sentences that conclude (`So ...`, `Therefore ...`, `Based on this ...`); one
    that ends with a colon stands for the line after it (`So Avery thinks it is in:\n\nO.
    green_bathtub`)."""
    places, start = [], 0
    for cut in [*_SENTENCE_END.finditer(text), None]:
        sentence = text[start:cut.start() if cut else len(text)]
        if _CONCLUSION.match(sentence):
            places.append(_after_colon(sentence, text[cut.end():] if cut else ""))
        if cut:
            start = cut.end()
    return places


def _after_colon(place: str, after: str) -> str:
    """`place`, or the first line of `after` when `place` ends with a colon."""
    if not place.rstrip(_EDGE).endswith(":"):
        return place
    following = [ln for ln in after.split("\n") if ln.strip(_EDGE)]
    return following[0] if following else place


def _at_answer(place: str, opts: tuple[str, ...], labels: str) -> set[int]:
    """Options named by letter where an answer stands: at the start of `place` (a letter
    alone, in either case when nothing but punctuation follows it) or in a marked form."""
    start = place.strip(_EDGE + ":")
    found = _alone(start, labels) or _leading(start, opts, labels, strict=False)
    if not found:
        m = re.match(rf"[(\[]?([{labels}{labels.lower()}])[)\]]?(?:[.,:;!]|\s*$)", start)
        if m and not _is_word_a(start, m):
            found = {labels.index(m.group(1).upper())}
    return found or _marked(_clause(place), opts, labels) or _marked(place, opts, labels)


def _clause(place: str) -> str:
    m = _CLAUSE_END.search(place)
    return place[:m.start()] if m else place


def _clause_texts(place: str, opts: tuple[str, ...]) -> set[int]:
    """The options whose text the first clause of `place` names."""
    return _texts(_clause(place), opts)


def _in_place(line: str, opts: tuple[str, ...], labels: str) -> set[int]:
    """The options a line names: by letter where they stand at its start or are marked,
    else by text."""
    start = line.strip(_EDGE)
    return (_alone(start, labels) or _leading(start, opts, labels)
            or _marked(line, opts, labels) or _texts(line, opts))


# -- letters --------------------------------------------------------------------------------
def _alone(place: str, labels: str) -> set[int]:
    """A place that is nothing but option letters (`K`, `(k)`, `K or L`, `H, L`)."""
    tokens = re.findall(r"[A-Za-z]+", place)
    if not tokens or re.search(r"[0-9]", place):
        return set()
    if len(tokens) == 1:
        t = tokens[0]
        ok = len(t) == 1 and t.upper() in labels and re.fullmatch(r"\W*\w\W*", place)
        return {labels.index(t.upper())} if ok else set()
    picked = [t for t in tokens if t.lower() not in ("or", "and")]
    if len(picked) >= 2 and all(len(t) == 1 and t.upper() in labels for t in picked):
        return {labels.index(t.upper()) for t in picked}
    return set()


def _leading(place: str, opts: tuple[str, ...], labels: str, strict: bool = True) -> set[int]:
    """A place that starts with a letter and a stop, bracket or colon (`K. green_drawer`,
    `(K) ...`, `K: ...`). A lower-case letter, and the capital A and I (words as often as
    letters), count only when what follows is the option's text or nothing."""
    m = re.match(rf"[(\[]*([{labels}{labels.lower()}])\s*(?:[.:)\]]|\*\*|\s[-–—]\s)", place)
    if not m:
        return set()
    letter = m.group(1)
    index = labels.index(letter.upper())
    rest = place[m.end():].strip(_EDGE + ".:)]")
    said = f"{normalise(rest)} "
    texts = [i for i, o in enumerate(opts) if normalise(o) and said.startswith(f"{normalise(o)} ")]
    if texts:  # `K. green_drawer`; `E. red_box` where E is another option names both
        longest = max(texts, key=lambda i: len(normalise(opts[i])))
        return {index, longest}
    if not rest or re.match(r"[(\[]*\w[)\]]", place):
        return {index}
    if letter.islower() or strict and letter in "AI":
        return set()
    return {index}


@lru_cache(maxsize=256)
def _marked_pattern(labels: str) -> re.Pattern[str]:
    cls = f"[{labels}{labels.lower()}]"
    return re.compile(
        rf"\[\[\s*({cls})\s*\]\]"
        rf"|(?<!\[)\[\s*({cls})\s*\](?!\])"
        rf"|(?<![\w])\(\s*({cls})\s*\)"
        rf"|\*\*\s*[(\[]?({cls})[)\]]?\s*(?:[.:)]\s*[^*\n]*)?\*\*"
        rf"|[\"“]\s*({cls})\s*\.?[\"”]"
        rf"|(?<![\w*])\*\s*({cls})\s*\*(?![\w*])"
        rf"|(?i:\b(?:option|choice|letter)\s*[(\[*]?)({cls})(?![\w'])"
        rf"|(?<![\w(\[])([{labels}])\)")


def _marked(place: str, opts: tuple[str, ...], labels: str) -> set[int]:
    """Options named by letter in a marked form anywhere in `place`."""
    found = {labels.index(next(g for g in m.groups() if g).upper())
             for m in _marked_pattern(labels).finditer(place)}
    for i, option in enumerate(opts):
        pattern = _text_pattern(option)
        if pattern and re.search(rf"(?<![\w']){'[' + labels[i] + labels[i].lower() + ']'}"
                                 rf"\s*[.:)]\s*(?i:{pattern})(?!\w)", place):
            found.add(i)
    return found


def _is_word_a(place: str, m: re.Match[str]) -> bool:
    """True when a lower-case letter at the start of `place` reads as a word ("a red box",
    "a lot"): followed by a space and a word rather than punctuation or nothing."""
    return m.group(1).islower() and bool(re.match(r"\s+\w", place[m.end(1):]))


# -- texts ----------------------------------------------------------------------------------
def _text_pattern(option: str) -> str:
    words = [re.escape(w) for w in re.split(r"[\s_]+", option.strip()) if w]
    return r"[\s_]+".join(words)


def _texts(place: str, opts: tuple[str, ...]) -> set[int]:
    """The options whose text `place` names as whole words (any case, `_` as a space); an
    option whose every mention is part of a longer named option's text does not count."""
    said = f" {normalise(place)} "
    hits = {i for i, o in enumerate(opts) if normalise(o) and f" {normalise(o)} " in said}
    for i in list(hits):
        short = f" {normalise(opts[i])} "
        for j in hits:
            long = normalise(opts[j])
            if i != j and short in f" {long} " and short not in said.replace(long, " "):
                hits.discard(i)
                break
    return hits


def _is_only(place: str, texts: list[str]) -> bool:
    """True when `place` is nothing but one of `texts` (normalised)."""
    said = normalise(place)
    return bool(said) and any(said == normalise(t) for t in texts)
