"""Exports stream in batches: a tiny batch size (many batches) writes the very same file.

The batch size adapts to the texts' length (BATCH_BYTES of text a batch); forcing it down
to a few rows makes every row boundary a batch boundary somewhere, in rank order that is
not id order, with labels, notes, text that needs quoting and empty gold and meta.
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from tests.helpers import label_top, make_project
from triage.project import export_batches
from triage.project.export import export_project
from triage.store import textbatches


@pytest.fixture
def project_path(tmp_path):
    project = make_project(tmp_path, n=120)
    label_top(project, "ada", 9)
    label_top(project, "bo", 4, value="literal")
    session = project.start_session("cy")
    item = project.next_candidate(session)
    project.record_label(session, item.candidate_id, "idiom", note='says "no", then =1+1')
    project.close()
    return tmp_path / "p.triage"


def labeled_in(path) -> int:
    """Candidates with a label, as the JSONL export (row by row, unbatched) counts them."""
    out = path.with_name("all.jsonl")
    export_project(path, out)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return sum(r["label_status"] != "unlabeled" for r in rows)


def small_batches(monkeypatch) -> list[int]:
    """Batches of 1 to 7 rows from now on; returns the list each batch's size goes into."""
    sizes: list[int] = []
    real = textbatches.text_batches

    def counted(path, batches):
        for table in real(path, batches):
            sizes.append(table.num_rows)
            yield table

    monkeypatch.setattr(export_batches, "FIRST_ROWS", 1)
    monkeypatch.setattr(export_batches, "MAX_ROWS", 7)
    monkeypatch.setattr(export_batches, "BATCH_BYTES", 64)
    monkeypatch.setattr(textbatches, "text_batches", counted)
    return sizes


@pytest.mark.parametrize("labeled_only", [False, True])
def test_csv_in_many_small_batches_is_the_same_file(project_path, tmp_path, monkeypatch,
                                                    labeled_only):
    labeled = labeled_in(project_path)
    whole = tmp_path / "whole.csv"
    rows = export_project(project_path, whole, labeled_only=labeled_only)
    assert rows == (labeled if labeled_only else 120)
    sizes = small_batches(monkeypatch)
    parts = tmp_path / "parts.csv"
    assert export_project(project_path, parts, labeled_only=labeled_only) == rows
    assert len(sizes) > (1 if labeled_only else 10) and max(sizes) <= 7 and sum(sizes) == rows
    assert parts.read_bytes() == whole.read_bytes()
    text = whole.read_bytes().decode("utf-8")
    assert '"cy: says ""no"", then =1+1"' in text          # quoted, formula guard not needed
    assert text.count("\r\n") == rows + 1


def test_parquet_in_many_small_batches_is_the_same_table(project_path, tmp_path, monkeypatch):
    labeled = labeled_in(project_path)
    whole = tmp_path / "whole.parquet"
    export_project(project_path, whole)
    sizes = small_batches(monkeypatch)
    parts = tmp_path / "parts.parquet"
    export_project(project_path, parts)
    assert len(sizes) > 10
    a, b = pq.read_table(whole), pq.read_table(parts)
    assert a.schema == b.schema and a.equals(b)
    assert pq.ParquetFile(parts).metadata.num_row_groups == len(sizes)
    assert a.column("rank").to_pylist() == list(range(1, 121))
    assert a.column("label_status").to_pylist().count("unlabeled") == 120 - labeled


def test_an_empty_selection_writes_the_header_only(tmp_path):
    project = make_project(tmp_path, n=20)
    project.close()
    out = tmp_path / "none.csv"
    assert export_project(tmp_path / "p.triage", out, labeled_only=True) == 0
    assert out.read_bytes().count(b"\n") == 1
    parquet = tmp_path / "none.parquet"
    assert export_project(tmp_path / "p.triage", parquet, labeled_only=True) == 0
    assert pq.read_table(parquet).num_rows == 0
