"""The hostile annotator: every function it may execute, with arguments meant to hurt.

The functions come from the catalog (``pg_proc`` and ``has_function_privilege``), so a
function added later is attacked without anyone listing it here. Each call starts from a
valid argument vector and replaces one argument (the fast part) or several at random
(the slow part) with a hostile value; a call that the server accepts is checked at once
against every rule the server promises, then its effects are rolled back by the
superuser, so the next call meets the same project.
"""

from __future__ import annotations

import math
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg

LEASE_SLACK_S = 2.0
BIG = 2**63 - 1


@dataclass(frozen=True)
class Function:
    """One function of the project schema the attacker may execute."""

    name: str
    args: tuple[str, ...]      # parameter names
    types: tuple[str, ...]     # their SQL types


@dataclass
class Stage:
    """The project as the attack found it, and what the checks need to know."""

    schema: str
    attacker: str
    attacker_id: int
    session: int               # the attacker's open session
    label: int                 # one of the attacker's labels
    other_session: int         # another annotator's session
    other_label: int           # another annotator's label
    candidate: int             # a candidate nobody has labelled
    secrets: tuple[str, ...]   # strings the attacker must never read (gold, others' notes)
    others_digest: str = ""
    accepted: list[str] = field(default_factory=list)
    calls: int = 0


def functions(conn: Any, schema: str, role: str) -> list[Function]:
    """Every function of ``schema`` that ``role`` may execute, from the catalog."""
    rows = conn.execute(
        "SELECT p.proname, coalesce(p.proargnames[1:p.pronargs], '{}'), "
        "array(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) t) "
        "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = %s AND has_function_privilege(%s, p.oid, 'EXECUTE') "
        "ORDER BY p.proname", [schema, role]).fetchall()
    return [Function(name, tuple(args), tuple(types)) for name, args, types in rows]


def hostile_values(kind: str, stage: Stage) -> list[Any]:
    """Values of SQL type ``kind`` chosen to break a careless function."""
    values: dict[str, list[Any]] = {
        "bigint": [-1, 0, BIG, -BIG - 1, 10**12, None, stage.other_session, stage.other_label],
        "double precision": [math.nan, math.inf, -math.inf, -5000.0, 1e18, 1e300, None,
                             86400.5, -0.0],
        "text": ["adjudication", "evil", "", "x" * 20_000, "'; DROP TABLE labels; --", None,
                 "certify", "idiom", "0" * 65],
        "bigint[]": [[], [-1, BIG], None, [stage.other_label]],
    }
    if kind not in values:
        raise AssertionError(f"the hostile suite has no values of type {kind}: add some")
    return values[kind]


def valid_value(name: str, kind: str, stage: Stage) -> Any:
    """A value the function accepts for parameter ``name``, so one hostile value is tested."""
    by_name: dict[str, Any] = {
        "p_session": stage.session, "p_candidate": stage.candidate, "p_value": "idiom",
        "p_kind": "triage", "p_seconds": 1.0, "p_note": "fine", "p_served_by": None,
        "p_label": stage.label, "p_after": 0, "p_only": None, "p_host": "desk",
        "p_version": "1", "p_uid": f"hostile-{uuid.uuid4().hex[:20]}",
    }
    if name in by_name:
        return by_name[name]
    return {"bigint": 1, "double precision": 1.0, "text": "x", "bigint[]": None}.get(kind)


def fast_calls(fns: list[Function], stage: Stage) -> list[tuple[Function, list[Any]]]:
    """Every function, once with valid arguments and once per hostile value per argument."""
    out = []
    for fn in fns:
        base = [valid_value(n, t, stage) for n, t in zip(fn.args, fn.types)]
        out.append((fn, base))
        for i, kind in enumerate(fn.types):
            for value in hostile_values(kind, stage):
                args = [valid_value(n, t, stage) for n, t in zip(fn.args, fn.types)]
                args[i] = value
                out.append((fn, args))
    return out


def random_calls(fns: list[Function], stage: Stage, n: int, seed: int
                 ) -> list[tuple[Function, list[Any]]]:
    """``n`` calls with each argument hostile or valid at random (reproducibly)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        fn = rng.choice(fns)
        args = [rng.choice(hostile_values(t, stage)) if rng.random() < 0.5
                else valid_value(name, t, stage) for name, t in zip(fn.args, fn.types)]
        out.append((fn, args))
    return out


def attack(attacker: Any, admin: Any, stage: Stage, calls: list[tuple[Function, list[Any]]]
           ) -> None:
    """Make each call as the attacker; after an accepted one, check the rules and undo it."""
    for fn, args in calls:
        marks = ", ".join(["%s"] * len(args))
        stage.calls += 1
        # As a desk would: the candidate is served (leased) to the session first.
        attacker.execute(f"SELECT {stage.schema}.claim(%s, %s)", [stage.candidate, stage.session])
        try:
            rows = attacker.execute(f"SELECT * FROM {stage.schema}.{fn.name}({marks})",
                                    args).fetchmany(5000)
        except psycopg.OperationalError:
            raise
        except psycopg.Error:
            continue   # refused: what a hostile call should meet
        stage.accepted.append(fn.name)
        read_nothing_secret(stage, fn, rows)
        check_rules(admin, stage, f"{fn.name}{tuple(args)!r:.200}")
        restore(admin, stage)


def read_nothing_secret(stage: Stage, fn: Function, rows: list[Any]) -> None:
    """No gold, no other annotator's note or value, no score in what the attacker read."""
    for row in rows:
        for cell in row:
            text = cell.decode("latin-1") if isinstance(cell, bytes | memoryview) else str(cell)
            assert not any(s in text for s in stage.secrets), (fn.name, row)
    if fn.name == "ranking_feed":
        assert all(r[2] is None for r in rows), "the attacker read scores"


