"""Parquet and spreadsheets in, Parquet out: types kept, cells as the spreadsheet shows
them, errors naming the row, and round trips through a project."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

import pytest

from tests.qt_helpers import read_source
from triage.base.errors import InputError, TriageError
from triage.ingest.importer import ColumnMapping, import_candidates
from triage.ingest.read import read_table
from triage.project.export import export_project
from triage.store.connection import create_database

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
openpyxl = pytest.importorskip("openpyxl")

MAPPING = ColumnMapping(text="text", key="id", scores=(("m", "score"),), gold="gold")


def candidates(db_path: Path) -> list[tuple]:
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("SELECT key, text, meta, gold FROM candidates ORDER BY id").fetchall()
    finally:
        conn.close()


def workbook(path: Path, rows: list[list], title: str = "pool") -> Path:
    """An .xlsx file as a spreadsheet program saves it (openpyxl writes the same XML)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    for row in rows:
        sheet.append(row)
    book.create_sheet("notes").append(["not", "this", "one"])
    book.save(path)
    return path


def test_xlsx_cells_read_as_the_spreadsheet_shows_them(tmp_path):
    path = workbook(tmp_path / "pool.xlsx", [
        ["id", "text", "score", "gold", "when", "n", "flag"],
        [7, 'she said "hi", twice', 0.5, "pos", dt.date(2024, 1, 5), 3, True],
        ["k2", "line one\nline two", 1e-7, None, dt.datetime(2024, 1, 5, 13, 45), 3.25, False],
    ])
    db = create_database(tmp_path / "p.triage")
    result = import_candidates(db, path, MAPPING)
    db.close()
    assert result.rows_imported == 2
    rows = candidates(tmp_path / "p.triage")
    assert [r[:2] for r in rows] == [("7", 'she said "hi", twice'), ("k2", "line one\nline two")]
    assert [json.loads(r[2]) for r in rows] == [
        {"when": "2024-01-05", "n": "3", "flag": "TRUE"},
        {"when": "2024-01-05 13:45:00", "n": "3.25", "flag": "FALSE"}]
    assert [r[3] for r in rows] == ["pos", None]


def test_a_chosen_sheet_and_a_missing_one(tmp_path):
    path = workbook(tmp_path / "book.xlsx", [["id", "text", "score"], ["a", "x", 0.1]])
    table = read_table(path, numeric=["score"], sheet="pool")
    assert table.column("id") == ["a"] and table.numbers("score").tolist() == [0.1]
    assert read_table(path, sheet="notes").columns == ["not", "this", "one"]
    with pytest.raises(TriageError, match="no sheet 'other'; the workbook has 'pool', 'notes'"):
        read_table(path, sheet="other")


def test_spreadsheet_errors_name_the_row_the_program_shows(tmp_path):
    path = workbook(tmp_path / "bad.xlsx", [
        ["id", "text", "score"], ["a", "x", 0.5], [], ["b", "y", "high"], ["c", " ", 0.1]])
    with pytest.raises(InputError) as info:
        read_table(path, numeric=["score"], nonempty=["text"])
    message = str(info.value)
    assert "bad.xlsx:4: column score: 'high' is not a number" in message
    assert "bad.xlsx:5: column text: empty value" in message


def test_parquet_keeps_types_and_streams_like_the_careful_path(tmp_path, monkeypatch):
    import triage.ingest.importer as importer

    table = pa.table({"id": pa.array([3, 1, 2]), "text": ["c, \"q\"", "a\nb", "b"],
                      "score": pa.array([0.25, 0.5, 0.5], pa.float32()),
                      "gold": ["pos", None, "neg"], "n": pa.array([1.5, 2.0, None])})
    path = tmp_path / "pool.parquet"
    pq.write_table(table, path)
    db = create_database(tmp_path / "a.triage")
    import_candidates(db, path, MAPPING)
    db.close()
    monkeypatch.setattr(importer, "_stream", lambda *a, **k: None)
    db = create_database(tmp_path / "b.triage")
    import_candidates(db, path, MAPPING)
    db.close()
    streamed, careful = candidates(tmp_path / "a.triage"), candidates(tmp_path / "b.triage")
    assert careful == [("3", 'c, "q"', '{"n": "1.5"}', "pos"), ("1", "a\nb", '{"n": "2"}', None),
                       ("2", "b", '{"n": ""}', "neg")]
    assert streamed == careful


