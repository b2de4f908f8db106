"""The server's own time per statement of a run, from its log (``bench_pg.py import``).

PostgreSQL logs every statement's duration once ``log_min_duration_statement`` is 0
(:func:`log_every_statement`). After a run, :func:`statement_ms` reads the lines the run
added and sums them by what the statement did: the anchor's COPY, or our import's schema,
candidates' COPY, key, rankings, overlap plan, audit order and commit: work one backend
does, one statement after another. What comes after the COPY (:data:`TAIL`) cannot start
before the last row of the file has been read, whatever the client does.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

# (what the statement did, a pattern of its text); the first that matches names it.
KINDS: tuple[tuple[str, str], ...] = (
    ("COPY candidates", r"^COPY \S+\.candidates "),
    ("candidates' key", r"^ALTER TABLE \S+\.candidates ADD PRIMARY KEY"),
    ("rankings", r"^COPY \S+\.rankings |^INSERT INTO \S+\.models"),
    ("overlap plan", r"^COPY \S+\.plan |^ALTER TABLE \S+\.plan ADD PRIMARY KEY"),
    ("audit order", r"^COPY \S+\.audit_order |^DELETE FROM \S+\.audit_order"),
    ("commit", r"^COMMIT"),
    ("COPY (psql)", r"^COPY\s+plain_"),
)
# What matched none: before our COPY of the candidates (the schema, made in the import's
# transaction, and the tables emptied for it), or after it (project rows, identities).
BEFORE, AFTER = "schema and set-up", "the rest"
# What the import's server does after the candidates' COPY has ended, one after another.
TAIL = ("candidates' key", "rankings", "overlap plan", "audit order", "commit", AFTER)
_LINE = re.compile(r"duration: ([0-9.]+) ms  (?:statement|parse <[^>]*>|bind <[^>]*>|"
                   r"execute <[^>]*>): (.*)")


def log_every_statement(run_sql: Callable[[str], None]) -> None:
    """Make the server log each statement's duration (``run_sql`` runs one command)."""
    run_sql("ALTER SYSTEM SET log_min_duration_statement = 0")
    run_sql("SELECT pg_reload_conf()")


def log_size(log: Path) -> int:
    """Where the server's log ends now (what a later :func:`statement_ms` starts after)."""
    return log.stat().st_size if log.exists() else 0


def statement_ms(log: Path, start: int, skip: str = "CHECKPOINT") -> dict[str, float]:
    """Milliseconds the server spent per kind of statement (:data:`KINDS`) in the lines
    written after byte ``start`` of ``log``, leaving out statements that begin with
    ``skip`` (the bench's own)."""
    with open(log, "rb") as handle:
        handle.seek(start)
        text = handle.read().decode("utf-8", "replace")
    out: dict[str, float] = {}
    for line in text.splitlines():
        found = _LINE.search(line)
        if found is None or found.group(2).lstrip().startswith(skip):
            continue
        statement = found.group(2).lstrip()
        kind = next((k for k, pattern in KINDS if re.search(pattern, statement)),
                    AFTER if "COPY candidates" in out else BEFORE)
        out[kind] = out.get(kind, 0.0) + float(found.group(1))
    return out


def print_statements(result: dict[str, Any], anchor_name: str) -> None:
    """The server's own statement time per kind (medians), and what ours spends after its
    COPY ends over the anchor's whole run: the part no client can overlap with reading."""
    anchor = result["anchor_s"]
    for name, runs in result["server_statement_ms"].items():
        kinds = sorted({k for run in runs for k in run}, key=lambda k: -max(
            run.get(k, 0.0) for run in runs))
        totals = [sum(run.values()) for run in runs]
        after = statistics.median(sum(v for k, v in run.items() if k in TAIL) for run in runs)
        print(f"server's statement time, {name} (median ms): " + ", ".join(
            f"{k} {statistics.median(run.get(k, 0.0) for run in runs):.0f}" for k in kinds)
            + f"; total {statistics.median(totals):.0f}"
            + ("" if name == anchor_name else f"; after the COPY {after:.0f} ms = "
               f"{after / 10 / anchor:.0f} % of {anchor_name}'s whole run"))


__all__ = ["AFTER", "BEFORE", "KINDS", "TAIL", "log_every_statement", "log_size", "print_statements",
           "statement_ms"]
