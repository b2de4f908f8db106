"""push → pull round trip, incremental pulls into a replica, and ``triage new URL``."""

from __future__ import annotations

import contextlib
import io
import json
import select
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import pool_rows, write_pool
from triage.cli.program import main
from triage.project.demo import create_demo, simulate
from triage.store.connection import create_database
from triage.store.pg.connect import connect
from triage.store.pg.copy import pull_into
from triage.store.pg.judge import LABEL_RATE_KEY
from triage.store.pg.url import parse_url

# Keys that name the file a report was made from: the only thing allowed to differ.
PATH_KEYS = {"project", "file", "path"}


def cli_json(*args: str) -> dict:
    """Run a command in-process exactly as ``triage`` does and parse its --json output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*args, "--json"]) == 0
    data = json.loads(out.getvalue())
    return {k: v for k, v in data.items() if k not in PATH_KEYS}


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> Path:
    """A demo project labelled by two annotators (overlap included), one label undone."""
    path = Path(tmp_path_factory.mktemp("orig")) / "demo.triage"
    project = create_demo(path)
    simulate(project, 150, "ana")
    simulate(project, 120, "ben")
    session = project.start_session("ana")
    item = project.next_candidate(session)
    project.record_label(session, item.candidate_id, "idiom", seconds=3.0, kind=item.kind)
    project.undo(session)
    project.end_session(session)
    project.close()
    return path


@pytest.fixture(scope="module")
def round_trip(pg, original, tmp_path_factory) -> Path:
    """``original`` pushed with ``triage push`` and pulled back with ``triage pull``."""
    url = pg.url("round_trip")
    assert main(["push", str(original), url]) == 0
    back = Path(tmp_path_factory.mktemp("back")) / "back.triage"
    assert main(["pull", url, str(back)]) == 0
    return back


@pytest.mark.parametrize("command", ["status", "gain", "agree", "advise"])
def test_push_then_pull_gives_back_the_same_reports(original, round_trip, command):
    before, after = cli_json(command, str(original)), cli_json(command, str(round_trip))
    assert after == before
    assert len(json.dumps(before)) > 500  # a report with content, not two empty ones


def test_the_round_trip_keeps_every_label_row(original, round_trip):
    import sqlite3

    query = "SELECT id, uid, candidate_id, annotator_id, value, kind, undo_seq FROM labels"
    rows = [sqlite3.connect(p).execute(query).fetchall() for p in (original, round_trip)]
    assert rows[0] == rows[1] and len(rows[0]) == 271


def test_push_refuses_a_project_already_on_the_server(pg, original, capsys):
    url = pg.url("twice")
    assert main(["push", str(original), url]) == 0
    assert main(["push", str(original), url]) == 2
    assert "already holds a project" in capsys.readouterr().err


def test_pull_of_a_missing_project_leaves_no_file(pg, tmp_path, capsys):
    target = tmp_path / "none.triage"
    assert main(["pull", pg.url("nosuch"), str(target)]) == 2
    assert "no project 'nosuch'" in capsys.readouterr().err
    assert not target.exists()


def _session(conn, schema: str) -> int:
    return conn.execute(f"SELECT {schema}.start_session('host', 'test')").fetchone()[0]


def _next_in_rank_order(conn, s: str) -> int:
    """The first unhandled candidate of the active model's ranking (what a desk serves)."""
    blob = conn.execute(
        f"SELECT r.candidate_ids FROM {s}.ranking_feed() r JOIN {s}.models m ON m.id = "
        f"r.model_id ORDER BY m.name IS DISTINCT FROM (SELECT value::jsonb #>> '{{}}' FROM "
        f"{s}.settings WHERE key = 'active_model'), m.id LIMIT 1").fetchone()[0]
    done = {r[0] for r in conn.execute(f"SELECT candidate_id FROM {s}.label_feed(0) "
                                       "WHERE undone_at IS NULL")}
    return next(int(c) for c in np.frombuffer(blob, dtype="<i8") if int(c) not in done)


