"""The streamed pool import (ingest.read.open_batches, ingest.poolbatch, ingest.poolstream) equals the careful path."""

from __future__ import annotations

import csv
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import triage.ingest.importer as importer
import triage.ingest.poolstream as poolstream
from triage.base.errors import InputError
from triage.ingest.importer import ColumnMapping, import_candidates
from triage.ingest.poolbatch import Pipe
from triage.store.connection import create_database

MAPPING = ColumnMapping(text="text", key="key", scores=(("m1", "s1"), ("m2", "s2")),
                        gold="gold")
HEADER = ["key", "text", "s1", "s2", "gold", "src"]


def write(path: Path, rows: list[tuple], header: list[str] | None = None,
          end: str = "\n") -> Path:
    """``rows`` as CSV, TSV or JSONL (by suffix); scores are floats."""
    header = header or HEADER
    if path.suffix == ".jsonl":
        with open(path, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(dict(zip(header, row)), ensure_ascii=False) + "\n")
        return path
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t" if path.suffix == ".tsv" else ",",
                            lineterminator=end)
        writer.writerow(header)
        writer.writerows([(k, t, repr(a), repr(b), g, *extra)
                          for k, t, a, b, g, *extra in rows])
    return path


def outcome(path: Path, db_path: Path) -> object:
    """The database's candidates, models and rankings after the import, or the error."""
    db = create_database(db_path)
    try:
        import_candidates(db, path, MAPPING)
    except InputError as error:
        return str(error)
    finally:
        db.close()
    import sqlite3

    conn = sqlite3.connect(db_path)
    try:
        return {"candidates": conn.execute("SELECT * FROM candidates ORDER BY id").fetchall(),
                "models": conn.execute("SELECT name, source_column, tied_items FROM models "
                                       "ORDER BY id").fetchall(),
                "rankings": conn.execute("SELECT * FROM rankings ORDER BY 1").fetchall()}
    finally:
        conn.close()


TEXT = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters=',"\t\r\n'),
               max_size=8)
ROW = st.tuples(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "é"]), TEXT,
                st.floats(width=32), st.sampled_from([0.5, 0.25, 1.0, 1e300]),
                st.sampled_from(["", " ", "pos", "neg"]), TEXT)
# Real texts: delimiters, quotes, line breaks (LF, CR LF, now and then a lone CR).
QUOTED = st.lists(st.one_of(st.characters(blacklist_categories=["Cs"]),
                            st.sampled_from([",", '"', "\t", "\n", "\r\n", '""', "\\"])),
                  max_size=10).map("".join)
EXTRA = st.one_of(QUOTED, st.integers(-10**6, 10**6), st.floats(width=32), st.booleans(),
                  st.none(), st.lists(st.integers(0, 3), max_size=2))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
@given(st.lists(ROW, min_size=1, max_size=8), st.sampled_from([".csv", ".tsv", ".jsonl"]))
@example([("a", "0", 0.0, 0.5, "", ""), ("b", "0", -0.0, 0.5, "", "")], ".csv")  # tied zeros
def test_streamed_import_equals_the_careful_path(monkeypatch, rows, suffix):
    streamed, careful, used = both_paths(monkeypatch, rows, suffix)
    assert streamed == careful
    if clean(rows):
        assert used, "a clean file must take the streamed path"


def clean(rows: list[tuple]) -> bool:
    """Rows the stream must take: unique keys, texts not blank, finite scores, no lone CR."""
    return (len({r[0] for r in rows}) == len(rows) and all(r[1].strip() for r in rows)
            and all(abs(r[2]) != float("inf") and r[2] == r[2] for r in rows)
            and not any("\r" in str(v).replace("\r\n", "") for r in rows for v in r))


