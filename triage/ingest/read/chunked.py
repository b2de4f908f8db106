"""The careful mode for a big CSV or TSV pool, in bounded memory: check as it streams.

The whole-file careful reader (:func:`triage.ingest.read.read_table`) holds every
field of the file as a Python string, eight times the file in memory; for a file of more
than :data:`~triage.ingest.read.rule.WHOLE_BYTES` the importer comes here instead. The file is parsed a few
megabytes of records at a time with the same checks and the same sentences (fields per
row, numbers, empty values, repeated keys, each naming its line); the rows that pass are
copied, numbers as Python writes them, to a plain CSV beside the file, which the fast
path then imports. Without ``--skip-invalid`` any problem raises one InputError naming
the first :data:`~triage.ingest.read.table.PROBLEMS_KEPT` and counting all; with it the bad
rows are left out and each is named, with its line and reason, in ``rejected``.

Memory: a chunk of records, the first occurrence of each key as a 64-bit hash and its
line (16 bytes a row), and the rejected rows.
"""

from __future__ import annotations

import csv
import itertools
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from triage.base.errors import InputError, Problem
from triage.ingest.read.careful import (
    Progress,
    check_header,
    fail,
    record_chunks,
    shorten,
    tick,
    to_float,
)
from triage.ingest.read.rule import format_of
from triage.ingest.read.table import PROBLEMS_KEPT

CHUNK_BYTES = 8 << 20      # text checked at a time
RECORDS = 1024             # records parsed at a time, then checked CHUNK_BYTES at a time


@dataclass
class Checks:
    """What to check, as read_table takes it."""

    numeric: list[str]
    required: list[str]
    nonempty: list[str]
    unique: str | None


@dataclass
class Cleaned:
    """The rows that passed, as a CSV for the fast mode, and the rows left out."""

    path: Path
    rows: int
    columns: list[str]
    rejected: list[tuple[int, dict[str, str], str]] = field(default_factory=list)


class _Keys:
    """The keys seen so far, as sorted 64-bit hashes with the line of each."""

    def __init__(self) -> None:
        self.hashes = np.empty(0, np.int64)
        self.lines = np.empty(0, np.int64)

    def repeats(self, keys: list[str], lines: list[int]) -> list[tuple[int, int]]:
        """(index in ``keys``, first line) of each key seen before; the rest are added."""
        hashes = np.fromiter(map(hash, keys), np.int64, len(keys))
        out: list[tuple[int, int]] = []
        fresh: list[int] = []
        first_in: dict[int, int] = {}
        at = np.searchsorted(self.hashes, hashes)
        known = (at < self.hashes.size) & (self.hashes[np.minimum(at, self.hashes.size - 1)]
                                           == hashes) if self.hashes.size else \
            np.zeros(len(keys), bool)
        for i, h in enumerate(hashes.tolist()):
            if known[i]:
                out.append((i, int(self.lines[at[i]])))
            elif h in first_in:
                out.append((i, lines[first_in[h]]))
            else:
                first_in[h] = i
                fresh.append(i)
        if fresh:
            order = np.argsort(np.concatenate([self.hashes, hashes[fresh]]), kind="stable")
            self.hashes = np.concatenate([self.hashes, hashes[fresh]])[order]
            self.lines = np.concatenate([self.lines, np.asarray(lines)[fresh]])[order]
        return out


def _records(path: Path, delimiter: str) -> Iterator[tuple[list[tuple[int, list[str]]], int]]:
    """(line, fields) records a chunk at a time, and the bytes read so far (approximately)."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        chunk: list[tuple[int, list[str]]] = []
        size = done = 0
        for records, starts in record_chunks(path, handle, delimiter, size=RECORDS):
            for line, record in zip(starts.tolist(), records):
                chunk.append((line, record))
                size += sum(map(len, record)) + len(record)
                if size >= CHUNK_BYTES:
                    done += size
                    yield chunk, done
                    chunk, size = [], 0
        if chunk:
            yield chunk, done + size


def clean_copy(path: Path, checks: Checks, skip_invalid: bool,
               progress: Progress | None) -> Cleaned:
    """Check ``path`` as it streams; its good rows as a CSV beside it (see the module)."""
    delimiter = "\t" if format_of(path) == "tsv" else ","
    chunks = _records(path, delimiter)
    columns, first = _header(path, chunks)
    fd, name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".clean.csv",
                                dir=path.parent if os.access(path.parent, os.W_OK) else None)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            cleaned = _check_all(path, checks, skip_invalid, progress, columns,
                                 itertools.chain([first], chunks), csv.writer(out))
        cleaned.path = Path(name)
        return cleaned
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def import_checked(path: Path, checks: Checks, skip_invalid: bool, progress: Progress | None,
                   stream: Callable[[Path], tuple[int, dict[str, int]] | None]
                   ) -> tuple[int, dict[str, int], int, str | None]:
    """Check ``path`` as it streams and import its good rows with ``stream``.

    ``stream`` is the fast mode, given the clean copy. Returns (rows, tied items per
    model, rows left out, the file naming them or None).
    """
    from triage.base.errors import TriageError

    cleaned = clean_copy(path, checks, skip_invalid, progress)
    try:
        if cleaned.rows == 0:
            n = len(cleaned.rejected)
            raise TriageError(f"{path}: no candidates to import ({n:,} row{'s' * (n != 1)} "
                              "rejected)")
        done = stream(cleaned.path)
    finally:
        cleaned.path.unlink(missing_ok=True)
    if done is None:
        raise TriageError(f"{path}: its checked rows could not be imported")
    return (done[0], done[1], len(cleaned.rejected),
            write_rejects(path, cleaned.columns, cleaned.rejected))


def write_rejects(path: Path, columns: list[str],
                  rejected: list[tuple[int, dict[str, str], str]]) -> str | None:
    """Write the rows left out, with their line and reason, to ``<stem>.rejected.csv``."""
    from triage.ingest.writer import write_table

    if not rejected:
        return None
    target = path.with_name(f"{path.stem}.rejected.csv")
    rows = ({"line": line, "reason": reason, **raw} for line, raw, reason in rejected)
    write_table(target, ["line", "reason", *columns], rows, fmt="csv")
    return str(target)


def _header(path: Path, chunks: Iterator[Any]) -> tuple[list[str], Any]:
    """The header names and the first chunk's data records."""
    for chunk, done in chunks:
        at = next((i for i, (_line, r) in enumerate(chunk) if r), None)
        if at is not None:
            line, header = chunk[at]
            return check_header(path, header, line), (chunk[at + 1:], done)
    raise fail(path, 1, None, "the file is empty; a header row is required")


