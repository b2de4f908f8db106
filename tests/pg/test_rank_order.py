"""A triage label counts in ranking order: the server, not the desk, says what is next.

``oana`` (the attacker, her own login role at a SQL prompt) leases candidates far down the
ranking with ``claim`` and labels them ``triage``: the server refuses, and the lead's
status and advice do not move. What she was served at the head counts. Holding row locks
on the head of the queue does not make the server refuse the other desks' labels.
"""

from __future__ import annotations

import json

import psycopg
import pytest

from tests.pg.team_setup import add_label, attacked_team
from tests.pg.team_setup import claim as _claim
from tests.pg.team_setup import desk_session as _session
from tests.pg.team_setup import one as _one
from triage.cli.program import main
from triage.project import open_project
from triage.project.demo import simulate
from triage.store.pg.order import WINDOW


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Lead ``olead``, annotators ``oana`` (the attacker) and ``oben`` (who labelled 20)."""
    return attacked_team(pg, pg_url, project_name, tmp_path, monkeypatch, prefix="o",
                         n=150, labelled=20)


def _label(conn, s: str, session: int, candidate: int, value: str | None = "idiom",
           kind: str = "triage") -> int:
    return add_label(conn, s, session, candidate, value, kind, uid_prefix="u-order")


def _free_in_rank_order(pg, s: str) -> list[int]:
    """Unlabelled candidates, best first under m1 (the active model: ids in key order)."""
    with pg.connect() as conn:
        return [r[0] for r in conn.execute(
            f"SELECT id FROM {s}.candidates WHERE id NOT IN (SELECT candidate_id FROM "
            f"{s}.labels WHERE undone_at IS NULL) ORDER BY id").fetchall()]


def _lead_view(url, capsys, tmp_path) -> tuple:
    """What the lead decides from: status, agreement and advice (``--json``), and the export."""
    out = []
    for command in (["status"], ["agree"], ["advise"]):
        capsys.readouterr()
        assert main([*command, url("olead"), "--json"]) == 0
        out.append(json.loads(capsys.readouterr().out))
    export = tmp_path / "export.csv"
    assert main(["export", url("olead"), str(export)]) == 0
    out.append(export.read_text())
    return tuple(out)


def test_hand_picked_labels_far_down_the_ranking_are_refused(team, capsys, tmp_path):
    pg, url, s = team
    free = _free_in_rank_order(pg, s)
    # The positives furthest down (what moved Quant from 57 % to 9 %): twelve of them.
    picked = [c for c in reversed(free) if c % 3 == 0][:12]
    with pg.connect("oana") as ana:
        session = _session(ana, s)
        before = _lead_view(url, capsys, tmp_path)
        for candidate in picked:
            assert _claim(ana, s, session, candidate)   # a lease is no licence
            with pytest.raises(psycopg.Error, match="ranking order"):
                _label(ana, s, session, candidate)
            with pytest.raises(psycopg.Error, match="ranking order"):
                _label(ana, s, session, candidate, value=None)   # nor a skip
        with pg.connect() as admin:
            assert _one(admin, f"SELECT count(*) FROM {s}.labels l JOIN {s}.annotators a "
                               "ON a.id = l.annotator_id WHERE a.name = 'oana'") == 0
        assert _lead_view(url, capsys, tmp_path) == before
        # What the server would serve next counts: the head of the ranking is hers to label.
        head = free[0]
        assert _claim(ana, s, session, head)
        assert _label(ana, s, session, head) > 0


def test_the_window_is_the_first_free_candidates_of_the_ranking(team):
    pg, _url, s = team
    free = _free_in_rank_order(pg, s)
    with pg.connect("oana") as ana, pg.connect("oben") as ben:
        session = _session(ana, s)
        assert _claim(ana, s, session, free[WINDOW])
        with pytest.raises(psycopg.Error, match="ranking order"):
            _label(ana, s, session, free[WINDOW])   # WINDOW free candidates come first
        # Her own other desks holding the head move her on no further.
        for candidate in free[:3]:
            assert _claim(ana, s, _session(ana, s), candidate)
        with pytest.raises(psycopg.Error, match="ranking order"):
            _label(ana, s, session, free[WINDOW])
        # Another annotator's lease is not free: with one held ahead, her candidate is in reach.
        assert _claim(ben, s, _session(ben, s), free[3])
        assert _label(ana, s, session, free[WINDOW]) > 0


def test_an_undone_label_is_served_again_and_counts(team):
    pg, url, s = team
    desk = open_project(url("oana"))
    session = desk.start_session("oana")
    item = desk.next_candidate(session)
    desk.record_label(session, item.candidate_id, "idiom")
    # Others label past it meanwhile; then she takes it back: far behind the head now, and
    # still hers to decide again.
    ben = open_project(url("oben"))
    simulate(ben, WINDOW + 5, "oben")
    ben.close()
    assert desk.undo(session) == item.candidate_id
    again = desk.next_candidate(session)
    assert again.candidate_id == item.candidate_id
    desk.record_label(session, again.candidate_id, "literal")
    desk.close()


def test_row_locks_held_on_the_head_do_not_get_other_desks_refused(team):
    """She locks more than WINDOW head candidates in open transactions (one claim per session
    and transaction, so several connections over her four sessions): the desks skip them,
    and the server counts what another transaction is claiming as taken, so their labels
    count."""
    pg, url, s = team
    free = _free_in_rank_order(pg, s)
    held = free[:WINDOW + 4]
    with pg.connect("oana") as ana:
        sessions = [_session(ana, s) for _ in range(4)]
    holders = []
    try:
        for at in range(0, len(held), len(sessions)):
            conn = pg.connect("oana", autocommit=False)
            holders.append(conn)
            conn.execute("SET idle_in_transaction_session_timeout = 0")
            for session, candidate in zip(sessions, held[at:at + len(sessions)]):
                assert _claim(conn, s, session, candidate)
        desk = open_project(url("oben"))
        session = desk.start_session("oben")
        for _ in range(3):
            item = desk.next_candidate(session)
            assert item.candidate_id not in held
            desk.record_label(session, item.candidate_id, "literal")
        desk.close()
    finally:
        for conn in holders:
            conn.close()


def test_server_init_gives_a_labelled_project_its_frontiers(team):
    """A project set up by an earlier version has labels but no frontiers: ``server init``
    walks past its labelled head once, so its desks' first leases need not."""
    pg, url, s = team
    with pg.connect() as admin:
        admin.execute(f"DELETE FROM {s}.rank_frontier")
    assert main(["server", "init", url(), "--lead", "olead", "--annotator", "oana",
                 "--annotator", "oben"]) == 0
    with pg.connect() as admin:
        assert admin.execute(f"SELECT key, pos FROM {s}.rank_frontier").fetchall() == [
            (f"m{_one(admin, f'SELECT min(id) FROM {s}.models')}", 20)]
