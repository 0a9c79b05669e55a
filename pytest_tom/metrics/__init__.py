"""Aggregate metrics over item records (plain dicts): no pytest, no family internals.

A record is what one item leaves on its report: `{"item": {...}, "outcome":
{...}, "responses": [...], ...}` (see `pytest_tom.plugin.items.make_record`).
"""