def _check_all(path: Path, checks: Checks, skip_invalid: bool, progress: Progress | None,
               columns: list[str], chunks: Iterator[Any], writer: Any) -> Cleaned:
    """Check every chunk, write what passes; InputError (not skipping) at the end."""
    missing = [n for n in checks.required if n not in columns]
    if missing:
        has = ", ".join(repr(c) for c in columns) or "none"
        raise InputError([Problem(str(path), 1, n, f"required column {n!r} is missing; the "
                                  f"file has columns {has}") for n in missing])
    writer.writerow(columns)
    cleaned = Cleaned(Path(path), 0, columns)
    keys = _Keys()
    problems: list[tuple[int, str | int | None, str]] = []
    total = 0
    size = max(path.stat().st_size, 1)
    for item in chunks:
        chunk, done = item[0], item[1]
        found = _check_chunk(chunk, columns, checks, skip_invalid, keys, writer, cleaned)
        total += len(found)
        problems = sorted(problems + found, key=lambda p: p[0])[:PROBLEMS_KEPT]
        tick(progress, done, size)
        if found and not skip_invalid:
            writer = None   # nothing will be imported: only the problems are wanted now
    if problems and not skip_invalid:
        raise InputError([Problem(str(path), line, col, reason)
                          for line, col, reason in problems], total=total)
    return cleaned


def _check_chunk(chunk: list[tuple[int, list[str]]], columns: list[str], checks: Checks,
                 skip_invalid: bool, keys: _Keys, writer: Any,
                 cleaned: Cleaned) -> list[tuple[int, str | int | None, str]]:
    """Check one chunk as read_table does; write its good rows; (line, column, reason)s."""
    # long: the same checks as table._validate, in its order, for a chunk
    width = len(columns)
    problems: list[tuple[int, str | int | None, str]] = []
    rows: list[list[str]] = []
    lines: list[int] = []
    for line, record in chunk:
        if len(record) == width:
            rows.append(record)
            lines.append(line)
        elif record:
            reason = f"expected {width} fields, found {len(record)}"
            problems.append((line, None, reason))
            if skip_invalid:
                cleaned.rejected.append((line, dict(zip(columns, record)), reason))
    at = {name: columns.index(name) for name in columns}
    bad: dict[int, list[tuple[str, str]]] = {}
    numbers: dict[str, np.ndarray] = {}
    for name in checks.numeric:
        numbers[name], errors = to_float([r[at[name]] for r in rows])
        for i, reason in errors:
            bad.setdefault(i, []).append((name, reason))
    for name in checks.nonempty:
        for i, r in enumerate(rows):
            if not r[at[name]].strip():
                bad.setdefault(i, []).append((name, "empty value"))
    if checks.unique is not None:
        alive = [i for i in range(len(rows)) if not (skip_invalid and i in bad)]
        repeats = keys.repeats([rows[i][at[checks.unique]] for i in alive],
                               [lines[i] for i in alive])
        for j, first in repeats:
            value = rows[alive[j]][at[checks.unique]]
            bad.setdefault(alive[j], []).append(
                (checks.unique, f"duplicate value {shorten(value)} (first on line {first})"))
    for i, found in bad.items():
        problems.extend((lines[i], col, reason) for col, reason in found)
        if skip_invalid:
            cleaned.rejected.append((lines[i], dict(zip(columns, rows[i])), "; ".join(
                f"column {col}: {reason}" for col, reason in found)))
    if writer is not None and (skip_invalid or not problems):
        numeric = [(at[n], numbers[n]) for n in checks.numeric]
        for i, r in enumerate(rows):
            if i not in bad:
                for j, values in numeric:
                    r[j] = repr(float(values[i]))
                writer.writerow(r)
                cleaned.rows += 1
    cleaned.rejected.sort(key=lambda item: item[0])
    return problems