def test_pull_into_a_replica_brings_new_labels_and_undo_marks_only(pg, tmp_path, original):
    pg.role("ana")
    url = parse_url(pg.url("incr"))
    assert main(["push", str(original), str(url)]) == 0
    assert main(["server", "grant", str(url), "--annotator", "ana"]) == 0
    # The pushed labels were made by a script moments ago, and the pace limit counts them:
    # lift it (it has its own test in test_served), or a quick machine trips it.
    pg.psql(f"INSERT INTO {url.schema}.project VALUES ('{LABEL_RATE_KEY}', '1000')")
    replica = create_database(tmp_path / "replica.triage")
    server = connect(url)
    first = pull_into(server, replica, url)
    assert (first.candidates, first.labels) == (1500, 271)
    assert pull_into(server, replica, url).labels == 0   # nothing new: nothing copied

    with pg.connect("ana") as ana:   # a desk elsewhere writes a label, then undoes another
        session = _session(ana, url.schema)
        free = _next_in_rank_order(ana, url.schema)   # a triage label counts in order
        ana.execute(f"SELECT {url.schema}.claim(%s, %s)", [free, session])   # served to her
        label = ana.execute(f"SELECT {url.schema}.add_label('u-000001', %s, %s, 'idiom', "
                            "'triage', 2.5, 'a note', NULL)", [free, session]).fetchone()[0]
        again = ana.execute(f"SELECT {url.schema}.add_label('u-000001', %s, %s, 'idiom', "
                            "'triage', 2.5, NULL, NULL)", [free, session]).fetchone()[0]
        assert again == label   # a retried write returns the first row, never a second one
        old = replica.execute("SELECT l.id FROM labels l JOIN annotators a ON "
                              "a.id = l.annotator_id WHERE a.name = 'ana' AND undone_at IS NULL "
                              "ORDER BY l.id LIMIT 1").fetchone()[0]
        seq = ana.execute(f"SELECT {url.schema}.undo(%s, %s)", [old, session]).fetchone()[0]
    step = pull_into(server, replica, url)
    assert (step.labels, step.undone) == (2, 1)   # the new label, and the one undone
    row = replica.execute("SELECT id, value, note, guideline_version FROM labels "
                          "WHERE uid = 'u-000001'").fetchone()
    assert row[:3] == (label, "idiom", "a note")
    assert replica.execute("SELECT undo_seq FROM labels WHERE id = ?", [old]).fetchone()[0] == seq
    assert replica.execute("SELECT count(*) FROM sessions").fetchone()[0] == \
        server.execute(f"SELECT count(*) FROM {url.schema}.sessions").fetchone()[0]
    server.close()
    replica.close()


def test_an_annotators_replica_holds_others_labels_without_values(pg, tmp_path, original):
    pg.role("ana")
    url = parse_url(pg.url("blind"))
    assert main(["push", str(original), str(url)]) == 0
    assert main(["server", "grant", str(url), "--annotator", "ana"]) == 0
    replica = create_database(tmp_path / "ana.triage")
    conn = connect(parse_url(pg.url("blind", user="ana")))
    pull_into(conn, replica, url)
    rows = replica.execute("SELECT a.name, count(*), count(l.value) FROM labels l "
                           "JOIN annotators a ON a.id = l.annotator_id GROUP BY a.name").fetchall()
    by_name = {name: (n, with_value) for name, n, with_value in rows}
    assert by_name["ben"] == (120, 0)
    assert by_name["ana"][0] == 151 and by_name["ana"][1] > 0
    conn.close()
    replica.close()


def test_new_from_a_url_imports_the_pool_and_a_pull_opens_it(pg, tmp_path, capsys):
    src = write_pool(tmp_path / "pool.csv", pool_rows(50))
    url = pg.url("fresh")
    assert main(["new", url, str(src), "--text", "text", "--key", "key", "--score", "m1=m1",
                 "--score", "m2=m2", "--gold", "gold", "--labels", "idiom:i,literal:l",
                 "--positive", "idiom", "--price", "0.04"]) == 0
    back = tmp_path / "fresh.triage"
    assert main(["pull", url, str(back)]) == 0
    status = cli_json("status", str(back))
    assert status["pool"] == 50
    assert [m["name"] for m in status["models"]] == ["m1", "m2"]
    with pg.connect() as conn:
        keys = [r[0] for r in conn.execute("SELECT key FROM triage_fresh.candidates ORDER BY id")]
        meta = conn.execute("SELECT count(*) FROM triage_fresh.project WHERE key = "
                            "'source_file'").fetchone()[0]
    assert keys == [r["key"] for r in pool_rows(50)] and meta == 1
    # The same address again is refused and changes nothing.
    assert main(["new", url, str(src), "--text", "text", "--score", "m1=m1"]) == 2
    assert "already holds a project" in capsys.readouterr().err


