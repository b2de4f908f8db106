"""Every file is read through one package, ``triage.ingest.read``, and only through its face.

Outside the package no module parses CSV, TSV, JSON Lines, Parquet or spreadsheets itself
(no ``csv.reader``, no Arrow reader, no calamine), and none imports the package's modules
behind its ``__init__`` (tests may, to reach a constant or swap a function).
"""

from __future__ import annotations

import re
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "triage.ingest.read"
PARSERS = re.compile(r"\bcsv\.(reader|DictReader)\(|"
                     r"\b(pacsv|pajson|pd|pandas)\.(read_csv|open_csv|read_json|open_json)\(|"
                     r"\bpq\.read_table\(|ParquetFile\(|CalamineWorkbook\b|json\.loads\(line\)")


def _sources() -> list[Path]:
    return sorted(p for d in ("triage", "ui") for p in (ROOT / d).rglob("*.py"))


def test_only_the_reading_package_parses_files():
    inside = ROOT / "triage" / "ingest" / "read"
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
             for p in _sources() if inside not in p.parents
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
             if PARSERS.search(line)]
    assert found == []


def test_the_reading_package_is_used_through_its_face():
    graph = grimp.build_graph("triage", "ui", cache_dir=None,
                              exclude_type_checking_imports=False)
    inner = {m for m in graph.modules if m.startswith(PACKAGE + ".")}
    assert inner, "triage.ingest.read has no modules"
    reaching = sorted(f"{importer} -> {module}" for module in inner
                      for importer in graph.find_modules_that_directly_import(module)
                      if importer != PACKAGE and not importer.startswith(PACKAGE + "."))
    assert reaching == []


def test_the_face_names_what_it_exports():
    import triage.ingest.read as read

    missing = [name for name in read.__all__ if not hasattr(read, name)]
    assert missing == []
    assert {"read_table", "open_batches", "preview", "inferred", "json_lines",
            "import_checked", "may_stream"} <= set(read.__all__)


def test_the_preview_reads_a_text_longer_than_the_csv_modules_default_limit(tmp_path):
    """The preview parses through the careful parser, which lifts the csv module's 128 KiB
    field limit itself (it no longer depends on a careful read having run before)."""
    import csv

    from triage.ingest.read import preview

    long_text = "word " * 40_000  # 200 kB in one field
    path = tmp_path / "long.csv"
    path.write_text(f'key,text\nk1,"{long_text}"\nk2,short\n', encoding="utf-8")
    before = csv.field_size_limit(128 * 1024)  # the default of a fresh process
    try:
        header, rows = preview(path)
    finally:
        csv.field_size_limit(before)
    assert header == ["key", "text"]
    assert rows == [["k1", long_text], ["k2", "short"]]
