"""Nobody can stall the team: a statement kept running on the write lock is ended.

``tana`` labels inside one statement that then keeps running (``pg_sleep``), so her
connection is active, not idle in a transaction, and holds the project's write lock all
the while; ``tben``'s next label waits for the server's bound, not for her: the server
ends her statement and his label is stored. Hers is not.
"""

from __future__ import annotations

import threading

import psycopg
import pytest

from tests.pg.team_setup import publish


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Annotators ``tana`` (who holds the lock) and ``tben``, on a 30-candidate project."""
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    publish(pg, pg_url(), tmp_path, n=30, annotators=("tana", "tben"), leads=("tlead",),
            audit_rate=0.0, retest_rate=0.0, overlap_rate=0.0)
    return pg, f"triage_{project_name}"


def _holding(pg, s: str, role: str) -> bool:
    with pg.connect() as admin:
        return bool(admin.execute(
            "SELECT count(*) FROM pg_locks k JOIN pg_stat_activity a ON a.pid = k.pid "
            f"WHERE k.relation = '{s}.serial'::regclass AND k.granted AND a.usename = %s "
            "AND a.wait_event_type IS DISTINCT FROM 'Lock'", [role]).fetchone()[0])


def _label(conn, s: str, session: int, candidate: int, uid: str, tail: str = "") -> int:
    return conn.execute(f"SELECT {s}.add_label(%s, %s, %s, 'literal', 'triage', 1, NULL, "
                        f"NULL){tail}", [uid, candidate, session]).fetchone()[0]


@pytest.mark.slow   # his label waits out the server's bound on a held lock (2 s)
def test_a_statement_kept_running_on_the_write_lock_stalls_nobody(team):
    pg, s = team
    ana = pg.connect("tana")
    ben = pg.connect("tben")
    ben.execute("SET statement_timeout = '20s'")   # a hang fails the test, never blocks it
    free = [r[0] for r in ben.execute(f"SELECT id FROM {s}.candidates ORDER BY id LIMIT 2")]
    mine = ana.execute(f"SELECT {s}.start_session('desk', 'test')").fetchone()[0]
    his = ben.execute(f"SELECT {s}.start_session('desk', 'test')").fetchone()[0]
    assert ana.execute(f"SELECT {s}.claim(%s, %s)", [free[0], mine]).fetchone()[0]
    assert ben.execute(f"SELECT {s}.claim(%s, %s)", [free[1], his]).fetchone()[0]
    ana.execute("SET statement_timeout = 0")   # she lifts what she can
    outcome: list[BaseException | int] = []

    def hold() -> None:
        try:
            outcome.append(_label(ana, s, mine, free[0], "u-stall-hold-1", ", pg_sleep(120)"))
        except psycopg.Error as error:
            outcome.append(error)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        while holder.is_alive() and not _holding(pg, s, "tana"):
            holder.join(0.05)
        assert holder.is_alive(), outcome   # she holds the lock, still running
        assert _label(ben, s, his, free[1], "u-stall-wait-1") > 0
    finally:
        holder.join(150)
        ana.close()
    assert outcome and isinstance(outcome[0], psycopg.OperationalError)
    with pg.connect() as admin:
        rows = admin.execute(f"SELECT a.name, l.candidate_id FROM {s}.labels l JOIN "
                             f"{s}.annotators a ON a.id = l.annotator_id ORDER BY l.id"
                             ).fetchall()
    assert rows == [("tben", free[1])]
    ben.close()


@pytest.mark.slow   # the lead's init waits out its bound on a held lock (4 s)
@pytest.mark.parametrize("hold", ["an open transaction", "the setup lock"])
def test_an_annotator_holding_locks_never_hangs_the_leads_init(team, pg_url, capsys, hold):
    """Re-running ``server init`` meets her lock: it says so and gives up, never hangs."""
    from triage.cli.program import main
    from triage.store.pg.functions import lock_key

    pg, s = team
    ana = pg.connect("tana", autocommit=False)
    ana.execute("SET idle_in_transaction_session_timeout = 0")   # she turns the role's off
    if hold == "an open transaction":
        session = ana.execute(f"SELECT {s}.start_session('desk', 'test')").fetchone()[0]
        ana.execute(f"SELECT {s}.claim(1, %s)", [session])   # a lock on the leases' table
    else:
        ana.execute("SELECT pg_advisory_lock(%s)", [lock_key(s.removeprefix("triage_"))])
    codes: list[int] = []
    init = threading.Thread(target=lambda: codes.append(
        main(["server", "init", pg_url(), "--annotator", "tben"])))
    init.start()
    try:
        init.join(120)   # a hang fails the test (her connection is closed below either way)
        assert not init.is_alive()
    finally:
        ana.close()
        init.join(120)
    assert codes == [2]
    assert "another connection holds a lock" in capsys.readouterr().err