def both_paths(monkeypatch, rows: list[tuple], suffix: str, header: list[str] | None = None,
               bom: bool = False, end: str = "\n") -> tuple[object, object, list]:
    """The project (or error) through the stream, through the careful path, and whether
    the stream imported the file."""
    used = []
    original = poolstream.import_stream

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        used.append(True)  # reached only when the stream path imported the file
        return result

    with tempfile.TemporaryDirectory() as tmp, monkeypatch.context() as patch:
        folder = Path(tmp)
        src = write(folder / f"pool{suffix}", rows, header, end)
        if bom:
            src.write_bytes(b"\xef\xbb\xbf" + src.read_bytes())
        patch.setattr(poolstream, "import_stream", spy)
        streamed = outcome(src, folder / "a.triage")
        patch.setattr(importer, "_stream", lambda *a, **k: None)
        careful = outcome(src, folder / "b.triage")
    return streamed, careful, used


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 3).flatmap(lambda extras: st.lists(
           st.tuples(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "é", "k,1",
                                      'k"2']),
                     QUOTED, st.floats(width=32), st.sampled_from([0.5, 0.25, 1.0]),
                     st.sampled_from(["", " ", "pos", "neg", "p,q"]),
                     st.tuples(*[EXTRA] * extras)),
           min_size=1, max_size=8)),
       st.sampled_from([".csv", ".tsv", ".jsonl"]), st.booleans(), st.booleans())
@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
def test_quoted_fields_and_extra_columns_stream_as_the_careful_path_reads(
        monkeypatch, rows, suffix, crlf, bom):
    """Quoted texts with delimiters, quotes and line breaks, CR LF line ends, a BOM and
    extra columns of every type: the same project (or message) on both paths."""
    width = len(rows[0][5])
    flat = [(k, t, a, b, g, *extra) for k, t, a, b, g, extra in rows]
    header = [*HEADER[:5], *(f"x{i}" for i in range(width))]
    streamed, careful, used = both_paths(monkeypatch, flat, suffix, header, bom,
                                         "\r\n" if crlf else "\n")
    assert streamed == careful
    if clean(flat) and suffix != ".jsonl":  # JSONL with booleans or lists goes careful
        assert used, "a cleanly quoted file must take the streamed path"


def test_stream_is_bounded_and_keeps_order(tmp_path, monkeypatch):
    """A queue smaller than the file: the reader waits for the writer, rows stay in order."""
    monkeypatch.setattr("triage.ingest.read.fast.READ_BLOCK", 1 << 12)
    monkeypatch.setattr("triage.ingest.poolbatch.AHEAD_BYTES", 1 << 13)
    monkeypatch.setattr("triage.ingest.poolbatch.BEHIND_BYTES", 1 << 13)
    monkeypatch.setattr(Pipe.__init__, "__defaults__", (1 << 13,))
    rows = [(f"k{i:05d}", f"text {i}", float(i % 97), 0.5, "pos" if i % 3 else "", "x")
            for i in range(5000)]
    src = write(tmp_path / "big.csv", rows)
    db = create_database(tmp_path / "p.triage")
    result = import_candidates(db, src, MAPPING)
    assert result.rows_imported == 5000
    got = db.execute("SELECT id, key, text, gold FROM candidates ORDER BY id").fetchall()
    assert got == [(i + 1, k, t, g or None) for i, (k, t, _a, _b, g, _m) in enumerate(rows)]
    db.close()


def test_a_failure_mid_stream_writes_nothing_and_reports_the_line(tmp_path, monkeypatch):
    """A bad value far down the file: the streamed rows are rolled back and the careful
    path names the line."""
    monkeypatch.setattr("triage.ingest.read.fast.READ_BLOCK", 1 << 12)
    rows = [(f"k{i}", f"text {i}", 0.5, 0.5, "", "x") for i in range(3000)]
    src = write(tmp_path / "bad.csv", rows)
    lines = src.read_text(encoding="utf-8").splitlines()
    lines[2500] = lines[2500].replace("text 2499", " ")
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = create_database(tmp_path / "p.triage")
    with pytest.raises(InputError, match=r"bad\.csv:2501: column text: empty value"):
        import_candidates(db, src, MAPPING)
    assert db.execute("SELECT count(*) FROM candidates").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM models").fetchone()[0] == 0
    db.close()


