"""Prodigy JSONL: read a ``prodigy db-out`` export, write labels that ``prodigy db-in`` takes.

Reading: one JSON object per line. ``text`` is the candidate; its key is ``meta.key``,
else ``_input_hash``. An ``answer`` makes the line a label event: ``accept`` of a binary
task (``label``) is that label, ``reject`` the scheme's other label (or
``--reject-label``), ``ignore`` a skip; a choice task (``accept: [..]``) takes its one
accepted option, a rejected choice is a skip. ``_annotator_id`` (else ``_session_id``)
names the annotator and ``_session_id`` the session, ``_timestamp`` the time. Numbers in
``meta`` named ``score_<model>`` are that model's score, a plain ``score`` is model
``prodigy``. A line without ``answer`` is a candidate only.

Writing: one choice task per label event, with ``meta`` holding the key, rank and every
model's score, and ``_triage`` the event's kind, time, seconds and note.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from triage.base.errors import Problem, TriageError
from triage.ingest.exchange import Exchange, ExchangeLabel, fail, iso_time

ANSWERS = ("accept", "reject", "ignore")
PLAIN_SCORE_MODEL = "prodigy"


def _key(obj: dict[str, Any], text: str) -> str:
    meta: dict[str, Any] = obj["meta"] if isinstance(obj.get("meta"), dict) else {}
    for value in (meta.get("key"), obj.get("_input_hash")):
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return str(value)
    return "h" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def _scores(ex: Exchange, obj: dict[str, Any], key: str, where: str,
            problems: list[Problem]) -> None:
    meta = obj.get("meta")
    if not isinstance(meta, dict):
        return
    for name, value in meta.items():
        model = name[6:] if name.startswith("score_") else (
            PLAIN_SCORE_MODEL if name == "score" else None)
        if not model:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            problems.append(ex.problem(where, f"meta.{name}: {value!r} is not a finite number"))
            continue
        ex.scores.setdefault(model, {})[key] = float(value)


def _label(ex: Exchange, obj: dict[str, Any], key: str, where: str, default_annotator: str,
           problems: list[Problem]) -> None:
    answer = obj.get("answer")
    if answer not in ANSWERS:
        problems.append(ex.problem(where, f"answer {answer!r} is not one of {', '.join(ANSWERS)}"))
        return
    value: str | None = None
    rejected = None
    accepted = obj.get("accept")
    if answer == "accept" and isinstance(accepted, list):
        if len(accepted) != 1 or not isinstance(accepted[0], str | int):
            problems.append(ex.problem(where, f"accept {accepted!r}: Triage takes exactly one "
                                       "accepted option per task"))
            return
        value = str(accepted[0])
    elif answer == "accept" or (answer == "reject" and not isinstance(accepted, list)):
        label = obj.get("label")
        if not isinstance(label, str) or not label.strip():
            problems.append(ex.problem(where, f"an {answer}ed binary task needs a 'label'"))
            return
        value, rejected = (label, None) if answer == "accept" else (None, label)
    annotator = obj.get("_annotator_id") or obj.get("_session_id") or default_annotator
    extra: dict[str, Any] = obj["_triage"] if isinstance(obj.get("_triage"), dict) else {}
    ex.labels.append(ExchangeLabel(
        key=key, annotator=str(annotator), value=value, rejected=rejected, where=where,
        session=str(obj.get("_session_id") or annotator),
        created_at=iso_time(extra.get("created_at")) or iso_time(obj.get("_timestamp")),
        seconds=float(extra.get("seconds") or 0.0), note=extra.get("note"),
        kind=extra.get("kind")))


def read_prodigy(path: str | Path, *, default_annotator: str = "prodigy") -> Exchange:
    """Read a Prodigy JSONL export; every problem is reported with its line."""
    path = Path(path)
    try:
        raw = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise TriageError(f"{path}: cannot be read as UTF-8 text ({error})") from error
    ex = Exchange(path, "prodigy")
    problems: list[Problem] = []
    for number, line in enumerate(raw.split("\n"), start=1):
        if not line.strip():
            continue
        where = str(number)
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(Problem(str(path), number, error.colno, f"not JSON: {error.msg}"))
            continue
        if not isinstance(obj, dict):
            problems.append(ex.problem(where, "a line must be a JSON object (one task)"))
            continue
        text = obj.get("text")
        if not isinstance(text, str) or not text.strip():
            problems.append(ex.problem(where, "'text' is missing or empty"))
            continue
        key = _key(obj, text)
        ex.add_candidate(key, text, where, problems)
        _scores(ex, obj, key, where, problems)
        if "answer" in obj:
            _label(ex, obj, key, where, default_annotator, problems)
    fail(problems)
    return ex


def _hash(*parts: str) -> int:
    """A stable signed 32-bit hash, the shape of Prodigy's ``_input_hash``/``_task_hash``."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big", signed=True)


def prodigy_lines(events: list[dict[str, Any]], options: list[str], dataset: str
                  ) -> Iterator[str]:
    """One JSONL line per label event (dicts from :func:`triage.project.exchange.events`)."""
    opts = [{"id": o, "text": o} for o in options]
    for e in events:
        answer = "ignore" if e["value"] is None else "accept"
        task = {
            "text": e["text"],
            "meta": {"key": e["key"], "rank": e["rank"],
                     **{f"score_{m}": s for m, s in e["scores"].items()}},
            "options": opts,
            "accept": [] if e["value"] is None else [e["value"]],
            "answer": answer,
            "_input_hash": _hash(e["key"]),
            "_task_hash": _hash(e["key"], *options),
            "_view_id": "choice",
            "_annotator_id": e["annotator"],
            "_session_id": f"{dataset}-{e['annotator']}",
            "_timestamp": e["timestamp"],
            "_triage": {"kind": e["kind"], "created_at": e["created_at"],
                        "seconds": e["seconds"], "note": e["note"], "session": e["session"]},
        }
        yield json.dumps(task, ensure_ascii=False, allow_nan=False) + "\n"
