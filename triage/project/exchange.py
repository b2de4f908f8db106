"""Bridges to other annotation tools: Prodigy JSONL and Label Studio JSON, in and out.

Importing reads the file first (:mod:`triage.ingest.prodigy`, :mod:`.labelstudio`), turns
binary rejects into the scheme's other label, checks every label against the scheme, and
then writes pool, scores and labels in one transaction. Exporting writes every active
label event (Prodigy) or every candidate with its scores and label events (Label Studio).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage.base.errors import TriageError
from triage.store import exchange as store_exchange
from triage.store.settings import LabelOption, Settings

if TYPE_CHECKING:
    from triage.ingest.exchange import Exchange
    from triage.project.core import Project
    from triage.project.types import Progress

FORMATS = ("prodigy", "labelstudio")


def read_interchange(path: str | Path, fmt: str, *, positive: set[str] | None = None,
                     default_annotator: str = "prodigy") -> Exchange:
    """Read a Prodigy or Label Studio file into an :class:`~triage.ingest.exchange.Exchange`."""
    if fmt == "prodigy":
        from triage.ingest.prodigy import read_prodigy

        return read_prodigy(path, default_annotator=default_annotator)
    if fmt == "labelstudio":
        from triage.ingest.labelstudio import read_labelstudio

        return read_labelstudio(path, positive=positive)
    raise TriageError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def scheme_for(ex: Exchange, settings: Settings, reject_label: str | None,
               labels_given: bool, positive: tuple[str, ...] = ()) -> Settings:
    """Settings whose label scheme covers the file's labels, when the user gave none.

    ``positive``: the positive label(s) asked for (default: the first label of the file).
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
    return settings.with_changes(labels=scheme, positive_labels=tuple(positive) or (values[0],))


def import_interchange(project: Project, ex: Exchange, *, reject_label: str | None = None,
                       progress: Progress | None = None) -> tuple[int, int, tuple[str, ...]]:
    """Import what ``ex`` holds (all or nothing); returns (candidates, labels, models)."""
    from triage.ingest.exchange import import_exchange, resolve_labels

    db = project.writer.import_target("import Prodigy or Label Studio labels into")
    resolve_labels(ex, [o.value for o in project.settings.labels], reject_label)
    result = import_exchange(db, ex, seed=project.settings.seed, progress=progress)
    project.reload_models()
    if project.settings.overlap_rate > 0 and project.models:
        project.dispatcher.replan_overlap()
    return result


def _events(project: Project) -> list[dict[str, Any]]:
    """Every active label event with its candidate's key, text, rank and scores."""
    from triage.project.gain import project_scores

    scores = {m: s for m, (_col, s) in project_scores(project).items()}
    out = []
    for key, text, who, session, value, kind, created, seconds, note, cid in \
            store_exchange.label_events_with_keys(project.db):
        when = dt.datetime.fromisoformat(created)
        out.append({
            "key": key, "text": text, "annotator": who, "session": session, "value": value,
            "kind": kind, "created_at": created, "timestamp": int(when.timestamp()),
            "seconds": seconds, "note": note, "rank": project.rank_of(cid),
            "scores": {m: float(s[cid - 1]) for m, s in scores.items()
                       if not np.isnan(s[cid - 1])}})
    return out


def _tasks(project: Project, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every candidate with its scores and label events, best-ranked first."""
    from triage.project.gain import project_scores

    scores = {m: s for m, (_col, s) in project_scores(project).items()}
    by_key: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        by_key.setdefault(e["key"], []).append(e)
    tasks = [{"key": key, "text": text, "rank": project.rank_of(cid),
              "scores": {m: float(s[cid - 1]) for m, s in scores.items()},
              "events": by_key.get(key, [])}
             for cid, key, text in store_exchange.candidates_in_id_order(project.db)]
    return sorted(tasks, key=lambda t: t["rank"])


def export_interchange(project_path: str | Path, out: str | Path, fmt: str, *,
                       dataset: str | None = None) -> int:
    """Write the project as ``fmt`` to ``out`` atomically; returns the number of records.

    Prodigy: one task per active label event. Label Studio: one task per candidate, and
    its labeling config beside it (``OUT.config.xml``).
    """
    from triage.ingest.exchange import write_text_atomically
    from triage.project.files import open_project

    out = Path(out)
    with open_project(project_path) as project:
        if project.active_model() is None:
            raise TriageError(f"{project_path} has no candidates to export")
        events = _events(project)
        labels = [o.value for o in project.settings.labels]
        if fmt == "prodigy":
            from triage.ingest.prodigy import prodigy_lines

            write_text_atomically(out, prodigy_lines(events, labels,
                                                     dataset or Path(project_path).stem))
            return len(events)
        if fmt != "labelstudio":
            raise TriageError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
        from triage.ingest.labelstudio import labeling_config, labelstudio_chunks

        tasks = _tasks(project, events)
        write_text_atomically(out, labelstudio_chunks(tasks, project.settings.positive_labels[0]))
        write_text_atomically(out.with_suffix(".config.xml"), [labeling_config(labels)])
        return len(tasks)