def test_new_from_a_url_with_a_bad_file_leaves_no_project(pg, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("key,text,m1\na,x,0.5\nb,y,notanumber\n", encoding="utf-8")
    url = pg.url("broken")
    assert main(["new", url, str(bad), "--text", "text", "--key", "key", "--score", "m1"]) == 2
    assert "bad.csv:3: column m1: 'notanumber' is not a number" in capsys.readouterr().err
    with pg.connect() as conn:
        assert conn.execute("SELECT to_regclass('triage_broken.candidates')").fetchone()[0] is None


def test_a_bad_row_after_streamed_batches_leaves_no_project(pg, tmp_path, capsys,
                                                            monkeypatch):
    """The pool streams into the server's COPY as it is read: a bad row found after the
    first batches went in rolls the whole import back and is named by file, line, column."""
    from triage.ingest import poolbatch
    from triage.ingest.read import fast
    from triage.store.pg import ingest

    rows = pool_rows(3000)
    rows[2500]["m1"] = "notanumber"
    src = write_pool(tmp_path / "late.csv", rows)
    monkeypatch.setattr(fast, "READ_BLOCK", 8 << 10)   # many small batches,
    monkeypatch.setattr(poolbatch, "ahead_bytes", lambda path: 1)   # read one ahead of the COPY
    copied: list[int] = []
    real_copy = ingest.copy_arrow

    def counting_copy(conn, url, name, batches, **kw):
        def counted():
            for batch in batches:
                copied.append(batch.num_rows)
                yield batch
        return real_copy(conn, url, name, counted(), **kw)

    monkeypatch.setattr(ingest, "copy_arrow", counting_copy)
    url = pg.url("late_bad")
    assert main(["new", url, str(src), "--text", "text", "--key", "key", "--score", "m1=m1",
                 "--score", "m2=m2"]) == 2
    assert "late.csv:2502: column m1: 'notanumber' is not a number" in capsys.readouterr().err
    assert 0 < sum(copied) < 2500   # rows had gone into the COPY before the bad one was read
    with pg.connect() as conn:
        assert conn.execute("SELECT to_regclass('triage_late_bad.candidates')").fetchone()[0] \
            is None


def test_a_label_notifies_listeners_on_the_project_channel(pg, original):
    url = parse_url(pg.url("live"))
    assert main(["push", str(original), str(url)]) == 0
    listener = pg.connect()
    listener.execute(f"LISTEN {url.schema}")
    with pg.connect() as writer:
        writer.execute(f"UPDATE {url.schema}.settings SET value = value WHERE key = 'budget'")
    select.select([listener.fileno()], [], [], 5)
    payloads = [n.payload for n in listener.notifies(timeout=1, stop_after=1)]
    listener.close()
    assert payloads == ["settings"]


def test_a_pull_that_finds_nothing_new_writes_nothing(pg, tmp_path, original):
    url = parse_url(pg.url("quiet"))
    assert main(["push", str(original), str(url)]) == 0
    replica = create_database(tmp_path / "quiet.triage")
    server = connect(url)
    pull_into(server, replica, url)
    before = replica.conn.total_changes
    again = pull_into(server, replica, url)
    assert (again.labels, again.candidates, again.undone, again.changed) == (0, 0, 0, ())
    assert replica.conn.total_changes == before
    with pg.connect() as lead:   # the lead changes a setting and the plan: only those move
        lead.execute(f"UPDATE {url.schema}.settings SET value = '99.0' WHERE key = 'budget'")
        lead.execute(f"DELETE FROM {url.schema}.plan WHERE candidate_id = "
                     f"(SELECT min(candidate_id) FROM {url.schema}.plan)")
    step = pull_into(server, replica, url)
    assert step.changed == ("settings", "plan")
    assert replica.execute("SELECT value FROM settings WHERE key = 'budget'").fetchone()[0] == "99.0"
    assert replica.execute("SELECT count(*) FROM plan").fetchone()[0] == server.execute(
        f"SELECT count(*) FROM {url.schema}.plan").fetchone()[0]
    server.close()
    replica.close()


def test_the_round_trip_keeps_every_candidate_row(original, round_trip):
    import sqlite3

    query = "SELECT id, key, text, meta, gold FROM candidates ORDER BY id"
    rows = [sqlite3.connect(p).execute(query).fetchall() for p in (original, round_trip)]
    assert rows[0] == rows[1] and len(rows[0]) == 1500


def test_nulls_after_a_thousand_values_survive_the_push(pg, tmp_path):
    """The Arrow reader types a column from its first rows: late NULLs and texts both stay."""
    import sqlite3

    from triage.ingest.importer import ColumnMapping
    from triage.project import create_project

    rows = [{"key": f"k{i}", "text": f"t{i}", "m": str(i), "gold": "" if i < 1500 else "pos",
             "extra": "x" if i >= 1800 else ""} for i in range(2000)]
    project = create_project(tmp_path / "nulls.triage")
    project.import_file(write_pool(tmp_path / "nulls.csv", rows),
                        ColumnMapping(text="text", key="key", scores=(("m", "m"),), gold="gold"))
    project.close()
    url = pg.url("nulls")
    assert main(["push", str(tmp_path / "nulls.triage"), url]) == 0
    assert main(["pull", url, str(tmp_path / "back.triage")]) == 0
    query = "SELECT id, key, text, meta, gold FROM candidates ORDER BY id"
    before, after = (sqlite3.connect(tmp_path / n).execute(query).fetchall()
                     for n in ("nulls.triage", "back.triage"))
    assert after == before
    assert before[0][4] is None and before[-1][4] == "pos"


def test_push_of_an_older_file_leaves_the_file_as_it_was(pg, tmp_path, monkeypatch):
    import hashlib

    from triage.project import create_project
    from triage.store import schema

    path = tmp_path / "old.triage"
    create_project(path).close()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    migrations = schema.MIGRATIONS   # this Triage knows one step more than the file has
    monkeypatch.setattr(migrations, "_migrations", list(migrations._migrations))
    migrations(name="0099_test")(lambda db: db.execute("CREATE INDEX t99 ON labels(kind)"))
    assert main(["push", str(path), pg.url("older")]) == 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.triage"]   # no backup either
    with pg.connect() as conn:
        assert conn.execute("SELECT count(*) FROM triage_older.settings").fetchone()[0] > 0


def test_new_from_a_url_stores_the_overlap_plan_of_a_file_import(pg, tmp_path):
    from triage.ingest.importer import ColumnMapping
    from triage.project import create_project

    src = write_pool(tmp_path / "pool.csv", pool_rows(200))
    url = pg.url("planned")
    assert main(["new", url, str(src), "--text", "text", "--key", "key", "--score", "m1=m1",
                 "--labels", "idiom:i,literal:l", "--positive", "idiom",
                 "--overlap-rate", "0.2"]) == 0
    with pg.connect() as conn:
        server = {r[0] for r in conn.execute("SELECT candidate_id FROM triage_planned.plan")}
    local = create_project(tmp_path / "local.triage")
    local.update_settings(overlap_rate=0.2, labels=[{"value": "idiom", "key": "i"},
                                                    {"value": "literal", "key": "l"}],
                          positive_labels=["idiom"])
    local.import_file(src, ColumnMapping(text="text", key="key", scores=[("m1", "m1")]))
    expected = local.dispatcher.overlap_items()
    local.close()
    assert len(server) == 40 and server == expected


@pytest.mark.parametrize("command", [["agree", "--json"], ["gain", "--json"]])
def test_agree_and_gain_take_a_server_address(pg, original, command, capsys, tmp_path,
                                              monkeypatch):
    import json

    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    url = pg.url(f"reports_{command[0]}")
    assert main(["push", str(original), url]) == 0
    capsys.readouterr()
    assert main([command[0], url, *command[1:]]) == 0, capsys.readouterr().err
    on_server = json.loads(capsys.readouterr().out)
    assert main([command[0], str(original), *command[1:]]) == 0
    on_file = json.loads(capsys.readouterr().out)
    on_server.pop("file", None)   # gain names its input; everything else is the same
    on_file.pop("file", None)
    assert on_server == on_file


def test_new_from_a_url_does_not_load_the_project_package(tmp_path):
    """`triage new URL FILE` never opens a project: its start loads no project package, and
    it only pushes: nor the pull and quarantine modules a replica needs."""
    import subprocess
    import sys

    src = write_pool(tmp_path / "pool.csv", pool_rows(20))
    url = f"postgresql://nobody@/postgres?host={tmp_path / 'no-server'}&project=p"
    probe = ("import sys; from triage.cli.program import main; "
             f"code = main(['new', {url!r}, {str(src)!r}, '--text', 'text', '--key', 'key', "
             "'--score', 'm1=m1']); "
             "print(code, sorted(m for m in ('triage.project', 'triage.views.new_project', 'pandas', "
             "'triage.store.pg.pull', 'triage.store.pg.quarantine') "
             "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split("\n")[-2] == "2 []", done.stdout + done.stderr
    assert "is not answering" in done.stderr


def _new_from_url(pg, project: str, src) -> list[tuple]:
    """``triage new URL`` of pool file ``src`` as project ``project``; its candidates'
    (id, key, text, gold) as the server holds them."""
    assert main(["new", pg.url(project), str(src), "--text", "text", "--key", "key",
                 "--score", "m1=m1", "--score", "m2=m2", "--gold", "gold",
                 "--labels", "idiom:i,literal:l", "--positive", "idiom"]) == 0
    with pg.connect() as conn:
        return conn.execute(f"SELECT id, key, text, gold FROM triage_{project}.candidates "
                            "ORDER BY id").fetchall()


def test_new_from_a_url_sends_plain_batches_as_text_then_the_rest_as_csv(pg, tmp_path,
                                                                          monkeypatch):
    """Batches whose strings need no escape go in the server's text format (commas, spaces
    and a blank gold included); from the first that holds a backslash or tab on, the rest
    go as CSV in a second COPY. Every text and gold arrives as written."""
    from triage.ingest.read import fast

    rows = pool_rows(600)
    for i, text in {10: "comma, and more", 11: "  spaced  ", 12: "a;b|c", 13: "N",
                    450: "back\\slash", 451: "\\N", 452: "tab\tinside", 460: "a,b",
                    470: 'say "hi"'}.items():
        rows[i]["text"] = text
    for i in (5, 300, 590):
        rows[i]["gold"] = ""
    src = write_pool(tmp_path / "plain.csv", rows)
    monkeypatch.setattr(fast, "READ_BLOCK", 4 << 10)   # many small batches
    statements: list[str] = []
    import psycopg

    real = psycopg.Cursor.copy

    def spy(self, statement, *args, **kwargs):   # the COPY statements the import sent
        statements.append(bytes(statement).decode() if not isinstance(statement, str)
                          else statement)
        return real(self, statement, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "copy", spy)
    got = _new_from_url(pg, "plain_texts", src)
    assert got == [(i + 1, r["key"], r["text"], r["gold"] or None) for i, r in enumerate(rows)]
    forms = [s.split("FORMAT ")[1].split(",")[0].rstrip(")") for s in statements
             if ".candidates " in s]
    assert forms == ["text", "csv"]


def test_new_from_a_url_keeps_every_text_whether_or_not_it_needs_quotes(pg, tmp_path,
                                                                        monkeypatch):
    """Batches go to COPY unquoted when nothing in them needs quotes, quoted otherwise:
    texts with commas, quotes, line breaks and spaces, and blank gold, arrive as written."""
    from triage.ingest.read import fast

    rows = pool_rows(600)
    odd = {100: 'says "hi", then', 101: "two\nlines", 102: "  spaced  ", 103: "a\\.",
           104: "comma,", 500: "cr\r\nlf"}
    for i, text in odd.items():
        rows[i]["text"] = text
    for i in (5, 300):
        rows[i]["gold"] = ""
    src = write_pool(tmp_path / "odd.csv", rows)
    from triage.store.pg import copy as pg_copy

    monkeypatch.setattr(fast, "READ_BLOCK", 4 << 10)   # some batches plain, some not
    seen: list[bool] = []
    real = pg_copy.plain_strings
    monkeypatch.setattr(pg_copy, "plain_strings", lambda batch, *args, **kw:
                        seen.append(real(batch, *args, **kw)) or seen[-1])
    got = _new_from_url(pg, "odd_texts", src)
    assert got == [(i + 1, r["key"], r["text"], r["gold"] or None) for i, r in enumerate(rows)]
    assert True in seen and False in seen
