"""Bridges to other annotation tools: Prodigy JSONL and Label Studio exports, in and out.

Importing reads the file first (:mod:`triage.ingest.prodigy`, :mod:`.labelstudio`), then,
once the label scheme is known, turns Label Studio predictions into the positive class's
score and binary rejects into the scheme's other label, checks every label against the
scheme, and writes pool, scores and labels in one transaction. Exporting writes every
active label event (Prodigy) or every candidate with its scores and label events (Label
Studio) in the shape those tools import (:mod:`triage.ingest.exchange_write`).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage.base.errors import TriageError
from triage.store import exchange as store_exchange
from triage.store.settings import LabelOption, Settings

if TYPE_CHECKING:
    from triage.ingest.exchange import Exchange, ExchangeResult, ReadOptions
    from triage.project.core import Project
    from triage.project.types import Progress

FORMATS = ("prodigy", "labelstudio")


def read_interchange(path: str | Path, fmt: str, options: ReadOptions | None = None
                     ) -> Exchange:
    """Read a Prodigy or Label Studio file into an :class:`~triage.ingest.exchange.Exchange`."""
    if fmt == "prodigy":
        from triage.ingest.prodigy import read_prodigy

        return read_prodigy(path, options)
    if fmt == "labelstudio":
        from triage.ingest.labelstudio import read_labelstudio

        return read_labelstudio(path, options)
    raise TriageError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def default_positive(values: list[str], hint: list[str]) -> tuple[str, ...]:
    """The file's positive label: declared, else one named "positive", else the first.

    "positive" in any case; the first is the config's first label, or the first seen.
    """
    declared = [v for v in hint if v in values]
    if declared:
        return tuple(declared)
    named = [v for v in values if v.strip().lower() in ("positive", "pos", "yes", "true")]
    return (named[0] if named else values[0],)


def scheme_for(ex: Exchange, settings: Settings, reject_label: str | None,
               labels_given: bool, positive: tuple[str, ...] = ()) -> Settings:
    """Settings whose scheme covers the file's labels (case kept) when the user gave none.

    ``positive``: the positive label(s) asked for (see :func:`default_positive` otherwise).
    """
    if labels_given:
        return settings
    values = ex.label_values()
    if reject_label and reject_label not in values:
        values.append(reject_label)
    if any(lab.rejected for lab in ex.labels) and len(values) == 1 and not reject_label:
        values.append(f"not {values[0]}")
    if not values:
        return settings
    keys = "123456789abcdefghijkmopqrtvwxyz"
    if len(values) > len(keys):
        raise TriageError(f"{ex.path}: {len(values)} different labels; give --labels")
    scheme = tuple(LabelOption(v, keys[i]) for i, v in enumerate(values))
    missing = [p for p in positive if p not in values]
    if missing:
        raise TriageError(f"--positive {', '.join(missing)}: no such label in {ex.path} "
                          f"(labels: {', '.join(values)})")
    return settings.with_changes(labels=scheme, positive_labels=tuple(positive) or
                                 default_positive(values, ex.positive_hint))


def import_interchange(project: Project, ex: Exchange, *, reject_label: str | None = None,
                       progress: Progress | None = None) -> ExchangeResult:
    """Import what ``ex`` holds (all or nothing)."""
    from triage.ingest.exchange import import_exchange, resolve_labels, resolve_scores

    db = project.writer.import_target("import Prodigy or Label Studio labels into")
    labels = [o.value for o in project.settings.labels]
    resolve_scores(ex, set(project.settings.positive_labels))
    resolve_labels(ex, labels, reject_label)
    fresh = not project.models
    result = import_exchange(db, ex, seed=project.settings.seed, progress=progress,
                             project_file=project.location)
    project.reload_models()
    names = {m.name for m in project.models}
    # textcat.teach gives one model per label: the queue follows the positive label's.
    preferred = [f"prodigy:{p}" for p in project.settings.positive_labels]
    chosen = next((m for m in preferred if m in names), None)
    if fresh and chosen and project.settings.active_model is None:
        project.update_settings(active_model=chosen)
    elif project.settings.overlap_rate > 0 and project.models:
        project.dispatcher.replan_overlap()
    return result


def _metas(project: Project) -> dict[int, dict[str, Any]]:
    """Each candidate's ``meta`` object (the columns a pool kept), by id."""
    out: dict[int, dict[str, Any]] = {}
    for cid, meta in store_exchange.candidate_metas(project.db).items():
        try:
            got = json.loads(meta)
        except ValueError:
            continue
        if isinstance(got, dict):
            out[cid] = got
    return out


