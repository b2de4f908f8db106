"""write_table: atomic replace, spreadsheet formula guard, unicode round trips."""

from __future__ import annotations

import csv
import json
import math

import pytest

from triage.ingest.reader import read_table
from triage.ingest.writer import guard_cell, write_table


@pytest.mark.parametrize("value, expected", [
    ("=1+1", "'=1+1"), ("+cmd", "'+cmd"), ("-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"),
    ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"), ("-", "'-"),
    ("-1+2", "'-1+2"),
    ("-0.5", "-0.5"), ("+3", "+3"), ("-1e-3", "-1e-3"), ("-.5", "-.5"), ("12", "12"),
    ("plain", "plain"), ("a=b", "a=b"), ("", ""),
    (None, ""), (-0.5, -0.5), (3, 3), (math.nan, ""),
])
def test_guard_cell(value, expected):
    assert guard_cell(value) == expected


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def test_csv_guarded_and_roundtrip(tmp_path):
    out = tmp_path / "out.csv"
    rows = [{"key": "a", "text": "=HYPERLINK(\"http://x\")", "score": -0.25},
            {"key": "b", "text": "naïve 日本語 \"quoted\", comma\nnewline", "score": 1.0},
            {"key": "c", "text": "-0.5", "score": None, "ignored": "x"}]
    assert write_table(out, ["key", "text", "score"], rows) == 3
    assert read_csv(out) == [["key", "text", "score"],
                             ["a", "'=HYPERLINK(\"http://x\")", "-0.25"],
                             ["b", "naïve 日本語 \"quoted\", comma\nnewline", "1.0"],
                             ["c", "-0.5", ""]]
    table = read_table(out)
    assert table.column("text")[1] == rows[1]["text"]
    assert table.lines.tolist() == [2, 3, 5]


def test_jsonl_roundtrip_unicode_and_nan(tmp_path):
    out = tmp_path / "out.jsonl"
    rows = [("a", "=1+1 日本語", math.nan, {"n": 1}), ("b", "é", 2.5, None)]
    write_table(out, ["key", "text", "score", "meta"], rows, fmt="jsonl")
    raw = out.read_bytes()
    assert "日本語".encode() in raw  # ensure_ascii=False
    lines = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
    assert lines == [{"key": "a", "text": "=1+1 日本語", "score": None, "meta": {"n": 1}},
                     {"key": "b", "text": "é", "score": 2.5, "meta": None}]


def test_failure_midway_keeps_old_file_and_leaves_no_temp(tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("old,content\n", encoding="utf-8")

    def rows():
        yield {"a": "1"}
        yield {"a": "2"}
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        write_table(out, ["a"], rows())
    assert out.read_text(encoding="utf-8") == "old,content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    with pytest.raises(RuntimeError):
        write_table(tmp_path / "new.jsonl", ["a"], rows(), fmt="jsonl")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_replaces_existing_file(tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("old\n", encoding="utf-8")
    write_table(out, ["a", "b"], [(1, 2)])
    assert read_csv(out) == [["a", "b"], ["1", "2"]]


def test_unknown_format(tmp_path):
    with pytest.raises(ValueError, match="unknown format"):
        write_table(tmp_path / "x.xml", ["a"], [], fmt="xml")
