"""Cooperative desks are never refused: whatever the real dispatcher serves, the server takes.

Three desks of two annotators (one with two desks) on one server, with the bandit over two
models and the learned ranking, overlap, audit and re-test items, skips, undos, changes of
mind and restarts, chosen at random (seeded). Meanwhile the lead publishes cal snapshots
and changes what the project follows (with overlap on, the active model too, which redraws
the overlap plan while desks show its items); some desks are reopened on the new settings,
one pulls everything as a desk with a live listener does, the others keep what they opened
with. Every label a desk sends must be taken.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from tests.pg.team_setup import publish
from triage.base.errors import BusyError
from triage.project import open_project
from triage.project.history import change_decision, recent_decisions

pytest.importorskip("sklearn")

STEPS = 400


@dataclass
class Desk:
    role: str
    cache: str
    project: Any = None
    session: Any = None
    current: Any = None


def _open(desk: Desk, url, monkeypatch) -> None:
    monkeypatch.setenv("TRIAGE_CACHE_DIR", desk.cache)
    desk.project = open_project(url(desk.role))
    desk.session = desk.project.start_session(desk.role)
    desk.current = None


def _next(desk: Desk):
    while True:
        try:
            return desk.project.next_candidate(desk.session)
        except BusyError:
            continue


# What the lead changes during a run, by step, and whether a desk's candidate stays on her
# screen between her turns (while the others and the lead work on). A new active model
# redraws the overlap plan, which a desk open since before does not follow: it serves items
# of its old plan (the one on her screen, or all of it), which the server takes from a
# session that started while that plan was in force.
SCENARIOS = {
    "overlap": (0.3, True, {at: {"queue_mode": mode, "active_model": model} for at, mode, model in (
        (60, "follow", "m2"), (100, "follow", "m1"), (140, "follow", "m2"),
        (200, "pets", "m1"), (260, "follow", "m2"), (320, "pets", "m1"))}),
    "models": (0.0, False, {100: {"queue_mode": "follow", "active_model": "m2"},
                     140: {"queue_mode": "follow", "active_model": "cal"},
                     200: {"queue_mode": "pets", "active_model": "m1"}}),
}


def _lead_step(step: int, lead, changes: dict, desks: list[Desk], url, monkeypatch) -> None:
    """What the lead does during the run, and which desks follow it."""
    if step in (50, 170):
        lead.link.pull()   # the labels so far, as the lead's live window has them
        lead.refresh()
        assert lead.train_cal(force=True) is not None
    if step in changes:
        lead.update_settings(**changes[step])
        reopened = desks[2 if step < 140 else 1]   # follows the new settings; others keep theirs
        reopened.project.close()
        _open(reopened, url, monkeypatch)


def _desk_step(desk: Desk, rng: random.Random, counts: dict[str, int], held: bool) -> None:
    """One thing an annotator does at her desk; every label must be taken."""
    project, session = desk.project, desk.session
    act = rng.random()
    if act < 0.07:
        if project.undo(session) is not None:
            counts["undo"] += 1
            desk.current = None      # the desk shows the candidate taken back next
        return
    if act < 0.12:
        decisions = recent_decisions(project, session, 10)
        if decisions:
            decision = rng.choice(decisions)
            other = "idiom" if decision.value != "idiom" else "literal"
            change_decision(project, session, decision, other)
            counts["change"] += 1
        return
    if act < 0.14:
        project.end_session(session)
        desk.session, desk.current = project.start_session(desk.role), None
        counts["restart"] += 1
        return
    if desk.current is None:
        desk.current = _next(desk)
        if desk.current is None or held:   # held: on her screen until her next turn
            return
    value = rng.choices(["idiom", "literal", None], weights=[3, 6, 1])[0]
    project.record_label(session, desk.current.candidate_id, value, seconds=1.0)
    counts[desk.current.kind] += 1
    counts["skip"] += value is None
    desk.current = None


@pytest.mark.slow   # a few hundred labels through three desks and the lead's fits
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_cooperative_desks_are_never_refused(pg, pg_url, project_name, tmp_path, monkeypatch,
                                             scenario):
    overlap, held, changes = SCENARIOS[scenario]
    publish(pg, pg_url(), tmp_path, n=400, annotators=("pa", "pb"), leads=("plead",),
            queue_mode="bandit", learn=True, overlap_rate=0.0, audit_rate=0.05,
            retest_rate=0.05)
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "lead"))
    lead = open_project(pg_url("plead"))
    if overlap:
        lead.update_settings(overlap_rate=overlap)   # the lead's window stores the plan
    desks = [Desk(role, str(tmp_path / f"desk{i}")) for i, role in enumerate(("pa", "pa", "pb"))]
    for desk in desks:
        _open(desk, pg_url, monkeypatch)
    rng = random.Random(scenario)
    counts: dict[str, int] = dict.fromkeys(
        ("triage", "overlap", "audit", "retest", "skip", "undo", "change", "restart"), 0)
    try:
        for step in range(STEPS):
            _lead_step(step, lead, changes, desks, pg_url, monkeypatch)
            if step % 10 == 0:   # the first desk pulls everything, as a live listener does
                desks[0].project.link.pull()
            _desk_step(rng.choice(desks), rng, counts, held)
    finally:
        for desk in desks:
            desk.project.close()
        lead.close()
    assert counts["triage"] > 100 and counts["skip"] and counts["undo"] and counts["change"]
    assert counts["audit"] and counts["retest"] and counts["restart"], counts
    assert counts["overlap"] or not overlap
    s = f"triage_{project_name}"
    with pg.connect() as conn:
        served_by = {r[0] for r in conn.execute(
            f"SELECT DISTINCT served_by FROM {s}.labels WHERE kind = 'triage'")}
    assert {"m1", "m2", "cal"} <= served_by   # every order was served from


@pytest.mark.slow   # six desk processes labelling at once
@pytest.mark.timeout(600)
def test_desks_racing_for_the_head_are_never_refused(pg, pg_url, project_name, tmp_path):
    """Four desks of one annotator and two of another, each its own process, race for the
    same head of the ranking: every label is taken (a refusal ends a desk with an error)."""
    from tests.pg.test_team_desks import _desk, check_team_run

    roles = ("race_a",) * 4 + ("race_b",) * 2
    publish(pg, pg_url(), tmp_path, n=3000, annotators=tuple(sorted(set(roles))), overlap_rate=0.05,
            audit_rate=0.0, retest_rate=0.0)
    desks = [_desk(pg_url(role), role, 150, tmp_path / f"cache{i}")
             for i, role in enumerate(roles)]
    outputs = [desk.communicate(timeout=500) for desk in desks]
    check_team_run(pg, f"triage_{project_name}", desks, outputs, 150 * len(roles))
