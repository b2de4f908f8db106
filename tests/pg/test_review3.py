"""A fourth hostile review: the cost of what the new server checks read for one label.

``wana`` (the attacker, her own login role at a SQL prompt) aims at the checks added last:
which ranking served a label (:mod:`triage.store.pg.served`), read under the project's
order lock that every desk's next label waits for.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.pg.team_setup import attacked_team, claim, desk_session, one
from triage.project import open_project
from triage.store.pg.catalog import ADVISORY
from triage.store.pg.served import PASSED_SPAN

_uids = iter(range(1, 10**6))
DEEP = 1_000_000   # positions of a ranking the order's walk has passed


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Bandit over m1 (ranks ids ascending) and m2 (descending); ``wben`` labelled 6."""
    return attacked_team(pg, pg_url, project_name, tmp_path, monkeypatch, prefix="w", n=80,
                         labelled=6, queue_mode="bandit")


def _label(conn, s: str, session: int, candidate: int, value: str | None,
           served_by: str | None) -> int:
    return one(conn, f"SELECT {s}.add_label(%s, %s, %s, %s, 'triage', 1, NULL, %s)",
               [f"u-review3-{next(_uids):06d}", candidate, session, value, served_by])


def _deep_ranking(pg, s: str, tail: list[int]) -> int:
    """m2's ranking as in a pool of a million whose walk has passed nearly all of it (the
    superuser stands in for a million labels), ending in ``tail``; its TOAST table."""
    ids = np.arange(10**9, 10**9 + DEEP - len(tail), dtype="<i8")
    ranking = np.concatenate([ids, np.asarray(tail, dtype="<i8")]).tobytes()
    with pg.connect() as conn:
        conn.execute(f"UPDATE {s}.rankings SET candidate_ids = %s WHERE model_id = "
                     f"(SELECT id FROM {s}.models WHERE name = 'm2')", [ranking])
        conn.execute(f"INSERT INTO {s}.rank_frontier (key, pos) SELECT 'm' || id, %s FROM "
                     f"{s}.models WHERE name = 'm2' ON CONFLICT (key) DO UPDATE SET pos = %s",
                     [DEEP, DEEP])
        return one(conn, f"SELECT reltoastrelid::bigint FROM pg_class WHERE oid = "
                         f"'{s}.rankings'::regclass")


def _free(pg, s: str) -> list[int]:
    with pg.connect() as conn:
        return [r[0] for r in conn.execute(
            f"SELECT id FROM {s}.candidates WHERE id NOT IN (SELECT candidate_id FROM "
            f"{s}.labels WHERE undone_at IS NULL) ORDER BY id")]


def _crafted(pg, s: str, toast: int, candidate: int, arm: str) -> tuple[str | None, int]:
    """She labels ``candidate`` (m1's head), undoes it and labels it again naming ``arm``:
    the arm stored, and the blocks of the rankings' TOAST table that last label read."""
    ana = pg.connect("wana", autocommit=False)
    try:
        session = desk_session(ana, s)
        assert claim(ana, s, session, candidate)
        first = _label(ana, s, session, candidate, "idiom", "m1")
        ana.execute(f"SELECT {s}.undo(%s, %s)", [first, session])
        assert claim(ana, s, session, candidate)
        ana.commit()
        before = one(ana, "SELECT pg_stat_get_xact_blocks_fetched(%s)", [toast])
        label = _label(ana, s, session, candidate, "idiom", arm)
        read = one(ana, "SELECT pg_stat_get_xact_blocks_fetched(%s)", [toast]) - before
        ana.commit()
    finally:
        ana.close()
    with pg.connect() as conn:
        return one(conn, f"SELECT served_by FROM {s}.labels WHERE id = %s", [label]), read


def test_a_crafted_label_reads_no_deep_prefix_of_a_ranking(team):
    """Undone, then labelled again naming another arm: the check whether that arm's walk
    passed it read the whole passed prefix (8 MB at a million positions) under the order
    lock, for every such label of hers. It reads at most the last PASSED_SPAN positions."""
    pg, _url, s = team
    toast = _deep_ranking(pg, s, [])
    stored, read = _crafted(pg, s, toast, _free(pg, s)[0], "m2")
    assert stored is None   # m2 never served it: no credit, as before
    span_blocks = 2 * PASSED_SPAN * 8 // 8192   # twice the blocks the span fills
    assert read <= span_blocks, (read, span_blocks)


