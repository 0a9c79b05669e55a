"""families/meta_read: an item's meta read back as the text a family's expand wrote."""

import pytest

from pytest_tom.families.kit import meta_text, meta_texts


def test_meta_text_reads_text_and_default() -> None:
    meta = {"gold_letter": "b", "order": ["C", "A"], "n": 3}
    assert meta_text(meta, "gold_letter") == "b"
    assert meta_text(meta, "language", "en") == "en"
    assert meta_texts(meta, "order") == ["C", "A"]


@pytest.mark.parametrize(("call", "key"), [
    (lambda m: meta_text(m, "n"), "'n'"),
    (lambda m: meta_text(m, "missing"), "'missing'"),
    (lambda m: meta_texts(m, "gold_letter"), "'gold_letter'"),
    (lambda m: meta_texts(m, "mixed"), "'mixed'"),
])
def test_meta_read_names_the_key_it_cannot_read(call, key) -> None:
    meta = {"gold_letter": "b", "n": 3, "mixed": ["a", 1]}
    with pytest.raises(TypeError, match=key):
        call(meta)