def _sources(metas: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """What each candidate kept of the tool it came from (``meta.source``), by id."""
    out: dict[int, dict[str, Any]] = {}
    for cid, meta in metas.items():
        try:
            kept = json.loads(meta.get("source") or "{}")
        except (ValueError, TypeError):
            continue
        if isinstance(kept, dict):
            out[cid] = kept
    return out


class _Pictures:
    """Each candidate's picture as the other tool reads it, and its caption."""

    def __init__(self, project: Project, metas: dict[int, dict[str, Any]], embed: bool
                 ) -> None:
        from triage.project.pictures import picture_source

        self.source = picture_source(project.db, project.location)
        self.metas = metas
        self.embed = embed
        self.cells: dict[int, str] = {}
        self.not_embedded: list[str] = []

    def text(self, text: str) -> str:
        """The text to write: the caption of a picture ("" none), else the text."""
        return self.source.caption_of(text) if self.source else text

    def cell(self, cid: int, key: str, text: str) -> str | None:
        """The picture: an absolute path, a URL, or (``embed``) a data URI; None: none."""
        if self.source is None:
            return None
        if cid not in self.cells:
            ref = self.source.ref(text, self.metas.get(cid, {}))
            cell = "" if ref is None else ref.url or str(ref.path)
            if self.embed and ref is not None and ref.path is not None:
                from triage.ingest.exchange_pictures import as_data_uri

                embedded = as_data_uri(ref.path)
                if embedded is None:
                    self.not_embedded.append(key)
                cell = embedded or cell
            self.cells[cid] = cell
        return self.cells[cid]

    def notes(self) -> tuple[str, ...]:
        """What the summary says about pictures that stayed paths."""
        if not self.not_embedded:
            return ()
        return (f"{len(self.not_embedded)} pictures could not be embedded (missing or not a "
                f"picture Triage shows) and were written as paths, e.g. key "
                f"{self.not_embedded[0]!r}",)


def _events(project: Project, scores: dict[str, np.ndarray], pictures: _Pictures
            ) -> list[dict[str, Any]]:
    """Every active label event with its candidate's key, text, picture, rank and scores."""
    sources = _sources(pictures.metas)
    out = []
    for key, text, who, session, value, kind, created, seconds, note, cid, uid, source in \
            store_exchange.label_events_with_keys(project.db):
        when = dt.datetime.fromisoformat(created)
        out.append({
            "key": key, "text": pictures.text(text), "image": pictures.cell(cid, key, text),
            "annotator": who, "session": session, "value": value,
            "kind": kind, "created_at": created, "timestamp": int(when.timestamp()),
            "seconds": seconds, "note": note, "rank": project.rank_of(cid), "uid": uid,
            "source_id": source, "source": sources.get(cid, {}),
            "scores": {m: float(s[cid - 1]) for m, s in scores.items()
                       if not np.isnan(s[cid - 1])}})
    return out


def _tasks(project: Project, events: list[dict[str, Any]],
           scores: dict[str, np.ndarray], pictures: _Pictures) -> list[dict[str, Any]]:
    """Every candidate with its scores and label events, best-ranked first."""
    by_key: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        by_key.setdefault(e["key"], []).append(e)
    tasks = [{"key": key, "text": pictures.text(text), "image": pictures.cell(cid, key, text),
              "rank": project.rank_of(cid),
              "scores": {m: float(s[cid - 1]) for m, s in scores.items()
                         if not np.isnan(s[cid - 1])},
              "events": by_key.get(key, [])}
             for cid, key, text in store_exchange.candidates_in_id_order(project.db)]
    return sorted(tasks, key=lambda t: t["rank"])


@dataclass(frozen=True)
class Exported:
    """What an interchange export wrote: records, and notes for the summary."""

    count: int
    notes: tuple[str, ...] = ()


def export_interchange(project_path: str | Path, out: str | Path, fmt: str, *,
                       dataset: str | None = None, emails: dict[str, str] | None = None,
                       embed_pictures: bool = False) -> Exported:
    """Write the project as ``fmt`` to ``out`` atomically: how many records, and notes.

    Prodigy: one task per active label event. Label Studio: one task per candidate, and
    its labeling config beside it (``OUT.config.xml``). ``emails``: annotator name ->
    Label Studio user email (``completed_by``); others are left out. A picture is written
    as its absolute path or URL, or with ``embed_pictures`` a local one as a base64 data
    URI (Prodigy's own image tasks are written that way).
    """
    from triage.ingest import exchange_write as write
    from triage.ingest.exchange import write_text_atomically
    from triage.project.files import open_project
    from triage.project.gain import project_scores

    if fmt not in FORMATS:
        raise TriageError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    out = Path(out)
    with open_project(project_path) as project:
        if project.active_model() is None:
            raise TriageError(f"{project_path} has no candidates to export")
        scores = {m: s for m, (_col, s) in project_scores(project).items()}
        pictures = _Pictures(project, _metas(project), embed_pictures)
        events = _events(project, scores, pictures)
        labels = [o.value for o in project.settings.labels]
        positive = list(project.settings.positive_labels)
        if fmt == "prodigy":
            write_text_atomically(out, write.prodigy_lines(
                events, labels, positive, dataset or Path(project_path).stem))
            return Exported(len(events), pictures.notes())
        unknown = sorted(set(emails or {}) - {e["annotator"] for e in events})
        if unknown:
            raise TriageError(f"--annotator-email: no annotator named {', '.join(unknown)} "
                              "has labels in this project")
        tasks = _tasks(project, events, scores, pictures)
        write_text_atomically(out, write.labelstudio_chunks(tasks, labels, positive,
                                                            emails or {}))
        config = write.labeling_config(labels, pictures=pictures.source is not None,
                                       captions=any(t["text"] for t in tasks))
        write_text_atomically(out.with_suffix(".config.xml"), [config])
        return Exported(len(tasks), pictures.notes())