def test_an_undone_candidate_just_passed_keeps_its_arm(team):
    """What the check is for still holds at that depth: a candidate the walk passed a little
    before the frontier, undone, is at the head of that order again."""
    pg, _url, s = team
    candidate = _free(pg, s)[0]
    toast = _deep_ranking(pg, s, [candidate, 10**12, 10**12 + 1])
    stored, _read = _crafted(pg, s, toast, candidate, "m2")
    assert stored == "m2"


def test_advisory_locks_cannot_fill_the_servers_lock_table(team, capsys):
    """Each advisory lock key is an entry of the server's one shared lock table: from one
    idle connection (no transaction, so no timeout ends it) she took keys until the table was
    full, and every other connection was refused, the lead's status and the other desks'
    next label too. ``server init`` prints what the administrator must revoke; once run,
    she takes none, and the lead and the team carry on."""
    import psycopg

    from triage.cli.program import main

    pg, url, s = team
    assert main(["server", "init", url(), "--lead", "wlead", "--annotator", "wana",
                 "--annotator", "wben"]) == 0
    printed = [line.strip() for line in capsys.readouterr().err.splitlines()
               if "advisory" in line or "TEMPORARY" in line]
    ana = pg.connect("wana")
    try:
        for statement in printed:
            pg.psql(statement)
        taken = 0
        try:
            for start in range(0, 40_000, 1000):
                ana.execute("SELECT count(pg_advisory_lock(k)) FROM "
                            "generate_series(%s::bigint, %s::bigint) k", [start, start + 999])
                taken += 1000
        except psycopg.Error:
            pass
        assert taken == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):   # nor temporary tables
            ana.execute("CREATE TEMPORARY TABLE t0 (x integer)")
        lead = open_project(url("wlead"))   # the lead's status answers
        assert lead.status() is not None
        lead.close()
        desk = open_project(url("wben"))
        session = desk.start_session("wben")
        item = desk.next_candidate(session)
        desk.record_label(session, item.candidate_id, "literal")
        desk.close()
    finally:
        ana.close()
        pg.psql("GRANT EXECUTE ON FUNCTION " + ", ".join(ADVISORY) + " TO PUBLIC; "
                "GRANT TEMPORARY ON DATABASE postgres TO PUBLIC")


def _until(pg, sql: str, params: list, tries: int = 200) -> bool:
    """Whether ``sql`` (as the superuser) turns true within ``tries`` polls 50 ms apart."""
    import time

    for _ in range(tries):
        with pg.connect() as conn:
            if one(conn, sql, params):
                return True
        time.sleep(0.05)
    return False


def test_a_sample_item_held_locked_lasts_no_longer_than_a_lease(team):
    """She holds the next certification item locked in a transaction kept open with her
    timeouts off: the others serve past it, but the item stayed undecided for as long as
    she kept her connection, and the lead's certificate (the decided prefix of the sample)
    with it. Like a lease, the lock lasts no longer than the lease length: the next desk
    that meets it ends her transaction, and the item is served again."""
    from triage.project.certify import start_certification

    pg, url, s = team
    pg.psql(f"INSERT INTO {s}.project(key, value) VALUES ('server_lease_seconds', '1') "
            "ON CONFLICT (key) DO UPDATE SET value = '1'")
    lead = open_project(url("wlead"))
    start_certification(lead)
    lead.close()
    with pg.connect() as conn:
        order = np.frombuffer(one(conn, f"SELECT sample_order FROM {s}.certifications "
                                        "WHERE ended_at IS NULL"), dtype="<i8").tolist()
    with pg.connect("wana") as ana:
        held = desk_session(ana, s)
    holder = pg.connect("wana", autocommit=False)
    try:
        holder.execute("SET idle_in_transaction_session_timeout = 0")
        holder.execute("SET statement_timeout = 0")
        assert claim(holder, s, held, order[0])
        pid = one(holder, "SELECT pg_backend_pid()")
        assert _until(pg, "SELECT clock_timestamp() - xact_start > interval '1.5 s' "
                          "FROM pg_stat_activity WHERE pid = %s", [pid])
        with pg.connect("wben") as ben:
            session = desk_session(ben, s)
            assert claim(ben, s, session, order[1])   # served past it, as before
            assert _until(pg, "SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity "
                              "WHERE pid = %s)", [pid]), "her transaction is still open"
            other = desk_session(ben, s)
            assert claim(ben, s, other, order[0])     # and the item is served again
    finally:
        holder.close()
