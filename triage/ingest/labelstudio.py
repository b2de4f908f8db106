"""Label Studio exports in: JSON (tasks), JSON_MIN and CSV (flat rows, see ``labelstudio_flat``).

A JSON task's text is ``data.text`` (or the field the labelling config's ``<Text>`` reads,
or ``--text data.FIELD``); its key ``data.key``, else the task ``id`` (or ``--key``).
Annotations are label events: the one choice of the chosen ``from_name`` (see
:mod:`.labelstudio_config`), a skip when ``was_cancelled`` or empty, by ``completed_by``
(a user id — "user 3" —, an object with an email, or an email), with ``lead_time`` seconds
and ``created_at``; ``history`` and drafts are not read. Predictions are read in both
shapes Label Studio writes: objects in the task's ``predictions``, or (the current JSON
export) ids there with the objects inside the annotations as ``prediction``. A
prediction's ``score`` is its confidence in its choice; it becomes the positive class's
score once the label scheme is known (:func:`triage.ingest.exchange.resolve_scores`).
Problems are reported with the JSON path of the value at fault.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from triage.base.errors import Problem, TriageError
from triage.ingest import exchange_values as values
from triage.ingest.exchange import Exchange, IncomingLabel, Prediction, ReadOptions, fail
from triage.ingest.exchange_pictures import Pictures
from triage.ingest.exchange_values import BadValue
from triage.ingest.labelstudio_config import LabelConfig, pick_from_name, read_config


def load(path: Path) -> tuple[str, Any]:
    """The file's text and, for JSON, its value (None for CSV)."""
    try:
        raw = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise TriageError(f"{path}: cannot be read as UTF-8 text ({error})") from error
    if raw.lstrip()[:1] not in ("[", "{"):
        return raw, None
    try:
        return raw, json.loads(raw)
    except json.JSONDecodeError as error:
        raise TriageError(f"{path}:{error.lineno}: column {error.colno}: not JSON: "
                          f"{error.msg}") from error


def read_labelstudio(path: str | Path, options: ReadOptions | None = None) -> Exchange:
    """Read a Label Studio JSON, JSON_MIN or CSV export (told apart by their shape)."""
    from triage.ingest import labelstudio_flat

    path = Path(path)
    options = options or ReadOptions()
    config = read_config(options.config) if options.config else None
    raw, tasks = load(path)
    if tasks is None:
        return labelstudio_flat.read_csv(path, raw, options, config)
    if not isinstance(tasks, list):
        raise TriageError(f"{path}: a Label Studio export is a JSON list of tasks")
    if tasks and all(isinstance(t, dict) and "data" not in t for t in tasks):
        return labelstudio_flat.read_rows(path, tasks, options, config, "JSON_MIN")
    return _read_tasks(path, tasks, options, config)


def listed(value: Any) -> list[Any]:
    """``value`` when it is a list, else no items (the reader reports the wrong type)."""
    return value if isinstance(value, list) else []


def _results(task: dict[str, Any]) -> list[Any]:
    """Every result item of a task's annotations and predictions (objects only)."""
    items: list[Any] = []
    groups = [a for a in listed(task.get("annotations")) if isinstance(a, dict)]
    groups += [p for p in listed(task.get("predictions")) if isinstance(p, dict)]
    groups += [a["prediction"] for a in groups if isinstance(a.get("prediction"), dict)]
    for group in groups:
        if isinstance(group.get("result"), list):
            items += group["result"]
    return items


def result_groups(tasks: list[Any]) -> Counter[tuple[str, str]]:
    """How many results each (from_name, type) has in the export."""
    seen: Counter[tuple[str, str]] = Counter()
    for task in tasks:
        if isinstance(task, dict):
            for r in _results(task):
                if isinstance(r, dict) and isinstance(r.get("from_name"), str):
                    seen[(r["from_name"], str(r.get("type") or "?"))] += 1
    return seen


def choice_of(result: Any, from_name: str) -> tuple[bool, str | None]:
    """(this result list answers ``from_name``, its one choice or None)."""
    if not isinstance(result, list):
        raise BadValue("'result' must be a list")
    mine = [r for r in result if isinstance(r, dict) and r.get("from_name") == from_name]
    if not mine:
        return False, None
    picked: list[Any] = []
    for r in mine:
        value = r.get("value")
        if not isinstance(value, dict) or not isinstance(value.get("choices"), list):
            raise BadValue(f"result value {values.short(value)} of {from_name!r} holds no "
                           "'choices' list")
        picked += value["choices"]
    if len(picked) > 1:
        raise BadValue(f"choices {values.short(picked)}: Triage takes exactly one choice "
                       "per annotation")
    return True, values.text(picked[0], "choice") if picked else None