def check_rules(admin: Any, stage: Stage, call: str) -> None:
    """Every promise of the server, checked on the committed state after an accepted call."""
    s, me = stage.schema, stage.attacker_id
    bad = admin.execute(
        f"SELECT l.id, l.kind, l.value, l.seconds, length(l.note) FROM {s}.labels l "
        f"WHERE l.annotator_id = %s AND (l.kind NOT IN ('triage', 'overlap', 'audit', "
        "'retest') OR NOT (l.seconds >= 0 AND l.seconds <= 86400) "
        f"OR length(l.note) > 10000 OR l.candidate_id NOT IN (SELECT id FROM {s}.candidates) "
        f"OR (l.value IS NOT NULL AND l.value NOT IN ('idiom', 'literal')) "
        f"OR l.session_id NOT IN (SELECT id FROM {s}.sessions WHERE annotator_id = %s) "
        "OR l.created_at < to_char((now() - interval '1 hour') AT TIME ZONE 'UTC', "
        "'YYYY-MM-DD\"T\"HH24:MI:SS'))", [me, me]).fetchall()
    assert not bad, (call, bad)
    leases = admin.execute(
        f"SELECT count(*), coalesce(max(c.expires_at - extract(epoch FROM now())), 0), "
        f"count(DISTINCT c.session_id) FROM {s}.claims c").fetchone()
    assert leases[1] <= admin.execute(f"SELECT {s}.lease_seconds()").fetchone()[0] + \
        LEASE_SLACK_S, (call, leases)
    assert leases[0] == leases[2], (call, "two leases in one session")
    sessions = admin.execute(f"SELECT count(*) FROM {s}.sessions WHERE annotator_id = %s "
                             "AND ended_at IS NULL", [me]).fetchone()[0]
    assert sessions <= 4, (call, sessions)
    assert others_digest(admin, stage) == stage.others_digest, (call, "others' rows changed")


def others_digest(admin: Any, stage: Stage) -> str:
    """A digest of every row the attacker must not change (all but their own)."""
    s = stage.schema
    parts = [f"SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM {q} t"
             for q in (f"(SELECT * FROM {s}.labels WHERE annotator_id <> {stage.attacker_id})",
                       f"(SELECT * FROM {s}.sessions WHERE annotator_id <> {stage.attacker_id})",
                       f"{s}.candidates", f"{s}.settings", f"{s}.plan", f"{s}.models",
                       f"{s}.rankings", f"{s}.certifications", f"{s}.guidelines",
                       f"{s}.project", f"(SELECT id, name, hourly_rate FROM {s}.annotators)")]
    return "/".join(admin.execute(p).fetchone()[0] for p in parts)


def snapshot_own(admin: Any, stage: Stage) -> Any:
    """The attacker's own label and session rows, as they were before the attack."""
    s = stage.schema
    return (admin.execute(f"SELECT id, note, undone_at, undo_seq FROM {s}.labels "
                          "WHERE annotator_id = %s", [stage.attacker_id]).fetchall(),
            admin.execute(f"SELECT id, ended_at FROM {s}.sessions WHERE annotator_id = %s",
                          [stage.attacker_id]).fetchall())


_BASELINE: dict[str, Any] = {}


def remember(admin: Any, stage: Stage) -> None:
    """Record the state :func:`restore` puts back after each accepted call."""
    stage.others_digest = others_digest(admin, stage)
    _BASELINE[stage.schema] = snapshot_own(admin, stage)


def restore(admin: Any, stage: Stage) -> None:
    """Put the attacker's rows back as they were (the superuser's repair)."""
    s = stage.schema
    labels, sessions = _BASELINE[stage.schema]
    with admin.transaction():
        admin.execute(f"DELETE FROM {s}.claims")
        admin.execute(f"DELETE FROM {s}.note_edits")   # the pace of her note edits
        admin.execute(f"DELETE FROM {s}.labels WHERE annotator_id = %s AND NOT id = ANY(%s)",
                      [stage.attacker_id, [r[0] for r in labels]])
        for label_id, note, undone_at, undo_seq in labels:
            admin.execute(f"UPDATE {s}.labels SET note = %s, undone_at = %s, undo_seq = %s "
                          "WHERE id = %s AND (note, undone_at, undo_seq) IS DISTINCT FROM "
                          "(%s, %s, %s)",
                          [note, undone_at, undo_seq, label_id, note, undone_at, undo_seq])
        admin.execute(f"DELETE FROM {s}.sessions WHERE annotator_id = %s AND NOT id = ANY(%s)",
                      [stage.attacker_id, [r[0] for r in sessions]])
        for session_id, ended_at in sessions:
            admin.execute(f"UPDATE {s}.sessions SET ended_at = %s WHERE id = %s "
                          "AND ended_at IS DISTINCT FROM %s", [ended_at, session_id, ended_at])
