"""The JSON report's text: indented, each item record on one line (written by the C
encoder), and the same data as plain `json.dumps`."""

from __future__ import annotations

import json

from pytest_tom.report.json_report import report_text


def test_report_text_is_the_same_data_with_one_line_per_item() -> None:
    items = [{"item": {"id": f"s::q{i}"}, "responses": ["Yes.\nNo \u00e9"], "n": i}
             for i in range(3)]
    data = {"format": "pytest-tom-report/1", "suites": {"s": {"metrics": {"turn": 0.5}}},
            "items": items}
    text = report_text(data)
    assert json.loads(text) == data
    lines = text.splitlines()
    assert lines[:2] == ["{", ' "format": "pytest-tom-report/1",']
    for i in range(3):  # one line each, in order
        assert json.loads(lines[-5 + i].rstrip(",")) == items[i]
    assert lines[-2:] == [" ]", "}"] and text.endswith("}\n") and "\u00e9" in text


def test_report_text_of_other_shapes_is_plain_indented_json() -> None:
    for data in ({"items": []}, {"items": [{"a": 1}]}, {"items": [1], "after": 2}, {"a": 1}):
        text = report_text(data)
        assert json.loads(text) == data
        assert text == json.dumps(data, indent=1, ensure_ascii=False) + "\n"
