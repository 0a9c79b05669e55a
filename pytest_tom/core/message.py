"""One chat message as every layer passes it: `{"role": ..., "content": ...}`.

Declared once here, below the layers that build messages (families' prompts), send them
(backends) and keep them (items' transcripts, the cache).
"""

from __future__ import annotations

Message = dict[str, str]
