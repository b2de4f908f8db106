"""Rows for exporting a project: every candidate with its final label, in ranking order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from triage import store
from triage.final import final_labels
from triage.queue import decile_of


def export_fields(project) -> list[str]:
    models = [m.name for m in project.models]
    return (["key", "text", "rank", "decile"] + [f"score_{m}" for m in models]
            + ["gold", "label", "label_status", "labels", "annotators", "notes", "meta"])


def export_rows(project) -> Iterator[dict[str, Any]]:
    """Yield one dict per candidate, best-ranked first under the active model."""
    model = project.active_model()
    if model is None:
        return
    score_by_model: dict[str, np.ndarray] = {}
    for m in project.models:
        cur = project.db.conn.execute(
            "SELECT candidate_id, score FROM scores WHERE model_id = ?", [m.id])
        pairs = np.array(cur.fetchall(), dtype=np.float64).reshape(-1, 2)
        arr = np.full(int(pairs[:, 0].max()) + 1 if len(pairs) else 1, np.nan)
        arr[pairs[:, 0].astype(np.int64)] = pairs[:, 1]
        score_by_model[m.name] = arr
    rows = store.active_labels(project.db)
    finals = final_labels(rows)
    notes: dict[int, list[str]] = {}
    for r in rows:
        if r.note:
            notes.setdefault(r.candidate_id, []).append(f"{r.annotator}: {r.note}")
    pool = project.pool
    cur = project.db.conn.execute(
        "SELECT s.rank, c.id, c.key, c.text, c.gold, c.meta FROM scores s "
        "JOIN candidates c ON c.id = s.candidate_id WHERE s.model_id = ? ORDER BY s.rank",
        [model.id],
    )
    for rank, cid, key, text, gold, meta in cur:
        final = finals.get(cid)
        row: dict[str, Any] = {"key": key, "text": text, "rank": rank,
                               "decile": decile_of(rank, pool)}
        for name, arr in score_by_model.items():
            value = arr[cid] if cid < len(arr) else np.nan
            row[f"score_{name}"] = None if np.isnan(value) else float(value)
        row["gold"] = gold
        row["label"] = final.value if final else None
        row["label_status"] = final.status if final else "unlabeled"
        row["labels"] = len(final.votes) if final else 0
        row["annotators"] = ";".join(sorted(final.votes)) if final else ""
        row["notes"] = " | ".join(notes.get(cid, []))
        row["meta"] = json.loads(meta) if meta else None
        yield row
