"""import_candidates / add_scores: all-or-nothing, validation messages, ranks and ties."""

from __future__ import annotations

import csv
import json
import random

import numpy as np
import pytest

from triage.base.errors import InputError, TriageError
from triage.ingest.importer import (
    ColumnMapping,
    add_scores,
    import_candidates,
    rank_scores,
)
from triage.ingest.read import preview
from triage.store.connection import create_database, open_database
from triage.store.records import ranking

TABLES = ("project", "settings", "candidates", "models", "rankings", "annotators", "sessions",
          "labels")
MAPPING = ColumnMapping(text="text", key="key", scores=(("m1", "s1"), ("m2", "s2")),
                        gold="gold")


def write_csv(path, header, rows):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def pool(tmp_path, name="pool.csv"):
    rows = [("a", "kick the bucket", "0.9", "0.1", "idiom", "x1"),
            ("b", "red car", "0.2", "0.8", "", "x2"),
            ("c", "spill the beans", "0.5", "0.5", "idiom", "x3")]
    return write_csv(tmp_path / name, ["key", "text", "s1", "s2", "gold", "src"], rows)


@pytest.fixture
def db(tmp_path):
    database = create_database(tmp_path / "p.triage")
    yield database
    database.close()


def counts(database) -> dict[str, int]:
    return {t: database.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def ranks(database, model) -> dict[str, int]:
    model_id = database.execute("SELECT id FROM models WHERE name = ?", [model]).fetchone()[0]
    keys = dict(database.execute("SELECT id, key FROM candidates").fetchall())
    order = ranking(database, model_id)[0]
    return {keys[int(cid)]: rank for rank, cid in enumerate(order, start=1)}


def test_import_writes_candidates_models_ranks(db, tmp_path):
    src = pool(tmp_path)
    result = import_candidates(db, src, MAPPING)
    assert (result.rows_imported, result.rows_rejected, result.rejects_path) == (3, 0, None)
    assert result.models == ("m1", "m2") and result.tied_items == {"m1": 0, "m2": 0}
    assert result.seconds > 0
    rows = db.execute("SELECT id, key, text, meta, gold FROM candidates ORDER BY id").fetchall()
    assert rows == [(1, "a", "kick the bucket", '{"src": "x1"}', "idiom"),
                    (2, "b", "red car", '{"src": "x2"}', None),
                    (3, "c", "spill the beans", '{"src": "x3"}', "idiom")]
    assert ranks(db, "m1") == {"a": 1, "c": 2, "b": 3}
    assert ranks(db, "m2") == {"b": 1, "c": 2, "a": 3}
    models = db.execute("SELECT name, source_column, source_file, tied_items FROM models "
                        "ORDER BY id").fetchall()
    assert models == [("m1", "s1", str(src), 0), ("m2", "s2", str(src), 0)]
    assert ranking(db, 1)[1].tolist() == [0.9, 0.5, 0.2]
    info = dict(db.execute("SELECT key, value FROM project").fetchall())
    assert info["source_file"] == str(src.resolve())


def test_key_defaults_to_row_number_and_metadata_rules(db, tmp_path):
    src = write_csv(tmp_path / "k.csv", ["text", "s"], [("x", "1"), ("y", "2")])
    import_candidates(db, src, ColumnMapping(text="text", scores=(("m", "s"),)))
    assert db.execute("SELECT id, key, meta FROM candidates").fetchall() == [
        (1, "1", None), (2, "2", None)]


def test_explicit_metadata_columns(db, tmp_path):
    src = pool(tmp_path)
    mapping = ColumnMapping(text="text", key="key", scores=(("m1", "s1"),),
                            metadata=("src", "s2"))
    import_candidates(db, src, mapping)
    meta = db.execute("SELECT meta FROM candidates WHERE key = 'a'").fetchone()[0]
    assert json.loads(meta) == {"src": "x1", "s2": "0.1"}


def test_jsonl_import(db, tmp_path):
    src = tmp_path / "p.jsonl"
    src.write_text('{"key": "a", "text": "é", "s": 2, "tags": ["x"]}\n'
                   '{"key": "b", "text": "ß", "s": 1}\n', encoding="utf-8")
    import_candidates(db, src, ColumnMapping(text="text", key="key", scores=(("m", "s"),)))
    assert db.execute("SELECT key, text, meta FROM candidates").fetchall() == [
        ("a", "é", '{"tags": "[\\"x\\"]"}'), ("b", "ß", '{"tags": ""}')]


def snapshot(tmp_path, database):
    """Close the project and return its bytes (WAL checkpointed), plus a reopened db."""
    database.close()
    path = tmp_path / "p.triage"
    data = path.read_bytes()
    reopened, backup = open_database(path)
    assert backup is None
    return data, reopened


BAD_INPUTS = {
    "utf8": ("bad.csv", b"key,text,s1,s2,gold\na,caf\xe9,1,2,\n", "bad.csv:2: not UTF-8 (byte 0xe9 at character 6); it reads as cp1252"),
    "ragged": ("r.csv", "key,text,s1,s2,gold\na,t,1,2,\nb,t,1\n", "r.csv:3: expected 5 fields, found 3"),
    "missing": ("m.csv", "key,text,s1,gold\na,t,1,\n", "m.csv:1: column s2: required column 's2' is missing"),
    "dup_header": ("h.csv", "key,text,s1,s2,s2,gold\na,t,1,2,3,\n", "h.csv:1: column s2: duplicate column name"),
    "dup_key": ("d.csv", "key,text,s1,s2,gold\na,t,1,2,\na,u,1,2,\n",
                "d.csv:3: column key: duplicate value 'a' (first on line 2)"),
    "nan": ("n.csv", "key,text,s1,s2,gold\na,t,nan,2,\n", "n.csv:2: column s1: 'nan' is not a finite number"),
    "text_score": ("x.csv", "key,text,s1,s2,gold\na,t,1,high,\n", "x.csv:2: column s2: 'high' is not a number"),
    "empty_text": ("e.csv", "key,text,s1,s2,gold\na, ,1,2,\n", "e.csv:2: column text: empty value"),
    "json": ("j.jsonl", '{"key": "a", "text": "t", "s1": 1, "s2": 2, "gold": ""}\n{"key": \n',
             "j.jsonl:2: column 9: not valid JSON"),
    "newlines": ("q.csv", 'key,text,s1,s2,gold\na,"two\nlines",1,2,\nb,t,1,inf,\n',
                 "q.csv:4: column s2: 'inf' is not a finite number"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_changes_nothing(tmp_path, case):
    name, content, expected = BAD_INPUTS[case]
    database = create_database(tmp_path / "p.triage")
    before_bytes, database = snapshot(tmp_path, database)
    before = counts(database)
    src = tmp_path / name
    if isinstance(content, bytes):
        src.write_bytes(content)
    else:
        src.write_text(content, encoding="utf-8", newline="")
    with pytest.raises(InputError) as info:
        import_candidates(database, src, MAPPING)
    assert expected in str(info.value)
    assert str(src) in str(info.value)
    assert counts(database) == before
    database.close()
    assert same_file(before_bytes, (tmp_path / "p.triage").read_bytes())


# The import may switch the file to a rollback journal and back (see poolwrite), which
# counts as a change in the header: its change counter, the counter's copy and the
# version of SQLite that made it. Everything else must stay byte for byte.
HEADER_COUNTERS = set(range(24, 28)) | set(range(92, 100))


def same_file(before: bytes, after: bytes) -> bool:
    """The same database file, byte for byte but for the header's change counters."""
    return len(before) == len(after) and before[100:] == after[100:] and all(
        before[i] == after[i] for i in range(100) if i not in HEADER_COUNTERS)


def test_more_than_20_problems(db, tmp_path):
    rows = [(f"k{i}", "t", "bad", "1", "") for i in range(30)]
    src = write_csv(tmp_path / "many.csv", ["key", "text", "s1", "s2", "gold"], rows)
    with pytest.raises(InputError) as info:
        import_candidates(db, src, MAPPING)
    assert "... and 10 more problems" in str(info.value)
    assert counts(db)["candidates"] == 0


def test_mapping_and_project_errors(db, tmp_path):
    src = pool(tmp_path)
    with pytest.raises(TriageError, match="given twice"):
        import_candidates(db, src, ColumnMapping(text="text", scores=(("m", "s1"), ("m", "s2"))))
    with pytest.raises(TriageError, match="at least one model"):
        import_candidates(db, src, ColumnMapping(text="text"))
    with pytest.raises(InputError, match="column nope: required column 'nope' is missing"):
        import_candidates(db, src, ColumnMapping(text="nope", scores=(("m", "s1"),)))
    empty = write_csv(tmp_path / "empty.csv", ["key", "text", "s1"], [])
    with pytest.raises(TriageError, match="no candidates to import"):
        import_candidates(db, empty, ColumnMapping(text="text", scores=(("m", "s1"),)))
    assert counts(db)["candidates"] == 0
    import_candidates(db, src, MAPPING)
    with pytest.raises(TriageError, match="--add-scores"):
        import_candidates(db, src, ColumnMapping(text="text", key="key", scores=(("m3", "s1"),)))


def test_skip_invalid_writes_rejects_file(db, tmp_path):
    rows = [("a", "ok", "1", "1", ""), ("b", "=HYPERLINK(\"x\")", "nan", "1", ""),
            ("c", "", "2", "2", ""), ("a", "dup", "3", "3", ""), ("d", "fine", "4", "4", "")]
    src = write_csv(tmp_path / "in.csv", ["key", "text", "s1", "s2", "gold"], rows)
    result = import_candidates(db, src, MAPPING, skip_invalid=True)
    assert (result.rows_imported, result.rows_rejected) == (2, 3)
    assert result.rejects_path == str(tmp_path / "in.rejected.csv")
    with open(result.rejects_path, encoding="utf-8", newline="") as handle:
        rejects = list(csv.DictReader(handle))
    assert [(r["line"], r["key"]) for r in rejects] == [("3", "b"), ("4", "c"), ("5", "a")]
    assert rejects[0]["reason"] == "column s1: 'nan' is not a finite number"
    assert rejects[0]["text"] == "'=HYPERLINK(\"x\")"  # formula-guarded
    assert rejects[2]["reason"] == "column key: duplicate value 'a' (first on line 2)"
    assert db.execute("SELECT key FROM candidates ORDER BY id").fetchall() == [("a",), ("d",)]


def tie_rows(order_seed=None):
    """40 candidates: 30 share score 0.5, the rest are distinct."""
    rows = [(f"t{i:02d}", f"tied {i}", "0.5") for i in range(30)]
    rows += [(f"u{i:02d}", f"untied {i}", f"{0.9 - i / 100:.2f}") for i in range(10)]
    if order_seed is not None:
        random.Random(order_seed).shuffle(rows)
    return rows


def test_ties_use_a_seeded_order_independent_of_file_order(tmp_path):
    results = []
    for n, (order_seed, seed) in enumerate([(None, 7), (1, 7), (2, 7), (None, 8)]):
        src = write_csv(tmp_path / f"t{n}.csv", ["key", "text", "s"], tie_rows(order_seed))
        database = create_database(tmp_path / f"p{n}.triage")
        result = import_candidates(database, src, ColumnMapping(
            text="text", key="key", scores=(("m", "s"),)), seed=seed)
        assert result.tied_items == {"m": 30}
        assert database.execute("SELECT tied_items FROM models").fetchone()[0] == 30
        results.append(ranks(database, "m"))
        database.close()
    first = results[0]
    # untied scores 0.90..0.81 are all above the tied 0.5: ranks 1..10, then the tie block
    assert [first[f"u{i:02d}"] for i in range(10)] == list(range(1, 11))
    tied_ranks = [first[f"t{i:02d}"] for i in range(30)]
    assert sorted(tied_ranks) == list(range(11, 41))
    assert tied_ranks != list(range(11, 41))  # not file (= key) order
    assert results[1] == first and results[2] == first  # shuffled input: the same ranks
    other = [results[3][f"t{i:02d}"] for i in range(30)]
    assert sorted(other) == list(range(11, 41)) and other != tied_ranks  # seed matters


def test_project_seed_is_used_by_default(tmp_path):
    src = write_csv(tmp_path / "t.csv", ["key", "text", "s"], tie_rows())
    out = []
    for n, seed in enumerate((7, 8)):
        database = create_database(tmp_path / f"p{n}.triage")
        database.execute("INSERT INTO settings(key, value) VALUES ('seed', ?)", [str(seed)])
        import_candidates(database, src, ColumnMapping(text="text", key="key",
                                                       scores=(("m", "s"),)))
        out.append(ranks(database, "m"))
        database.close()
    explicit = create_database(tmp_path / "p9.triage")
    import_candidates(explicit, src, ColumnMapping(text="text", key="key",
                                                   scores=(("m", "s"),)), seed=7)
    assert ranks(explicit, "m") == out[0] != out[1]
    explicit.close()


def test_rank_scores_counts_every_tied_item():
    order, tied = rank_scores(np.array([3.0, 1.0, 3.0, 2.0, 1.0, 1.0]),
                              ["a", "b", "c", "d", "e", "f"], 1, "m")
    assert tied == 5
    assert sorted(order[:2].tolist()) == [0, 2] and order[2] == 3
    assert sorted(order[3:].tolist()) == [1, 4, 5]


def test_ties_in_group_then_hash_order_as_lexsort_even_when_hashes_collide():
    # One sort of a packed group+hash key when it is unambiguous; equal packed keys (equal
    # hashes, or equal top bits) fall back to the two stable sorts: lexsort's order.
    import pyarrow as pa

    from triage.ingest.ranking import _by_group_then_hash, rank_sorted

    rng = np.random.default_rng(5)
    group = np.sort(rng.integers(1, 40, 2000))
    for hashes in (rng.integers(0, 2**63, 2000, dtype=np.uint64),   # distinct
                   rng.integers(0, 50, 2000, dtype=np.uint64),      # collide in a group
                   # differ only in the low bits the packed key drops
                   (rng.integers(0, 8, 2000, dtype=np.uint64) << np.uint64(60))
                   | rng.integers(0, 64, 2000, dtype=np.uint64)):
        expected = np.lexsort((hashes, group))
        assert (_by_group_then_hash(group, hashes) == expected).all()
    # Hashing every key (most rows tied) or only the tied ones gives the same ranking.
    keys = [f"k{i}" * (i % 5 + 1) for i in range(3000)]
    mostly = np.round(rng.random(3000), 1)
    few = rng.random(3000)
    few[:40] = 0.5
    for scores in (mostly, few):
        by_list = rank_sorted(scores, keys, 3, "m")
        by_arrow = rank_sorted(scores, pa.chunked_array([keys[:1000], keys[1000:]]), 3, "m")
        assert (by_list[0] == by_arrow[0]).all() and by_list[2] == by_arrow[2]


def add_label(database):
    database.execute("INSERT INTO annotators(id, name, created_at) VALUES (1, 'ann', 't')")
    database.execute("INSERT INTO sessions(id, uid, annotator_id, started_at) "
                     "VALUES (1, 's1', 1, 't')")
    database.execute("INSERT INTO labels(uid, candidate_id, annotator_id, session_id, value, "
                     "created_at) VALUES ('l1', 2, 1, 1, 'idiom', 't')")


def test_add_scores_keeps_labels_and_candidates(db, tmp_path):
    import_candidates(db, pool(tmp_path), MAPPING)
    add_label(db)
    candidates_before = db.execute("SELECT * FROM candidates").fetchall()
    labels_before = db.execute("SELECT * FROM labels").fetchall()
    later = write_csv(tmp_path / "later.csv", ["key", "m3"], [("c", "0.1"), ("a", "0.3"),
                                                                ("b", "0.2")])
    result = add_scores(db, later, key="key", scores=(("m3", "m3"),))
    assert result.models == ("m3",) and result.rows_imported == 3
    assert ranks(db, "m3") == {"a": 1, "b": 2, "c": 3}
    assert db.execute("SELECT * FROM labels").fetchall() == labels_before
    assert db.execute("SELECT * FROM candidates").fetchall() == candidates_before
    assert ranks(db, "m1") == {"a": 1, "c": 2, "b": 3}


def test_add_scores_errors_change_nothing(db, tmp_path):
    import_candidates(db, pool(tmp_path), MAPPING)
    add_label(db)
    before = counts(db)
    unknown = write_csv(tmp_path / "u.csv", ["key", "m3"],
                        [("a", "1"), ("b", "1"), ("c", "1"), ("zz", "2")])
    with pytest.raises(InputError, match=r"u\.csv:5: column key: key 'zz' is not a candidate"):
        add_scores(db, unknown, key="key", scores=(("m3", "m3"),))
    partial = write_csv(tmp_path / "p.csv", ["key", "m3"], [("a", "1")])
    with pytest.raises(TriageError, match="2 candidate\\(s\\) of the project have no row"):
        add_scores(db, partial, key="key", scores=(("m3", "m3"),))
    with pytest.raises(TriageError, match="already has model\\(s\\) 'm1'"):
        add_scores(db, partial, key="key", scores=(("m1", "m3"),))
    assert counts(db) == before


def test_cancel_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("triage.ingest.importer.CHUNK", 2)
    monkeypatch.setattr("triage.ingest.read.careful.PROGRESS_EVERY", 2)
    src = pool(tmp_path)
    # While reading (the fast path reports once), inserting candidates, inserting scores.
    for stop_after in (1, 3, 5):
        database = create_database(tmp_path / f"c{stop_after}.triage")
        calls = []

        def progress(done, total, calls=calls, stop_after=stop_after):
            calls.append((done, total))
            return len(calls) < stop_after

        with pytest.raises(TriageError, match="cancelled"):
            import_candidates(database, src, MAPPING, progress=progress)
        assert len(calls) == stop_after
        assert counts(database)["candidates"] == counts(database)["rankings"] == 0
        assert counts(database)["models"] == 0
        database.close()


def test_progress_reaches_total(db, tmp_path, monkeypatch):
    monkeypatch.setattr("triage.ingest.importer.CHUNK", 2)
    calls = []
    import_candidates(db, pool(tmp_path), MAPPING,
                      progress=lambda done, total: calls.append((done, total)))
    assert calls[-1][0] == calls[-1][1] == 3 * 4  # read + candidates + two models
    assert all(d <= t for d, t in calls)


def test_preview(tmp_path):
    header, rows = preview(pool(tmp_path), rows=2)
    assert header == ["key", "text", "s1", "s2", "gold", "src"]
    assert rows == [["a", "kick the bucket", "0.9", "0.1", "idiom", "x1"],
                    ["b", "red car", "0.2", "0.8", "", "x2"]]
    src = tmp_path / "p.jsonl"
    src.write_text('{"a": 1}\n\n{"b": "x", "a": null}\n', encoding="utf-8")
    assert preview(src) == (["a", "b"], [["1", ""], ["", "x"]])


def _contents(database):
    return {t: database.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
            for t in ("candidates", "models", "rankings")}


def test_bulk_path_and_fallback_write_the_same(tmp_path, monkeypatch):
    """The child process's ADBC ingest and this process's sqlite3 write the same rows."""
    import triage.store.bulkrun as bulkrun
    import triage.store.poolwrite as poolwrite

    used = []
    for module, name in ((bulkrun, "write"), (poolwrite, "_write_sqlite")):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _o=original, _n=name, **k:
                            (used.append(_n), _o(*a, **k))[1])
    monkeypatch.setattr(poolwrite, "SMALL_ROWS", 0)
    alone = create_database(tmp_path / "alone.triage")
    import_candidates(alone, pool(tmp_path), MAPPING)
    monkeypatch.setattr(poolwrite, "SMALL_ROWS", 10**9)
    shared = create_database(tmp_path / "shared.triage")
    import_candidates(shared, pool(tmp_path), MAPPING)
    assert used == ["write", "_write_sqlite"]
    strip = lambda rows: [r[:4] + r[5:] for r in rows]  # noqa: E731 - imported_at differs
    a, b = _contents(alone), _contents(shared)
    assert a["candidates"] == b["candidates"] and a["rankings"] == b["rankings"]
    assert strip(a["models"]) == strip(b["models"])
    alone.close()
    shared.close()


def test_key_index_is_built_on_the_first_lookup_by_key(db, tmp_path):
    from triage import store

    import_candidates(db, pool(tmp_path), MAPPING)
    index = "SELECT count(*) FROM sqlite_master WHERE name = 'candidates_key'"
    assert db.execute(index).fetchone()[0] == 0
    assert store.candidate_id_by_key(db, "b") == 2
    assert db.execute(index).fetchone()[0] == 1
    assert store.candidate_id_by_key(db, "nope") is None


def test_project_import_draws_the_overlap_plan_the_dispatcher_would(tmp_path):
    from triage.project import create_project
    from triage.serving.dispatcher import overlap_plan
    from triage.store import claims
    from triage.store.settings import Settings

    rows = [(f"k{i}", f"text {i}", str(i % 7), str(i % 5), "", "x") for i in range(200)]
    src = write_csv(tmp_path / "big.csv", ["key", "text", "s1", "s2", "gold", "src"], rows)
    project = create_project(tmp_path / "o.triage", Settings(overlap_rate=0.2))
    project.import_file(src, MAPPING)
    stored = sorted(claims.overlap_items(project.db))
    assert len(stored) == 40
    order = ranking(project.db, project.active_model().id)[0]
    assert stored == overlap_plan(order, 0.2, project.settings.seed).tolist()
    assert project.dispatcher.overlap_items() == set(stored)  # found, not drawn again
    project.close()


def test_packed_sorts_order_as_argsort_and_rankings_as_lexsort():
    # sort_order packs each value's top bits with its position into one word; values that
    # differ only in the dropped low bits are put in order afterwards.
    import hashlib

    import pyarrow as pa

    from triage.ingest.hashing import pandas_hash
    from triage.ingest.ranking import descending_order, rank_sorted, sort_order

    rng = np.random.default_rng(23)
    n = 20_000
    for values in (rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True),
                   rng.integers(0, 8, n, dtype=np.uint64),                  # few values
                   (rng.integers(0, 4, n, dtype=np.uint64) << np.uint64(62))
                   | rng.integers(0, 2**15, n, dtype=np.uint64)):           # low bits only
        assert (values[sort_order(values)] == np.sort(values)).all()
    near = 0.5 + rng.integers(0, 1000, n) * np.finfo(float).eps            # a few ulps apart
    signed = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n)
    zeros = rng.choice([0.0, -0.0, 1e-310, -1e-310, 1.0, -1.0], n)          # -0.0, subnormals
    for scores in (rng.random(n), near, signed, zeros, np.round(rng.random(n), 3)):
        assert (scores[descending_order(scores)] == np.sort(scores)[::-1]).all()
        keys = [f"c{i}" for i in range(n)]
        hashes = pandas_hash(pa.array(keys), hashlib.sha256(b"7:m").hexdigest()[:16])
        expected = np.lexsort((hashes, -(scores + 0.0)))
        order, ordered, tied = rank_sorted(scores, keys, 7, "m")
        assert (order == expected).all()
        assert (ordered.view(np.uint64) == scores[expected].view(np.uint64)).all()
        same = np.sort(scores)[1:] == np.sort(scores)[:-1]
        assert tied == len(np.flatnonzero(np.r_[same, False] | np.r_[False, same]))
