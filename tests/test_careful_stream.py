"""The careful path streams a big file: the same sentences and the same pool as read whole.

A file over ``rule.WHOLE_BYTES`` that the fast path refuses is checked a chunk of
records at a time; here both limits are made tiny so a small file takes that way, in many
chunks, and the result is compared with the whole-file careful reader's.
"""

from __future__ import annotations

import csv
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.helpers import SCHEME
from triage.base.errors import InputError
from triage.ingest.importer import ColumnMapping
from triage.ingest.read import chunked, rule
from triage.project import create_project
from triage.store.settings import Settings

MAPPING = ColumnMapping(text="text", key="key", scores=(("m", "m"),), gold="gold")


def bad_pool(path: Path) -> Path:
    """300 rows, quoted text over two lines, and one of each problem the checks name."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["key", "text", "m", "gold", "src"])
        for i in range(300):
            row = [f"k{i}", f"text {i}, with a comma" + ("\nand a second line" if i % 7 == 0
                                                          else ""),
                   f"{1 - i / 300:.6f}", "idiom" if i % 3 == 0 else "literal", "web"]
            if i == 40:
                row[2] = "high"                 # not a number
            if i == 90:
                row[1] = "  "                   # empty text
            if i == 150:
                row[0] = "k3"                   # a key seen before
            if i == 200:
                row = row[:3]                   # too few fields
            out.writerow(row)
    return path


def streamed(monkeypatch) -> None:
    monkeypatch.setattr(rule, "WHOLE_BYTES", 0)
    monkeypatch.setattr(chunked, "CHUNK_BYTES", 700)


def pool_of(path: Path) -> list[tuple]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT key, text, gold, meta FROM candidates ORDER BY id"
                            ).fetchall() + conn.execute("SELECT * FROM rankings").fetchall()


def imported(folder: Path, src: Path):
    folder.mkdir()
    project = create_project(folder / "p.triage", Settings(labels=SCHEME,
                                                           positive_labels=("idiom",)))
    try:
        return project.import_file(src, MAPPING, skip_invalid=True)
    finally:
        project.close()


def test_streamed_checks_name_the_same_lines_as_the_whole_file_reader(tmp_path, monkeypatch):
    src = bad_pool(tmp_path / "pool.csv")
    settings = Settings(labels=SCHEME, positive_labels=("idiom",))
    with pytest.raises(InputError) as whole:
        create_project(tmp_path / "a.triage", settings).import_file(src, MAPPING)
    streamed(monkeypatch)
    with pytest.raises(InputError) as parts:
        create_project(tmp_path / "b.triage", settings).import_file(src, MAPPING)
    # The same sentences; read whole, a repeated key is only looked for once the rest is
    # clean, while streaming names it at once.
    said = str(whole.value).splitlines()[1:]
    assert str(parts.value).splitlines()[1:] == sorted(
        said + [f"{src}:174: column key: duplicate value 'k3' (first on line 6)"],
        key=lambda line: int(line.split(":")[1]))
    assert str(parts.value).startswith("4 problems found; nothing was imported")
    text = str(parts.value)
    assert "'high' is not a number" in text and "empty value" in text
    assert "duplicate value 'k3'" in text and "expected 5 fields, found 3" in text
    assert not list(tmp_path.glob(".pool.*"))          # no checked copy left behind


def test_skip_invalid_streamed_imports_the_same_pool_and_names_every_rejected_line(
        tmp_path, monkeypatch):
    src = bad_pool(tmp_path / "pool.csv")
    whole = imported(tmp_path / "a", src)
    rejects = (tmp_path / "pool.rejected.csv").read_bytes()
    (tmp_path / "pool.rejected.csv").unlink()
    streamed(monkeypatch)
    parts = imported(tmp_path / "b", src)
    assert (parts.rows_imported, parts.rows_rejected, parts.tied_items) == (
        whole.rows_imported, whole.rows_rejected, whole.tied_items)
    assert (parts.rows_imported, parts.rows_rejected) == (296, 4)
    assert pool_of(tmp_path / "b" / "p.triage") == pool_of(tmp_path / "a" / "p.triage")
    assert (tmp_path / "pool.rejected.csv").read_bytes() == rejects
    text = (tmp_path / "pool.rejected.csv").read_text(encoding="utf-8")
    lines = [r["line"] for r in csv.DictReader(text.splitlines())]
    assert len(lines) == 4 and lines == sorted(lines, key=int)
    assert not list(tmp_path.glob(".pool.*"))
