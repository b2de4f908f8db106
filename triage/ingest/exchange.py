"""What the Prodigy and Label Studio readers produce, and its all-or-nothing import.

A reader turns a file into an :class:`Exchange`: candidates (key, text, where they were
read), model scores per candidate and incoming labels (annotator, value, session, time,
seconds, note, the other tool's id of the event). :func:`import_exchange` checks it
against the project's label scheme and pool, then writes candidates, rankings,
annotators, sessions and labels in ONE transaction: a bad file, or any error while
writing, leaves the project as it was. A label whose source id and annotator are already
in the project is not added again, so importing the same file twice adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sqlite_utils

from triage.base.errors import InputError, Problem, TriageError
from triage.base.progress import Progress as Progress
from triage.ingest.exchange_pictures import (
    DATA_MARK,
    Pictures,
    pictures_folder,
    remove,
    write_pictures,
)
from triage.ingest.read import Table
from triage.store import candidates as store_candidates
from triage.store import exchange as store_exchange
from triage.store import provenance
from triage.store.records import now_iso
from triage.store.schema import LABEL_KINDS
from triage.store.writer import FileWriter

FILE_ORDER_MODEL = "file_order"


@dataclass
class IncomingLabel:
    """A label as another tool's file states it (an input record, not yet a label event).

    It names its candidate by the file's key and its session by the file's name for it;
    :func:`write_labels` is the one place it becomes a stored label event
    (:class:`triage.base.labels.LabelEvent` when read back). ``value`` None is a skip.
    """

    key: str
    annotator: str
    value: str | None
    session: str
    where: str
    created_at: str | None = None
    seconds: float = 0.0
    note: str | None = None
    kind: str | None = None
    rejected: str | None = None  # a binary "reject" of this label: resolved by the scheme
    source: str | None = None    # the other tool's id of this event (idempotent imports)


@dataclass
class Prediction:
    """A model's prediction: its choice and its confidence in it (Label Studio)."""

    model: str
    key: str
    choice: str | None
    score: float
    where: str


@dataclass(frozen=True)
class ReadOptions:
    """How to read another tool's file: field paths (``--text/--key/--score``) and choices.

    Paths are dotted (``data.review``, ``meta.key``); ``predictions[MODEL].score`` picks a
    Label Studio prediction by its ``model_version``.
    """

    text: str | None = None
    key: str | None = None
    scores: tuple[tuple[str, str], ...] = ()
    from_name: str | None = None     # Label Studio: the Choices to import
    config: Path | None = None       # Label Studio: the project's labelling config (XML)
    default_annotator: str = "prodigy"
    image: str | None = None         # the picture's field (default: image / data.image)
    image_root: Path | None = None   # Label Studio: the folder its server paths map to


@dataclass
class ExchangeResult:
    """What an interchange import did."""

    candidates: int
    labels: int
    models: tuple[str, ...]
    already_present: int = 0
    notes: tuple[str, ...] = ()


@dataclass
class Exchange:
    """Candidates, scores and labels read from a Prodigy or Label Studio file."""

    path: Path
    fmt: str
    keys: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    wheres: list[str] = field(default_factory=list)
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # model -> key -> score
    labels: list[IncomingLabel] = field(default_factory=list)
    predictions: list[Prediction] = field(default_factory=list)
    scheme_hint: list[str] = field(default_factory=list)    # label order the file declares
    positive_hint: list[str] = field(default_factory=list)  # positive label(s) it declares
    notes: list[str] = field(default_factory=list)          # what the summary should say
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> kept fields
    images: list[str] = field(default_factory=list)         # picture cells ("" none)
    pictures: Pictures | None = None                        # decoded data URIs, counts
    index: dict[str, int] = field(default_factory=dict, repr=False)

    def add_candidate(self, key: str, text: str, where: str, problems: list[Problem],
                      image: str = "") -> None:
        """Record a candidate once; the same key with another text or picture is a problem."""
        index = self.index.get(key)
        if index is None:
            self.index[key] = len(self.keys)
            self.keys.append(key)
            self.texts.append(text)
            self.wheres.append(where)
            self.images.append(image)
        elif self.texts[index] != text or self.images[index] != image:
            what = "text" if self.texts[index] != text else "picture"
            problems.append(self.problem(where, f"key {key!r} was first read at "
                                                f"{self.wheres[index]} with a different {what}"))

    def has_pictures(self) -> bool:
        """Whether any candidate has a picture."""
        return any(self.images)

    def problem(self, where: str, reason: str) -> Problem:
        """A problem at ``where`` (a line number, or a JSON path)."""
        if where.isdigit():
            return Problem(str(self.path), int(where), None, reason)
        return Problem(str(self.path), None, None, f"{where}: {reason}")

    def label_values(self) -> list[str]:
        """The declared labels, then the others in the order first seen (case kept)."""
        seen = [x.value or x.rejected for x in self.labels]
        seen += [p.choice for p in self.predictions]
        return list(dict.fromkeys([*self.scheme_hint, *(v for v in seen if v)]))


