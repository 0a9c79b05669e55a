"""Text for a terminal: what a suite file or a server sends must not drive the terminal.

An ANSI escape in a question, an answer choice or an HTTP error message would
otherwise clear the screen, move the cursor or recolour the rest of the output
when a failure is shown.
"""

from __future__ import annotations

import re

_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def escape_controls(text: str) -> str:
    """`text` with every control character other than newline and tab shown as `\\x1b`."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