def test_parquet_errors_name_the_row(tmp_path):
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"id": ["a", "b", "c"], "text": ["x", "y", "z"],
                             "score": pa.array([0.5, None, float("inf")])}), path)
    with pytest.raises(InputError) as info:
        read_table(path, numeric=["score"])
    assert "bad.parquet:2: column score: empty value where a number is required" in str(info.value)
    assert "bad.parquet:3: column score: 'inf' is not a finite number" in str(info.value)
    (tmp_path / "not.parquet").write_text("key,text\n", encoding="utf-8")
    with pytest.raises(InputError, match="cannot be read as Parquet"):
        read_table(tmp_path / "not.parquet")


def test_parquet_round_trip_through_export(tmp_path):
    """Export a project to Parquet, make a new project of that file: same candidates,
    scores still numbers."""
    src = tmp_path / "pool.csv"
    src.write_text('id,text,score,gold,src\nk1,"a, b",0.75,pos,web\nk2,"say ""x""",0.25,,'
                   'news\nk3,c,0.5,neg,web\n', encoding="utf-8")
    db = create_database(tmp_path / "a.triage")
    import_candidates(db, src, MAPPING)
    db.close()
    out = tmp_path / "out.parquet"
    assert export_project(tmp_path / "a.triage", out) == 3
    back = pq.read_table(out)
    assert back.column_names[:5] == ["key", "text", "rank", "decile", "score_m"]
    assert back.schema.field("score_m").type == pa.float64()
    assert back.column("key").to_pylist() == ["k1", "k3", "k2"]
    assert back.column("rank").to_pylist() == [1, 2, 3]
    assert back.column("gold").to_pylist() == ["pos", "neg", None]
    assert back.column("adjudicated").to_pylist() == [False] * 3
    db = create_database(tmp_path / "b.triage")
    import_candidates(db, out, ColumnMapping(text="text", key="key", scores=(("m", "score_m"),),
                                             gold="gold", metadata=()))
    db.close()
    again = {k: (t, g) for k, t, _m, g in candidates(tmp_path / "b.triage")}
    assert again == {k: (t, g) for k, t, _m, g in candidates(tmp_path / "a.triage")}


def test_a_clean_parquet_file_takes_the_stream(tmp_path, monkeypatch):
    import triage.ingest.poolstream as poolstream

    used = []
    original = poolstream.import_stream

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        used.append(True)
        return result

    monkeypatch.setattr(poolstream, "import_stream", spy)
    path = tmp_path / "pool.parquet"
    pq.write_table(pa.table({"id": pa.array([10, 20]), "text": ["a", "b"],
                             "score": pa.array([1, 0], pa.int8()), "gold": ["pos", "neg"],
                             "when": pa.array([dt.date(2024, 1, 5), dt.date(2024, 2, 1)])}),
                   path)
    db = create_database(tmp_path / "p.triage")
    import_candidates(db, path, MAPPING)
    db.close()
    assert used
    assert candidates(tmp_path / "p.triage") == [("10", "a", '{"when": "2024-01-05"}', "pos"),
                                                 ("20", "b", '{"when": "2024-02-01"}', "neg")]


def test_the_dialog_offers_a_workbooks_sheets(qtbot, tmp_path):
    from ui.dialogs.new_project import NewProjectDialog

    path = workbook(tmp_path / "book.xlsx", [["id", "text", "score"], ["a", "x y", 0.5],
                                             ["b", "z", 0.25]])
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    assert read_source(qtbot, dialog, path)
    assert not dialog.sheet_combo.isHidden()
    assert [dialog.sheet_combo.itemText(i) for i in range(dialog.sheet_combo.count())] == [
        "pool", "notes"]
    assert (dialog.key_combo.currentText(), dialog.text_combo.currentText()) == ("id", "text")
    assert dialog.mapping().scores == (("score", "score"),) and dialog.mapping().sheet == "pool"
    dialog.sheet_combo.setCurrentIndex(1)
    dialog.sheet_combo.activated.emit(1)
    qtbot.waitUntil(lambda: dialog.reader is None, timeout=30000)   # read in the background
    assert dialog.preview.horizontalHeaderItem(0).text() == "not"
    assert dialog.mapping().sheet == "notes"