def test_a_ragged_row_past_the_first_block_is_reported_by_line(tmp_path, monkeypatch):
    """Arrow's parse error on a later block is not the user's message: the careful path
    names the line."""
    monkeypatch.setattr("triage.ingest.read.fast.READ_BLOCK", 1 << 12)
    rows = [(f"k{i}", f"text {i}", 0.5, 0.5, "", "x") for i in range(3000)]
    src = write(tmp_path / "ragged.csv", rows)
    lines = src.read_text(encoding="utf-8").splitlines()
    lines[2500] = "k2499,text"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = create_database(tmp_path / "p.triage")
    with pytest.raises(InputError, match=r"ragged\.csv:2501: expected 6 fields, found 2"):
        import_candidates(db, src, MAPPING)
    assert db.execute("SELECT count(*) FROM candidates").fetchone()[0] == 0
    db.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.sampled_from(list(" \t\x85\u2003\u3000ax\u00e9")), max_size=3),
                min_size=1, max_size=12))
def test_blank_mask_is_the_regex_test(values):
    import pyarrow as pa

    from triage.ingest.read import blank, blank_mask

    array = pa.array(values, pa.string())
    mask = blank_mask(array)
    expected = [not v.strip() for v in values]
    assert blank(array).to_pylist() == expected
    assert (mask.tolist() if mask is not None else [False] * len(values)) == expected
    assert (mask is None) == (not any(expected))


def test_triage_new_loads_neither_pandas_nor_numpy_ma(tmp_path):
    # pyarrow looks for pandas when handed numpy arrays to convert, numpy's unique loads
    # numpy.ma: a third and a tenth of a second of every import. The streamed import, the
    # rankings (with ties) and the overlap plan drawn with them use neither.
    import subprocess
    import sys

    rows = [(f"k{i}", f"text {i}", round(i % 7 / 7, 3), (i * 37 % 101) / 101, "pos", "x")
            for i in range(5000)]
    pool = write(tmp_path / "pool.csv", rows)
    code = ("import sys, main\n"
            f"code = main.main(['new', {str(tmp_path / 'p.triage')!r}, {str(pool)!r}, "
            "'--text', 'text', '--key', 'key', '--score', 'm1=s1', '--score', 'm2=s2', "
            "'--gold', 'gold', '--labels', 'pos,neg'])\n"
            "print(code, 'pandas' in sys.modules, 'numpy.ma' in sys.modules)")
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=root, check=True)
    assert out.stdout.splitlines()[-1] == "0 False False"
    from triage.store.connection import open_database

    db, _backup = open_database(tmp_path / "p.triage")
    try:
        assert db.execute("SELECT count(*), min(kind), max(kind) FROM plan").fetchone() == \
            (500, "overlap", "overlap")
    finally:
        db.close()


@pytest.mark.parametrize("other_reader", [False, True])
def test_the_bulk_child_writes_without_the_log_when_alone_and_the_file_returns_to_it(
        tmp_path, monkeypatch, other_reader):
    # Alone with the file, the import leaves the write-ahead log for a rollback journal
    # (the rows are written once, into the file); with another connection open it keeps
    # the log. Either way the rows are all there and the file is on the log afterwards.
    import sqlite3

    from triage.store import bulkrun, poolwrite

    monkeypatch.setattr(poolwrite, "SMALL_ROWS", 0)  # the child, whatever the size
    source = write(tmp_path / "pool.csv", [(f"k{i}", f"t {i}", i / 7, 0.5, "", "")
                                           for i in range(50)])
    db_path = tmp_path / "p.triage"
    db = create_database(db_path)
    other = sqlite3.connect(db_path) if other_reader else None
    if other is not None:
        other.execute("SELECT count(*) FROM candidates").fetchone()
    modes: list[str] = []
    original = bulkrun.write

    def spy(path, *args, **kwargs):
        probe = sqlite3.connect(path)
        modes.append(probe.execute("PRAGMA journal_mode").fetchone()[0])
        probe.close()
        return original(path, *args, **kwargs)

    monkeypatch.setattr(bulkrun, "write", spy)
    try:
        import_candidates(db, source, MAPPING)
        assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.conn.execute("SELECT count(*) FROM candidates").fetchone()[0] == 50
    finally:
        db.close()
        if other is not None:
            other.close()
    assert modes == (["wal"] if other_reader else ["delete"])
    check = sqlite3.connect(db_path)
    assert check.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert check.execute("SELECT count(*) FROM candidates").fetchone()[0] == 50
    check.close()
