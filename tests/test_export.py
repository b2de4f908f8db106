"""write_table: atomic replace, spreadsheet formula guard, unicode round trips."""

from __future__ import annotations

import csv
import json
import math

import pytest

from triage.ingest.read import read_table
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


AWKWARD_TEXT = ["plain", "=1+1", "-0.5", "-cmd", "a,b", 'say "hi"', "line\nbreak", "\rx", "\tx",
                "", "-", "+3", "@x", "é=", "-١٢", '=a,b"c', "x\r\ny", None, " lead", "日本語"]
AWKWARD_FLOATS = [0.0, -0.0, 1.0, 3.0, 1e15, 1e16, 123456789012345.6, 1e-4, 9.999e-5, 1e-5,
                  5e-324, 1.7976931348623157e308, math.nan, 0.1, 1 / 3, -2.5, 1e14, 0.8597023]


def test_arrow_csv_writes_what_write_table_writes(tmp_path):
    import numpy as np

    from triage.base.arrow import strings
    from triage.ingest.arrowcsv import end_lines, float_cells, int_cells, text_cells, write_csv

    n = len(AWKWARD_TEXT)
    floats = (AWKWARD_FLOATS * 2)[:n]
    ints = list(range(-3, n - 3))
    rows = [{"text": t, "score": f, "n": i, "flag": i % 2 == 0, "odd": None if i % 3 else t}
            for t, f, i in zip(AWKWARD_TEXT, floats, ints)]
    names = ["text", "score", "n", "flag", "odd"]
    # The reference: Python's csv module over the guarded cells, as Triage once wrote them.
    with open(tmp_path / "csv-module.csv", "w", encoding="utf-8", newline="") as handle:
        reference = csv.writer(handle)
        reference.writerow(names)
        reference.writerows([[guard_cell(r[n]) for n in names] for r in rows])
    expected = (tmp_path / "csv-module.csv").read_bytes()
    assert write_table(tmp_path / "rows.csv", names, rows) == n
    assert (tmp_path / "rows.csv").read_bytes() == expected
    cells = [text_cells(strings(AWKWARD_TEXT)), float_cells(np.array(floats)),
             int_cells(np.array(ints)), text_cells(strings([str(r["flag"]) for r in rows])),
             end_lines(text_cells(strings([r["odd"] for r in rows])))]
    assert write_csv(tmp_path / "fast.csv", names, [cells]) == n
    assert (tmp_path / "fast.csv").read_bytes() == expected


def test_float_cells_are_python_reprs():
    import numpy as np

    from triage.ingest.arrowcsv import float_cells

    rng = np.random.default_rng(1)
    values = np.concatenate([rng.random(2000), rng.random(2000) * 10.0 ** rng.integers(-320, 308,
                                                                                      2000),
                             np.round(rng.random(500) * 1e6), AWKWARD_FLOATS])
    expected = [repr(v) if math.isfinite(v) else "" for v in values.tolist()]
    assert float_cells(values).to_pylist() == expected


def test_written_file_mode_follows_the_umask(tmp_path):
    import os

    old = os.umask(0o027)
    try:
        write_table(tmp_path / "out.csv", ["a"], [(1,)])
    finally:
        os.umask(old)
    assert (tmp_path / "out.csv").stat().st_mode & 0o777 == 0o640
