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
    result = import_exchange(db, ex, seed=project.settings.seed, progress=progress)
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


def _sources(project: Project) -> dict[int, dict[str, Any]]:
    """What each candidate kept of the tool it came from (``meta.source``), by id."""
    out: dict[int, dict[str, Any]] = {}
    for cid, meta in store_exchange.candidate_metas(project.db).items():
        try:
            kept = json.loads(json.loads(meta).get("source") or "{}")
        except (ValueError, AttributeError):
            continue
        if isinstance(kept, dict):
            out[cid] = kept
    return out


def _events(project: Project, scores: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Every active label event with its candidate's key, text, rank and scores."""
    sources = _sources(project)
    out = []
    for key, text, who, session, value, kind, created, seconds, note, cid, uid, source in \
            store_exchange.label_events_with_keys(project.db):
        when = dt.datetime.fromisoformat(created)
        out.append({
            "key": key, "text": text, "annotator": who, "session": session, "value": value,
            "kind": kind, "created_at": created, "timestamp": int(when.timestamp()),
            "seconds": seconds, "note": note, "rank": project.rank_of(cid), "uid": uid,
            "source_id": source, "source": sources.get(cid, {}),
            "scores": {m: float(s[cid - 1]) for m, s in scores.items()
                       if not np.isnan(s[cid - 1])}})
    return out


def _tasks(project: Project, events: list[dict[str, Any]],
           scores: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Every candidate with its scores and label events, best-ranked first."""
    by_key: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        by_key.setdefault(e["key"], []).append(e)
    tasks = [{"key": key, "text": text, "rank": project.rank_of(cid),
              "scores": {m: float(s[cid - 1]) for m, s in scores.items()
                         if not np.isnan(s[cid - 1])},
              "events": by_key.get(key, [])}
             for cid, key, text in store_exchange.candidates_in_id_order(project.db)]
    return sorted(tasks, key=lambda t: t["rank"])


def export_interchange(project_path: str | Path, out: str | Path, fmt: str, *,
                       dataset: str | None = None, emails: dict[str, str] | None = None
                       ) -> int:
    """Write the project as ``fmt`` to ``out`` atomically; returns the number of records.

    Prodigy: one task per active label event. Label Studio: one task per candidate, and
    its labeling config beside it (``OUT.config.xml``). ``emails``: annotator name ->
    Label Studio user email (``completed_by``); others are left out.
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
        events = _events(project, scores)
        labels = [o.value for o in project.settings.labels]
        positive = list(project.settings.positive_labels)
        if fmt == "prodigy":
            write_text_atomically(out, write.prodigy_lines(
                events, labels, positive, dataset or Path(project_path).stem))
            return len(events)
        unknown = sorted(set(emails or {}) - {e["annotator"] for e in events})
        if unknown:
            raise TriageError(f"--annotator-email: no annotator named {', '.join(unknown)} "
                              "has labels in this project")
        tasks = _tasks(project, events, scores)
        write_text_atomically(out, write.labelstudio_chunks(tasks, labels, positive,
                                                            emails or {}))
        write_text_atomically(out.with_suffix(".config.xml"), [write.labeling_config(labels)])
        return len(tasks)
