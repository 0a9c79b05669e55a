"""Text normalisation and whole-word matching shared by the scoring rules."""

from __future__ import annotations

import re
import string

_PUNCT = re.compile(f"[{re.escape(string.punctuation)}‘’“”…–—]")
_SPACES = re.compile(r"\s+")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalise(text: str, drop_articles: bool = True) -> str:
    """Lower-case, punctuation to spaces, articles dropped as whole words, spaces collapsed."""
    t = _PUNCT.sub(" ", str(text).lower())
    if drop_articles:
        t = _ARTICLES.sub(" ", t)
    return _SPACES.sub(" ", t).strip()


def word_pattern(phrase: str) -> re.Pattern[str]:
    """A case-insensitive pattern for `phrase` as whole words (inner spaces flexible)."""
    words = [re.escape(w) for w in str(phrase).split()]
    return re.compile(r"(?<![\w])" + r"\s+".join(words) + r"(?![\w])", re.IGNORECASE)


def has_words(text: str, phrase: str) -> bool:
    """True when `phrase` occurs in `text` as whole words, ignoring case."""
    if not str(phrase).strip():
        return False
    return word_pattern(phrase).search(text) is not None


def contains_normalised(answer: str, phrase: str) -> bool:
    """Whole-word containment after normalising both sides (articles, punctuation, case)."""
    a, p = normalise(answer), normalise(phrase)
    if not p:
        return False
    return f" {p} " in f" {a} "


def after_last(text: str, markers: tuple[str, ...]) -> str:
    """The text after the last occurrence of any marker (case-insensitive), else the text."""
    low = text.lower()
    best = -1
    best_len = 0
    for m in markers:
        i = low.rfind(m.lower())
        if i > best:
            best, best_len = i, len(m)
    return text[best + best_len:] if best >= 0 else text
