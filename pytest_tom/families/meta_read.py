"""Reading an item's `meta` back in the family that wrote it.

`ItemSpec.meta` holds the family's own TypedDict (FantomMeta, SceneMeta ...), typed on the
item as `Mapping[str, object]` because the item only stores it. The family's prompts, probes
and scoring read it back: these helpers narrow a value to the text or list of texts the
family's `expand` wrote, and say which key held what if it is not (an item built by hand).
"""

from __future__ import annotations

from collections.abc import Mapping


def meta_text(meta: Mapping[str, object], key: str, default: str | None = None) -> str:
    """`meta[key]` as text; `default` when the key is absent and a default is given."""
    value = meta.get(key, default)
    if not isinstance(value, str):
        raise TypeError(f"item meta {key!r} is {value!r}, not text: the family's expand "
                        "writes it (build the item with the family's expand)")
    return value


def meta_texts(meta: Mapping[str, object], key: str) -> list[str]:
    """`meta[key]` as a list of texts."""
    value = meta.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"item meta {key!r} is {value!r}, not a list of texts: the family's "
                        "expand writes it (build the item with the family's expand)")
    return [v for v in value if isinstance(v, str)]
