"""Prodigy JSONL in: what ``prodigy db-out`` writes (and what Triage's export writes).

One JSON object per line. ``text`` is the candidate (or ``--text FIELD``), ``image`` its
picture (or ``--image FIELD``; a path, URL or base64 data URI, see
:mod:`.exchange_pictures`; with a picture the text is optional, its caption); its key
``meta.key``, else ``_input_hash`` (or ``--key``). An ``answer`` makes the line a label
event: ``accept`` of a binary task (``label``) is that label, ``reject`` the scheme's other
label (or ``--reject-label``), ``ignore`` a skip; a choice task (``accept: [..]``) takes its
one accepted option (none accepted, or a rejected choice, is a skip). ``_annotator_id``
(else ``_session_id``) names the annotator, ``_session_id`` the session, ``_timestamp``
(seconds, or milliseconds) the time.

Scores: ``meta.score`` is the model's score of the task's own ``label`` (``textcat.teach``
writes P(label)), so it is stored as model ``prodigy:LABEL`` — one model per label, never
one label's score as another's; without a ``label`` it is model ``prodigy``. Numbers in
``meta`` named ``score_<model>`` are that model's score; ``--score NAME=PATH`` picks others.
The original ``_input_hash``, ``meta`` and ``priority`` are kept with the candidate, and
``_task_hash`` with the label, so an export gives them back. Every problem is reported
with its line; nothing is written when there is one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from triage.base.errors import Problem, TriageError
from triage.ingest import exchange_values as values
from triage.ingest.exchange import Exchange, IncomingLabel, ReadOptions, fail
from triage.ingest.exchange_pictures import Pictures
from triage.ingest.exchange_values import BadValue
from triage.ingest.read import json_lines

ANSWERS = ("accept", "reject", "ignore")
PLAIN_SCORE_MODEL = "prodigy"
KEPT = ("_input_hash", "meta", "priority")


def _key(obj: dict[str, Any], text: str, steps: list[str] | None) -> str:
    if steps is not None:
        got = values.lookup(obj, steps)
        if isinstance(got, bool) or not isinstance(got, str | int) or not str(got).strip():
            raise BadValue(f"key {'.'.join(steps)} is missing or not a string or number")
        return str(got)
    meta: dict[str, Any] = obj["meta"] if isinstance(obj.get("meta"), dict) else {}
    for value in (meta.get("key"), obj.get("_input_hash")):
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return str(value)
    return "h" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def _scores(obj: dict[str, Any], chosen: list[tuple[str, list[str]]]) -> dict[str, float]:
    """Model -> score of this line."""
    if chosen:
        out = {}
        for name, steps in chosen:
            got = values.lookup(obj, steps)
            if got is None:
                raise BadValue(f"--score {name}: no value at {'.'.join(steps)}")
            out[name] = values.score(got, f"--score {name}: {'.'.join(steps)}")
        return out
    meta = obj.get("meta")
    if not isinstance(meta, dict):
        return {}
    label = obj.get("label") if isinstance(obj.get("label"), str) else None
    out = {}
    for name, value in meta.items():
        if name == "score":
            model = f"{PLAIN_SCORE_MODEL}:{label}" if label else PLAIN_SCORE_MODEL
        elif name.startswith("score_") and len(name) > 6:
            model = name[6:]
        else:
            continue
        out[model] = values.score(value, f"meta.{name}")
    return out


def _value(obj: dict[str, Any], answer: str) -> tuple[str | None, str | None, bool]:
    """(accepted label, rejected binary label, a choice accepted with no option)."""
    accepted = obj.get("accept")
    if isinstance(accepted, list):
        if answer != "accept" or not accepted:
            return None, None, answer == "accept"
        if len(accepted) != 1 or isinstance(accepted[0], bool) or \
                not isinstance(accepted[0], str | int):
            raise BadValue(f"accept {values.short(accepted)}: Triage takes exactly one "
                           "accepted option per task")
        return values.text(str(accepted[0]), "accepted option"), None, False
    if answer == "ignore":
        return None, None, False
    if obj.get("label") is None and isinstance(obj.get("spans"), list) and obj["spans"]:
        raise BadValue("a task with spans and no label or accept (image.manual boxes, NER "
                       "spans) is not a classification: Triage imports label/accept answers")
    label = values.text(obj.get("label"), f"the label of an {answer}ed binary task")
    return (label, None, False) if answer == "accept" else (None, label, False)


def _label(obj: dict[str, Any], key: str, where: str, default_annotator: str
           ) -> tuple[IncomingLabel, bool]:
    answer = obj.get("answer")
    if answer not in ANSWERS:
        raise BadValue(f"answer {values.short(answer)} is not one of {', '.join(ANSWERS)}")
    value, rejected, empty = _value(obj, answer)
    extra: dict[str, Any] = obj["_triage"] if isinstance(obj.get("_triage"), dict) else {}
    annotator = (values.name(obj.get("_annotator_id"), "_annotator_id")
                 or values.name(obj.get("_session_id"), "_session_id") or default_annotator)
    session = values.name(extra.get("session") or obj.get("_session_id"), "_session_id")
    task_hash = obj.get("_task_hash")
    if isinstance(task_hash, bool) or not isinstance(task_hash, str | int):
        task_hash = f"{key}/{value or rejected}"
    source = (values.source_id("", extra.get("uid"), "_triage.uid")
              or values.source_id("prodigy:", f"{task_hash}:{annotator}", "_task_hash"))
    label = IncomingLabel(
        key=key, annotator=annotator, value=value, rejected=rejected, where=where,
        session=session or annotator,
        created_at=(values.any_time(extra.get("created_at"), "_triage.created_at")
                    or values.unix_time(obj.get("_timestamp"), "_timestamp")),
        seconds=values.seconds(extra.get("seconds"), "_triage.seconds"),
        note=values.text(extra.get("note"), "_triage.note", required=False),
        kind=extra.get("kind") if isinstance(extra.get("kind"), str) else None,
        source=source)
    return label, empty


def _names(given: Any, what: str) -> list[str]:
    """Label names a line declares (strings or numbers; a lone surrogate is refused)."""
    if not isinstance(given, list):
        return []
    return [str(values.text(str(v), what)) for v in given
            if isinstance(v, str | int) and not isinstance(v, bool) and str(v).strip()]


class _Reader:
    """Reads the lines of one file into an :class:`Exchange`."""

    def __init__(self, path: Path, options: ReadOptions) -> None:
        self.ex = Exchange(path, "prodigy")
        self.options = options
        self.text_steps = values.path_steps(options.text or "text")
        self.key_steps = values.path_steps(options.key) if options.key else None
        self.image_steps = values.path_steps(options.image or "image")
        self.ex.pictures = Pictures(path.resolve().parent, options.image_root)
        self.chosen = [(n, values.path_steps(p)) for n, p in options.scores]
        self.problems: list[Problem] = []
        self.empty_choices = 0

    def hints(self, obj: dict[str, Any]) -> None:
        """The label order and positive label a line declares (our export, or options)."""
        extra = obj.get("_triage")
        if isinstance(extra, dict) and not self.ex.scheme_hint:
            self.ex.scheme_hint = _names(extra.get("labels"), "_triage.labels")
            self.ex.positive_hint = _names(extra.get("positive"), "_triage.positive")
        options = obj.get("options")
        if isinstance(options, list) and not self.ex.scheme_hint:
            self.ex.scheme_hint = _names([o.get("id") for o in options if isinstance(o, dict)],
                                         "an option id")
        if isinstance(obj.get("label"), str) and "accept" not in obj \
                and not self.ex.positive_hint:
            self.ex.positive_hint = [obj["label"]]   # a binary task asks about its label

    def keep(self, key: str, obj: dict[str, Any]) -> None:
        """Keep the first line's hashes, meta and priority, and each binary task's label."""
        kept = {k: obj[k] for k in KEPT if k in obj}
        if kept and key not in self.ex.extras:
            self.ex.extras[key] = {"prodigy": kept}
        task_hash, label = obj.get("_task_hash"), obj.get("label")
        if key in self.ex.extras and isinstance(label, str) and "accept" not in obj and \
                isinstance(task_hash, str | int) and not isinstance(task_hash, bool):
            tasks = self.ex.extras[key]["prodigy"].setdefault("labels", {})
            tasks[str(task_hash)] = label

    def line(self, number: int, obj: Any) -> None:
        """One task line."""
        where = str(number)
        if not isinstance(obj, dict):
            self.problems.append(self.ex.problem(where, "a line must be a JSON object (one task)"))
            return
        try:
            assert self.ex.pictures is not None
            image = self.ex.pictures.optional(values.lookup(obj, self.image_steps),
                                              ".".join(self.image_steps))
            text = values.text(values.lookup(obj, self.text_steps), "'text'",
                               required=not image) or ""
            key = values.text(_key(obj, text or image, self.key_steps), "key")
            assert key is not None
            scores = _scores(obj, self.chosen)
            label = _label(obj, key, where, self.options.default_annotator) \
                if "answer" in obj else None
            self.hints(obj)
        except BadValue as error:
            self.problems.append(self.ex.problem(where, str(error)))
            return
        self.ex.add_candidate(key, text, where, self.problems, image)
        for model, score in scores.items():
            self.ex.scores.setdefault(model, {})[key] = score
        self.keep(key, obj)
        if label is not None:
            self.ex.labels.append(label[0])
            self.empty_choices += label[1]


def read_prodigy(path: str | Path, options: ReadOptions | None = None) -> Exchange:
    """Read a Prodigy JSONL export; every problem is reported with its line."""
    path = Path(path)
    try:
        raw = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise TriageError(f"{path}: cannot be read as UTF-8 text ({error})") from error
    reader = _Reader(path, options or ReadOptions())
    for number, obj, bad in json_lines(raw):
        if bad is not None:
            reader.problems.append(Problem(str(path), number, bad.colno,
                                           f"not JSON: {bad.msg}"))
            continue
        reader.line(number, obj)
    fail(reader.problems)
    assert reader.ex.pictures is not None
    reader.ex.notes += reader.ex.pictures.notes()
    if reader.empty_choices:
        reader.ex.notes.append(f"{reader.empty_choices} choice tasks were accepted with no "
                               "option selected and were read as skips")
    return reader.ex