def fail(problems: list[Problem]) -> None:
    """Raise an :class:`InputError` when there are problems (nothing written)."""
    if problems:
        raise InputError(problems[:1000], total=len(problems))


def resolve_scores(ex: Exchange, positive: set[str]) -> None:
    """Turn predictions into each model's score of the positive class.

    A prediction's score is its confidence in its own choice: a choice of a positive label
    keeps it, any other choice gives ``1 − score`` (scores in [0, 1] only).
    """
    problems: list[Problem] = []
    for p in ex.predictions:
        value = p.score
        if p.choice is not None and p.choice not in positive:
            if not 0 <= value <= 1:
                problems.append(ex.problem(p.where, f"score {value} of choice {p.choice!r} is "
                                           "not a probability, so it cannot be turned around"))
                continue
            value = 1.0 - value
        ex.scores.setdefault(p.model, {})[p.key] = value
    ex.predictions = []
    fail(problems)


def resolve_labels(ex: Exchange, scheme: list[str], reject_label: str | None) -> None:
    """Turn binary rejects into a label of ``scheme``; every value must be in the scheme."""
    problems: list[Problem] = []
    for lab in ex.labels:
        if lab.rejected is not None:
            others = [v for v in scheme if v != lab.rejected]
            target = reject_label or (others[0] if len(scheme) == 2 and len(others) == 1
                                      else None)
            if target is None:
                problems.append(ex.problem(lab.where, f"a reject of {lab.rejected!r} names no "
                                           "label here: give --reject-label LABEL"))
                continue
            lab.value, lab.rejected = target, None
        if lab.value is not None and lab.value not in scheme:
            problems.append(ex.problem(lab.where, f"label {lab.value!r} is not in the project's "
                                       f"scheme ({', '.join(scheme)})"))
        if lab.kind is not None and lab.kind not in LABEL_KINDS:
            problems.append(ex.problem(lab.where, f"unknown label kind {lab.kind!r}"))
    fail(problems)


def _fill_missing(ex: Exchange, model: str, by_key: dict[str, float]) -> np.ndarray:
    """A model's scores in candidate order; a candidate the file gave no score ranks last.

    Label Studio's JSON export keeps prediction objects only inside annotations, so a task
    nobody annotated has no score: it gets the model's lowest score (0 for probabilities)
    and the summary says how many did.
    """
    values = np.array([by_key.get(k, np.nan) for k in ex.keys], dtype=np.float64)
    missing = int(np.isnan(values).sum())
    if missing:
        known = values[~np.isnan(values)]
        low = 0.0 if known.min() >= 0 else float(known.min())
        values[np.isnan(values)] = low
        ex.notes.append(f"model {model}: {missing} of {len(values)} candidates had no score "
                        f"in the file and rank last (score {low:g})")
    return values


def _table(ex: Exchange) -> tuple[Table, tuple[tuple[str, str], ...]]:
    """The candidates as the importer's table: key, text, one column per model, kept fields."""
    data: dict[str, Any] = {"key": ex.keys}
    if any(ex.texts) or not ex.has_pictures():
        data["text"] = ex.texts
    if ex.has_pictures():
        data["image"] = ex.images
    models = []
    scores = ex.scores or {FILE_ORDER_MODEL: {k: float(len(ex.keys) - i)
                                              for i, k in enumerate(ex.keys)}}
    if not ex.scores:
        ex.notes.append("no model scores in the file: candidates are ranked in file order "
                        f"(model {FILE_ORDER_MODEL})")
    for model, by_key in scores.items():
        column = f"score:{model}"
        data[column] = _fill_missing(ex, model, by_key)
        models.append((model, column))
    if ex.extras:  # the other tool's fields an export gives back (hashes, meta, priority)
        data["source"] = [json.dumps(ex.extras[k], ensure_ascii=False) if k in ex.extras
                          else "" for k in ex.keys]
    lines = np.array([int(w) if w.isdigit() else i + 1 for i, w in enumerate(ex.wheres)],
                     dtype=np.int64)
    table = Table(ex.path, "jsonl", list(data), lines, data)
    return table, tuple(models)


def _new_labels(db: sqlite_utils.Database, ex: Exchange) -> list[IncomingLabel]:
    """The file's labels that are not in the project yet (same source id).

    A source id names one event of one annotator (a Label Studio annotation id; a Prodigy
    task hash with its annotator; a Triage label uid).
    """
    sources = [lab.source for lab in ex.labels if lab.source]
    present = store_exchange.present_sources(db, sources) if sources else set()
    fresh = [lab for lab in ex.labels
             if not lab.source or lab.source not in present]
    return fresh


