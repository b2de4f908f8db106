"""Label Studio JSON: read an export (a list of tasks), write tasks to import there.

Reading: each task's ``data.text`` is the candidate; its key is ``data.key``, else the
task ``id``. ``predictions[].score`` is the score of model ``model_version``: the
positive class's score, so a prediction whose choice is another label gives
``1 − score`` (scores in [0, 1] only). ``annotations[]`` are label events: the one choice
of their ``choices`` result (none, or ``was_cancelled``: a skip), by ``completed_by``
(an email, a name or a user id), with ``lead_time`` seconds and ``created_at``.
Problems are reported with the JSON path of the task at fault.

Writing: every candidate as a task (text, key, rank and scores in ``data``), each
model's score as a prediction choosing the positive label, and each label event as an
annotation with its annotator, time and seconds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from triage.base.errors import Problem, TriageError
from triage.ingest.exchange import Exchange, ExchangeLabel, fail, iso_time

FROM_NAME = "label"
TO_NAME = "text"


def _choice(result: Any, where: str, ex: Exchange, problems: list[Problem]) -> tuple[bool, str | None]:
    """(readable, the single choice or None) of a result list."""
    if not isinstance(result, list):
        problems.append(ex.problem(where, "'result' must be a list"))
        return False, None
    choices = [r.get("value", {}).get("choices") for r in result
               if isinstance(r, dict) and r.get("type") == "choices"]
    if not choices:
        return True, None
    picked = choices[0]
    if len(choices) > 1 or not isinstance(picked, list) or len(picked) != 1:
        problems.append(ex.problem(where, f"choices {choices!r}: Triage takes exactly one "
                                   "choice per annotation"))
        return False, None
    return True, str(picked[0])


def _annotator(value: Any) -> str:
    if isinstance(value, dict):
        name = value.get("email") or " ".join(
            p for p in (value.get("first_name"), value.get("last_name")) if p)
        return str(name or f"user {value.get('id', '?')}")
    return "labelstudio" if value is None else f"user {value}"


def _predictions(ex: Exchange, task: dict, key: str, where: str, positive: set[str],
                 problems: list[Problem]) -> None:
    for j, pred in enumerate(task.get("predictions") or []):
        at = f"{where}.predictions[{j}]"
        if not isinstance(pred, dict):
            problems.append(ex.problem(at, "a prediction must be an object"))
            continue
        score = pred.get("score")
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            problems.append(ex.problem(at, f"score {score!r} is not a finite number"))
            continue
        ok, choice = _choice(pred.get("result", []), at, ex, problems)
        if ok and choice is not None and positive and choice not in positive:
            if not 0 <= score <= 1:
                problems.append(ex.problem(at, f"score {score} of choice {choice!r} is not a "
                                           "probability, so it cannot be turned around"))
                continue
            score = 1.0 - score
        model = str(pred.get("model_version") or f"prediction{j + 1}")
        ex.scores.setdefault(model, {})[key] = float(score)


def _annotations(ex: Exchange, task: dict, key: str, where: str, problems: list[Problem]) -> None:
    for j, ann in enumerate(task.get("annotations") or []):
        at = f"{where}.annotations[{j}]"
        if not isinstance(ann, dict):
            problems.append(ex.problem(at, "an annotation must be an object"))
            continue
        ok, value = _choice(ann.get("result", []), at, ex, problems)
        if not ok:
            continue
        extra: dict[str, Any] = ann["triage"] if isinstance(ann.get("triage"), dict) else {}
        who = _annotator(ann.get("completed_by"))
        ex.labels.append(ExchangeLabel(
            key=key, annotator=who, value=None if ann.get("was_cancelled") else value,
            session=str(extra.get("session") or who), where=at,
            created_at=iso_time(ann.get("created_at")),
            seconds=float(ann.get("lead_time") or 0.0), note=extra.get("note"),
            kind=extra.get("kind")))


def read_labelstudio(path: str | Path, *, positive: set[str] | None = None,
                     text_field: str = "text") -> Exchange:
    """Read a Label Studio JSON export; every problem is reported with its JSON path."""
    path = Path(path)
    try:
        tasks = json.loads(path.read_bytes().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError) as error:
        raise TriageError(f"{path}: cannot be read as UTF-8 text ({error})") from error
    except json.JSONDecodeError as error:
        raise TriageError(f"{path}:{error.lineno}: column {error.colno}: not JSON: "
                          f"{error.msg}") from error
    if not isinstance(tasks, list):
        raise TriageError(f"{path}: a Label Studio export is a JSON list of tasks")
    ex = Exchange(path, "labelstudio")
    problems: list[Problem] = []
    for i, task in enumerate(tasks):
        where = f"[{i}]"
        data = task.get("data") if isinstance(task, dict) else None
        if not isinstance(data, dict):
            problems.append(ex.problem(where, "a task must be an object with 'data'"))
            continue
        text = data.get(text_field)
        if not isinstance(text, str) or not text.strip():
            problems.append(ex.problem(f"{where}.data.{text_field}", "missing or empty text"))
            continue
        raw_key = data.get("key", task.get("id", i + 1))
        key = str(raw_key)
        ex.add_candidate(key, text, where, problems)
        _predictions(ex, task, key, where, positive or set(), problems)
        _annotations(ex, task, key, where, problems)
    fail(problems)
    return ex


def _result(value: str) -> list[dict[str, Any]]:
    return [{"from_name": FROM_NAME, "to_name": TO_NAME, "type": "choices",
             "value": {"choices": [value]}}]


def labelstudio_chunks(tasks: list[dict[str, Any]], positive: str) -> Iterator[str]:
    """The JSON list of tasks, a task at a time (from :func:`triage.project.exchange`)."""
    yield "["
    for n, t in enumerate(tasks):
        task = {
            "data": {"text": t["text"], "key": t["key"], "rank": t["rank"],
                     **{f"score_{m}": s for m, s in t["scores"].items()}},
            "predictions": [{"model_version": m, "score": s, "result": _result(positive)}
                            for m, s in t["scores"].items()],
            "annotations": [{
                "completed_by": {"email": e["annotator"]},
                "result": [] if e["value"] is None else _result(e["value"]),
                "was_cancelled": e["value"] is None,
                "lead_time": e["seconds"], "created_at": e["created_at"],
                "triage": {"kind": e["kind"], "note": e["note"], "session": e["session"]},
            } for e in t["events"]],
        }
        yield ("\n" if n == 0 else ",\n") + json.dumps(task, ensure_ascii=False, allow_nan=False)
    yield "\n]\n"


def labeling_config(labels: list[str]) -> str:
    """The Label Studio labeling config that matches the exported tasks."""
    from xml.sax.saxutils import quoteattr

    choices = "".join(f"\n    <Choice value={quoteattr(v)}/>" for v in labels)
    return (f'<View>\n  <Text name="{TO_NAME}" value="$text"/>\n  <Choices name="{FROM_NAME}" '
            f'toName="{TO_NAME}" choice="single">{choices}\n  </Choices>\n</View>\n')