def field_steps(path: str | None, default: list[str], top: tuple[str, ...] = ()) -> list[str]:
    """Steps of ``--text/--key`` (a bare NAME is ``data.NAME`` unless it is a task field)."""
    if path is None:
        return default
    steps = values.path_steps(path)
    if len(steps) == 1 and steps[0] not in top and steps[0] != "data":
        return ["data", *steps]
    return steps


class _TaskReader:
    """Reads the tasks of one JSON export into an :class:`Exchange`."""

    def __init__(self, path: Path, tasks: list[Any], options: ReadOptions,
                 config: LabelConfig | None) -> None:
        self.ex = Exchange(path, "labelstudio")
        self.options = options
        self.from_name = pick_from_name(path, result_groups(tasks), options.from_name, config)
        field = config.text_field(self.from_name) if config else None
        self.text_steps = field_steps(options.text, ["data", field or "text"])
        picture = config.image_field(self.from_name) if config else None
        self.image_steps = field_steps(options.image, ["data", picture or "image"])
        self.ex.pictures = Pictures(path.resolve().parent, options.image_root)
        self.key_steps = field_steps(options.key, [], ("id", "inner_id"))
        self.score_steps = [(n, values.path_steps(p)) for n, p in options.scores]
        self.problems: list[Problem] = []
        self.unresolved = self.left_out = 0
        self.unresolved_own = False   # ids-only predictions whose scores are in data
        if config:
            self.ex.scheme_hint = list(config.choices.get(self.from_name, []))

    def bad(self, where: str, reason: str) -> None:
        """Note a problem at JSON path ``where``."""
        self.problems.append(self.ex.problem(where, reason))

    def task(self, i: int, task: Any) -> None:
        """One task: its candidate, predictions and annotations."""
        where = f"[{i}]"
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            self.bad(where, "a task must be an object with 'data'")
            return
        text_at = f"{where}.{'.'.join(self.text_steps)}"
        try:
            image = self._picture(task, where)
            text = values.text(values.lookup(task, self.text_steps), "the text",
                               required=not image) or ""
            raw_key = (values.lookup(task, self.key_steps) if self.key_steps
                       else task["data"].get("key", task.get("id", i + 1)))
            key = values.text(None if raw_key is None else str(raw_key), "the key")
        except BadValue as error:
            fields = [k for k, v in task["data"].items() if isinstance(v, str)]
            hint = (f" (data fields: {', '.join(fields)}; give --text data.FIELD or "
                    "--ls-config FILE)" if "text is missing" in str(error) and fields else "")
            self.bad(text_at if "text" in str(error) else where, f"{error}{hint}")
            return
        assert key is not None
        self.ex.add_candidate(key, text, where, self.problems, image)
        preds = self._prediction_objects(task, where)
        own = self._own(task, key, where)
        if self.score_steps:
            self._chosen_scores(dict(task, predictions=[p for _w, p in preds]), key, where)
        else:
            for at, pred in preds:
                if str(pred.get("model_version")) not in own:
                    self._prediction(pred, key, at)
        extra = values.lookup(task, ["meta", "triage", "annotations"])
        if not isinstance(task.get("annotations") or [], list):
            self.bad(f"{where}.annotations", "must be a list")
        for j, ann in enumerate(listed(task.get("annotations"))):
            mine = extra[j] if isinstance(extra, list) and j < len(extra) else None
            self._annotation(ann, key, f"{where}.annotations[{j}]",
                             mine if isinstance(mine, dict) else {})

    def _picture(self, task: dict[str, Any], where: str) -> str:
        """The task's picture cell ("" none; see :mod:`.exchange_pictures`)."""
        assert self.ex.pictures is not None
        return self.ex.pictures.optional(values.lookup(task, self.image_steps),
                                         ".".join(self.image_steps))

    def _own(self, task: dict[str, Any], key: str, where: str) -> set[str]:
        """A task Triage exported: its scheme and exact scores (``data.score_MODEL``)."""
        mine = values.lookup(task, ["meta", "triage"])
        if not isinstance(mine, dict) or self.score_steps:
            return set()
        if not self.ex.scheme_hint and isinstance(mine.get("labels"), list):
            self.ex.scheme_hint = [str(v) for v in mine["labels"]]
            self.ex.positive_hint = [str(v) for v in mine.get("positive") or []]
        models = set()
        for name, value in task["data"].items():
            if name.startswith("score_") and len(name) > 6:
                try:
                    got = values.score(value, f"data.{name}")
                except BadValue as error:
                    self.bad(f"{where}.data.{name}", str(error))
                    continue
                self.ex.scores.setdefault(name[6:], {})[key] = got
                models.add(name[6:])
        if models:
            self.unresolved_own = True
        return models

    def _prediction_objects(self, task: dict[str, Any], where: str
                            ) -> list[tuple[str, dict[str, Any]]]:
        """The task's prediction objects, ids resolved through the annotations' copies."""
        copies: dict[Any, tuple[str, dict[str, Any]]] = {}
        for j, ann in enumerate(listed(task.get("annotations"))):
            pred = ann.get("prediction") if isinstance(ann, dict) else None
            if isinstance(pred, dict) and pred.get("id") is not None and pred.get("result"):
                copies[pred["id"]] = (f"{where}.annotations[{j}].prediction", pred)
        out: list[tuple[str, dict[str, Any]]] = []
        given = task.get("predictions") or []
        if not isinstance(given, list):
            self.bad(f"{where}.predictions", "must be a list")
            return out
        for j, pred in enumerate(given):
            if isinstance(pred, dict):
                out.append((f"{where}.predictions[{j}]", pred))
            elif isinstance(pred, int) and not isinstance(pred, bool):
                if pred in copies:
                    out.append(copies.pop(pred))
                else:
                    self.unresolved += 1
            else:
                self.bad(f"{where}.predictions[{j}]", "a prediction must be an object or a "
                         "prediction id")
        return out

    def _prediction(self, pred: dict[str, Any], key: str, at: str) -> None:
        if pred.get("score") is None:
            return
        try:
            score = values.score(pred.get("score"), "score")
            answers, choice = choice_of(pred.get("result", []), self.from_name)
            model = values.text(str(pred.get("model_version") or "prediction"), "model_version")
        except BadValue as error:
            self.bad(at, str(error))
            return
        if answers and model:
            self.ex.predictions.append(Prediction(model, key, choice, score, at))

    def _chosen_scores(self, task: dict[str, Any], key: str, where: str) -> None:
        """``--score NAME=PATH``: a prediction's score (made positive later) or a number."""
        for name, steps in self.score_steps:
            holder = values.lookup(task, steps[:-1])
            got = values.lookup(task, steps)
            try:
                if got is None:
                    raise BadValue(f"no value at {'.'.join(steps)}")
                score = values.score(got, ".".join(steps))
                choice = None
                if isinstance(holder, dict) and "result" in holder and steps[-1] == "score":
                    choice = choice_of(holder["result"], self.from_name)[1]
            except BadValue as error:
                self.bad(where, f"--score {name}: {error}")
                continue
            self.ex.predictions.append(Prediction(name, key, choice, score, where))

    def _annotation(self, ann: Any, key: str, at: str, extra: dict[str, Any]) -> None:
        # long: each field of an annotation is checked in turn, with its own message
        if not isinstance(ann, dict):
            self.bad(at, "an annotation must be an object")
            return
        try:
            answers, value = choice_of(ann.get("result", []), self.from_name)
            cancelled = bool(ann.get("was_cancelled"))
            if not answers and not cancelled and ann.get("result"):
                self.left_out += 1   # it answers other groups only
                return
            # Triage's own export names the annotator in the task's meta: Label Studio
            # gives an annotation it imported without completed_by to the importing user.
            who = values.name(extra.get("annotator"), "meta annotator")
            if who is None:
                who = values.name(ann.get("completed_by"), "completed_by") or "labelstudio"
                who = f"user {who}" if who.isdigit() else who
            created = (values.any_time(extra.get("created_at"), "meta created_at")
                       or values.any_time(ann.get("created_at"), "created_at"))
            lead = values.seconds(ann.get("lead_time"), "lead_time")
            note = values.text(extra.get("note"), "meta note", required=False)
            session = values.name(extra.get("session"), "meta session") or who
            source = (values.source_id("", extra.get("uid"), "meta uid")
                      or values.source_id("ls:", ann.get("id"), "annotation id"))
        except BadValue as error:
            self.bad(at, str(error))
            return
        self.ex.labels.append(IncomingLabel(
            key=key, annotator=who, value=None if cancelled else value, session=session,
            where=at, created_at=created, seconds=lead, note=note,
            kind=extra.get("kind") if isinstance(extra.get("kind"), str) else None,
            source=source))

    def finish(self) -> Exchange:
        """The exchange, or every problem found."""
        fail(self.problems)
        if self.ex.pictures is not None:
            self.ex.notes += self.ex.pictures.notes()
        if self.unresolved and not self.unresolved_own:
            self.ex.notes.append(
                f"{self.unresolved} predictions were ids only (Label Studio's JSON export "
                "gives a prediction's object only inside the annotations that used it); "
                "export a snapshot with full predictions to import every score")
        if self.left_out:
            self.ex.notes.append(f"{self.left_out} annotations answer no {self.from_name!r} "
                                 "choice and were left out")
        return self.ex


def _read_tasks(path: Path, tasks: list[Any], options: ReadOptions,
                config: LabelConfig | None) -> Exchange:
    reader = _TaskReader(path, tasks, options, config)
    for i, task in enumerate(tasks):
        reader.task(i, task)
    return reader.finish()