def write_labels(db: sqlite_utils.Database, ex: Exchange, origin: str) -> int:
    """Annotators, one session per (annotator, source session), and the new label events.

    The one conversion of :class:`IncomingLabel`\\ s into stored label events: key to
    candidate id, annotator to id, the file's session to one of ours, kind decided."""
    ids = store_candidates.ids_by_key(db)
    problems = [ex.problem(lab.where, f"key {lab.key!r} is not a candidate of this project")
                for lab in ex.labels if lab.key not in ids]
    fail(problems)
    labels = _new_labels(db, ex)
    stamp = now_iso()
    times = [lab.created_at or stamp for lab in labels]
    spans: dict[tuple[str, str], list[str]] = {}
    for lab, when in zip(labels, times):
        spans.setdefault((lab.annotator, lab.session), []).append(when)
    sessions: dict[tuple[str, str], int] = {}
    seen: set[int] = set(store_exchange.labelled_candidates(db))
    rows = []
    writer = FileWriter(db)   # the file the project's writer handed out for this import
    for lab, when in sorted(zip(labels, times), key=lambda t: t[1]):
        annotator_id = writer.ensure_annotator(lab.annotator)
        group = (lab.annotator, lab.session)
        if group not in sessions:
            sessions[group] = store_exchange.insert_session(
                db, annotator_id, min(spans[group]), max(spans[group]),
                f"{origin}:{lab.session}"[:200])
        cid = ids[lab.key]
        kind = lab.kind or ("overlap" if cid in seen else "triage")
        seen.add(cid)
        rows.append((cid, annotator_id, sessions[group], lab.value, kind, when,
                     max(0.0, float(lab.seconds)), lab.note, lab.source))
    store_exchange.insert_sourced_labels(db, rows)
    return len(rows)


def import_exchange(db: sqlite_utils.Database, ex: Exchange, *, seed: int,
                    progress: Progress | None = None,
                    project_file: str | Path | None = None) -> ExchangeResult:
    """Import ``ex`` in one transaction: the pool (into an empty project) and the labels.

    Into a project that has its pool already, only the labels are added (their keys must
    be candidates); scores and pictures in the file are not added then (see
    ``--add-scores``). Embedded pictures are written beside ``project_file`` first (and
    removed again when the import fails).
    """
    from triage.ingest.importer import ColumnMapping, import_candidates

    written = [0]

    def labels(conn: sqlite_utils.Database) -> None:
        """The labels, inside the import's transaction."""
        written[0] = write_labels(conn, ex, ex.fmt)

    def pool_labels(conn: sqlite_utils.Database) -> None:
        """The labels and where the new pool's pictures are (the project's folder)."""
        labels(conn)
        if project_file is not None and ex.has_pictures():
            # Cells are absolute, URLs, or files in the '.pictures' folder beside the project.
            store_exchange.set_picture_folder(conn, str(Path(project_file).resolve().parent))

    if store_candidates.exist(db):
        with db.atomic():
            labels(db)
            provenance.record_source(db, {"file": str(ex.path.resolve()),
                                          "sha256": _digest(ex.path), "imported_at": now_iso(),
                                          "kind": f"{ex.fmt} labels", "models": [],
                                          "rows": written[0]})
        if ex.scores or ex.has_pictures():
            ex.notes.append("the project has its pool already: only the labels were "
                            "imported, not the file's model scores or pictures")
        return ExchangeResult(0, written[0], (), len(ex.labels) - written[0], tuple(ex.notes))
    if not ex.keys:
        raise TriageError(f"{ex.path}: no candidates to import")
    written_files = place_pictures(ex, project_file)
    table, models = _table(ex)
    image = "image" if ex.has_pictures() else None
    text = "text" if "text" in table.data else ""
    try:
        result = import_candidates(db, ex.path, ColumnMapping(text=text, key="key",
                                                              scores=models, image=image),
                                   progress=progress, seed=seed, table=table, after=pool_labels,
                                   kind=ex.fmt)
    except BaseException:
        remove(written_files)
        raise
    return ExchangeResult(result.rows_imported, written[0], result.models,
                          len(ex.labels) - written[0], tuple(ex.notes))


def place_pictures(ex: Exchange, project_file: str | Path | None) -> list[Path]:
    """Write the decoded data-URI pictures beside the project; their cells point there."""
    if ex.pictures is None or not ex.pictures.decoded:
        return []
    if project_file is None:
        raise TriageError(f"{ex.path}: embedded pictures need a project file to be written "
                          "beside")
    folder = pictures_folder(project_file)
    ex.images = [f"{folder.name}/{c[len(DATA_MARK):]}" if c.startswith(DATA_MARK) else c
                 for c in ex.images]
    return write_pictures(ex.pictures.decoded, folder)


def _digest(path: Path) -> str:
    import hashlib

    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def write_text_atomically(path: str | Path, chunks: Iterable[str]) -> None:
    """Write ``chunks`` to ``path`` through a temporary file, fsync'ed, then renamed."""
    from triage.ingest.atomic import atomic_file

    with atomic_file(path) as handle:
        for chunk in chunks:
            handle.write(chunk)
