"""A hostile annotator at a SQL prompt cannot hurt the team.

As annotator ``hana`` the suite calls every function of the project schema that role may
execute (found in the catalog: a new function is attacked without being listed) with
hostile arguments, and tries every kind of DML on every table and sequence. Afterwards:
the lead's status and export are unchanged, every client still opens and labels, no
lease reaches past the lease length, and ``hana`` has read no gold and no other
annotator's value. The fast part runs in ``make test``; the random part is ``slow``.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import time
from pathlib import Path

import psycopg
import pytest

from tests.helpers import make_project
from tests.pg import hostile
from triage.base.errors import ServerUnavailable
from triage.cli.program import main
from triage.project import open_project
from triage.project.demo import simulate
from triage.store.pg.copy import push
from triage.store.pg.judge import PACE_WINDOW_S
from triage.store.pg.schema import grant

_arenas = itertools.count(1)


def _cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.fixture
def arena(pg, tmp_path, monkeypatch):
    """A project with a lead, a victim with labels and notes, and the attacker's session."""
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    name = f"hostile{next(_arenas)}"
    for role in ("hlead", "hana", "hben"):
        pg.role(role)
    project = make_project(tmp_path, 80)
    simulate(project, 20, "hben")
    simulate(project, 3, "hana")
    project.close()
    url = pg.url(name)
    push(tmp_path / "p.triage", url)
    grant(url, leads=["hlead"], annotators=["hana", "hben"])
    s = f"triage_{name}"
    pg.psql(f"UPDATE {s}.candidates SET gold = 'GOLD-' || id; "
            f"UPDATE {s}.labels SET note = 'SECRET-' || id WHERE annotator_id = "
            f"(SELECT id FROM {s}.annotators WHERE name = 'hben')")
    admin = pg.connect()
    attacker = pg.connect("hana")
    attacker.execute("SET statement_timeout = '5s'")
    one = lambda sql: admin.execute(sql).fetchone()[0]  # noqa: E731
    stage = hostile.Stage(
        schema=s, attacker="hana",
        attacker_id=one(f"SELECT id FROM {s}.annotators WHERE name = 'hana'"),
        session=attacker.execute(f"SELECT {s}.start_session('desk', '1')").fetchone()[0],
        label=one(f"SELECT max(l.id) FROM {s}.labels l JOIN {s}.annotators a ON "
                  "a.id = l.annotator_id WHERE a.name = 'hana'"),
        other_session=one(f"SELECT max(t.id) FROM {s}.sessions t JOIN {s}.annotators a ON "
                          "a.id = t.annotator_id WHERE a.name = 'hben'"),
        other_label=one(f"SELECT max(l.id) FROM {s}.labels l JOIN {s}.annotators a ON "
                        "a.id = l.annotator_id WHERE a.name = 'hben'"),
        candidate=one(f"SELECT max(id) FROM {s}.candidates WHERE id NOT IN "
                      f"(SELECT candidate_id FROM {s}.labels)"),
        secrets=("GOLD-", "SECRET-"))
    hostile.remember(admin, stage)
    lead_url = pg.url(name, user="hlead")
    before = (_cli("status", lead_url, "--json"), _export(lead_url, tmp_path / "before.csv"))
    yield pg, url, stage, admin, attacker, before, tmp_path
    attacker.close()
    admin.close()


def _export(url: str, path: Path) -> str:
    _cli("export", url, str(path))
    return path.read_text(encoding="utf-8")


def _dml(admin, stage) -> list[str]:
    """INSERT, UPDATE, DELETE and TRUNCATE on every table, and the sequences' functions."""
    s = stage.schema
    relations = admin.execute(
        "SELECT c.relname, c.relkind, (SELECT attname FROM pg_attribute WHERE attrelid = c.oid "
        "AND attnum = 1) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relkind IN ('r', 'S')", [s]).fetchall()
    out = []
    for name, kind, column in relations:
        if kind == "S":
            out += [f"SELECT setval('{s}.{name}', 1)", f"SELECT nextval('{s}.{name}')"]
            continue
        out += [f"INSERT INTO {s}.{name} DEFAULT VALUES",
                f"INSERT INTO {s}.{name}({column}) VALUES (NULL)",
                f"UPDATE {s}.{name} SET {column} = {column}",
                f"DELETE FROM {s}.{name}", f"TRUNCATE {s}.{name}",
                f"TRUNCATE {s}.{name} CASCADE"]
    assert len(relations) >= 12
    return out


def _label_at_a_human_pace(project, session, candidate_id: int) -> None:
    """Label ``candidate_id`` once the server's pace allows it, as a desk retries.

    The attacker's own valid labels of the last seconds count against her pace: the server
    asks her to wait (rightly) until they leave its window."""
    deadline = time.monotonic() + 3 * PACE_WINDOW_S
    while True:
        try:
            project.record_label(session, candidate_id, "idiom")
            return
        except ServerUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _unharmed(pg, url: str, stage, admin, before, tmp_path: Path) -> None:
    """The team after the attack: same status and export, every client opens and labels."""
    s = stage.schema
    lead_url = url.replace("postgres@", "hlead@")
    assert (_cli("status", lead_url, "--json"), _export(lead_url, tmp_path / "after.csv")) \
        == before
    length = admin.execute(f"SELECT {s}.lease_seconds()").fetchone()[0]
    assert admin.execute(f"SELECT coalesce(max(expires_at - extract(epoch FROM now())), 0) "
                         f"FROM {s}.claims").fetchone()[0] <= length + hostile.LEASE_SLACK_S
    assert _cli("pull", url, str(tmp_path / "snapshot.triage"))
    for role, cache in (("hlead", "cache"), ("hben", "cache"), ("hana", "cache"),
                        ("hben", "fresh-cache")):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / cache))
            project = open_project(url.replace("postgres@", f"{role}@"))
            session = project.start_session(role)
            item = project.next_candidate(session)
            assert item is not None, role
            _label_at_a_human_pace(project, session, item.candidate_id)
            assert project.server_problems is None
            project.close()


def test_every_table_refuses_every_kind_of_write(arena):
    pg, url, stage, admin, attacker, before, tmp_path = arena
    for statement in _dml(admin, stage):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            attacker.execute(statement)
    assert hostile.others_digest(admin, stage) == stage.others_digest


@pytest.mark.slow
def test_every_function_with_hostile_arguments_hurts_nobody(arena):
    pg, url, stage, admin, attacker, before, tmp_path = arena
    fns = hostile.functions(admin, stage.schema, "hana")
    names = {f.name for f in fns}
    assert {"add_label", "claim", "undo", "set_note", "start_session", "end_session",
            "release", "label_feed"} <= names
    assert not names & {"stamp_change", "notify_change", "label_guideline", "refuse"}
    hostile.attack(attacker, admin, stage, hostile.fast_calls(fns, stage))
    assert stage.calls > 200
    # The valid calls went through (so each hostile one was refused for its own value).
    assert {"add_label", "claim", "undo", "set_note", "start_session"} <= set(stage.accepted)
    _unharmed(pg, url, stage, admin, before, tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_random_hostile_calls_hurt_nobody(arena):
    pg, url, stage, admin, attacker, before, tmp_path = arena
    fns = hostile.functions(admin, stage.schema, "hana")
    for seed in range(4):
        hostile.attack(attacker, admin, stage, hostile.random_calls(fns, stage, 1500, seed))
    hostile.attack(attacker, admin, stage, hostile.fast_calls(fns, stage))
    _unharmed(pg, url, stage, admin, before, tmp_path)
