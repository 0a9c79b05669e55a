"""The note that the gates judged a subset of the suites, one wording for the live run
(`plugin/run_gates.py`) and for `pytest-tom gate` on a saved or merged report (from the
report's `settings.selection`)."""

from __future__ import annotations

from collections.abc import Sequence


def subset_note(ran: int, deselected: int | None, by: Sequence[str], named: bool) -> str:
    """`the gates judged a subset: 98 item(s) ran (2775 item(s) deselected by --tom-limit);
    the numbers are those of the subset, not of the whole suites`, or "" when every item of
    the suites ran. `deselected` None: the count is not known (only the options are)."""
    if not deselected and not named and not (deselected is None and by):
        return ""
    how = []
    if deselected or (deselected is None and by):
        count = f"{deselected} item(s) deselected" if deselected else "items selected"
        how.append(f"{count} by {', '.join(by) or '-k, -m, --lf, --tom-limit or --tom-shard'}")
    if named:
        how.append("items named by node id")
    return (f"the gates judged a subset: {ran} item(s) ran ({'; '.join(how)}); "
            f"the numbers are those of the subset, not of the whole suites")
