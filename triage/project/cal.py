"""Training the ``cal`` ranking on a project's labels: what a snapshot is fit on, and when.

:func:`train_snapshot` reads the project (candidate text, every imported model's scores,
the active label events), fits the cal model on the labels it may learn from (never the
audit or certification samples) and returns a :class:`~triage.store.calsnap.CalSnapshot`
for the caller to store through the project's writer. It runs in one helper process
(:func:`triage.project.cal_helper.train_cal_at` opens the project there, read-only), which keeps the feature matrix
between fits, so the text is hashed once; the desk keeps serving the newest stored
snapshot meanwhile and never waits for a fit.

A pool of pictures without captions has no text: its cal model learns from the imported
scores only, and the snapshot says so (``features = "scores"``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np
import sqlite_utils

from triage import store
from triage.stats.models.cal import CalConfig, build_features, fit_scores, head, next_refit
from triage.stats.models.cal import trainable as trainable_kinds
from triage.store import calsnap, connection
from triage.store.calsnap import CalSnapshot
from triage.store.settings import Settings

ARM = "cal"                 # the arm's name, and the active-model setting that follows it
TEXT_AND_SCORES = "text+scores"
SCORES_ONLY = "scores"
_features: dict[tuple[Any, ...], tuple[np.ndarray, Any, str]] = {}  # per helper process


def has_text(db: sqlite_utils.Database) -> bool:
    """False for a pool of pictures without captions (its text cells are file names)."""
    info = store.project_info(db)
    return not (info.get("image_column") and not info.get("image_caption"))


def features_for(db: sqlite_utils.Database) -> tuple[np.ndarray, Any, str]:
    """(candidate ids, feature matrix, what it holds): built once per pool and models."""
    models = store.models(db)
    key = (connection.database_path(db), store.pool_size(db),
           tuple((m.id, m.name) for m in models), has_text(db))
    cached = _features.get(key)
    if cached is not None:
        return cached
    ids, texts = calsnap.candidate_texts(db)
    scores = []
    for m in models:
        by_id = store.scores_by_candidate(db, m.id)
        col = np.full(ids.size, np.nan)
        ok = ids < by_id.size
        col[ok] = by_id[ids[ok]]
        scores.append(col)
    text = has_text(db)
    feats = build_features(texts if text else None, scores)
    _features.clear()
    _features[key] = (ids, feats, TEXT_AND_SCORES if text else SCORES_ONLY)
    return _features[key]


def training_set(db: sqlite_utils.Database, settings: Settings, upto: int | None = None
                 ) -> tuple[dict[int, bool], set[int], int]:
    """({candidate: positive} to learn from, candidates handled by anyone, last event id).

    Audit and certification labels are never learned from; a candidate's latest
    trainable, non-skip label is the one used. ``upto``: only events with ids up to it.
    """
    events = [e for e in calsnap.training_events(db) if upto is None or e[0] <= upto]
    ok = trainable_kinds([e[3] for e in events])
    learn: dict[int, bool] = {}
    handled: set[int] = set()
    for (_lid, cid, value, _kind), use in zip(events, ok):
        handled.add(cid)
        if use and value is not None:
            learn[cid] = settings.is_positive(value)
    return learn, handled, max((e[0] for e in events), default=0)


def due(db: sqlite_utils.Database, settings: Settings, config: CalConfig) -> bool:
    """Whether enough new labels came in since the newest snapshot for another fit."""
    learn, _handled, _last = training_set(db, settings)
    latest = calsnap.latest_snapshot(db)
    start = config.every if latest is None else next_refit(latest.labels_used, config)
    return len(learn) >= start


def up_to_date(db: sqlite_utils.Database, settings: Settings) -> bool:
    """Whether the newest snapshot was fit on exactly the labels there are now.

    A fit on the same labels would store the same ranking again, so ``triage learn``
    says the ranking is up to date instead.
    """
    latest = calsnap.latest_snapshot(db)
    if latest is None:
        return False
    learn, _handled, last = training_set(db, settings)
    return len(learn) == latest.labels_used and last == latest.last_label_id


def train_snapshot(db: sqlite_utils.Database, settings: Settings,
                   config: CalConfig | None = None, upto: int | None = None
                   ) -> CalSnapshot | None:
    """Fit the cal model on the project's labels now; None until both classes are labeled.

    ``upto``: learn from the label events up to this id only (to replay a stored fit).
    """
    config = config or CalConfig(seed=settings.seed)
    learn, handled, last = training_set(db, settings, upto)
    ids, feats, kind = features_for(db)
    row_of = {int(c): i for i, c in enumerate(ids)}
    rows = np.asarray([row_of[c] for c in learn if c in row_of], dtype=np.int64)
    y = np.asarray([learn[int(ids[r])] for r in rows], dtype=bool)
    scores = fit_scores(feats, rows, y, config.seed, config)
    if scores is None:
        return None
    excluded = np.zeros(ids.size, dtype=bool)
    excluded[[row_of[c] for c in handled if c in row_of]] = True
    top = head(scores, excluded, config.keep, config.seed)
    return CalSnapshot(labels_used=int(rows.size), last_label_id=int(last), features=kind,
                       config=asdict(config), candidate_ids=ids[top], scores=scores[top])


def newest_label_id(db: sqlite_utils.Database) -> int:
    """The last label event the newest stored snapshot learned from (0: none yet)."""
    latest = calsnap.latest_snapshot(db)
    return latest.last_label_id if latest is not None else 0


def cal_status(db: sqlite_utils.Database, settings: Settings) -> dict[str, Any] | None:
    """What ``triage status`` says of the cal ranking (None when the project does not learn)."""
    if not (settings.learn or settings.active_model == ARM):
        return None
    latest = calsnap.latest_snapshot(db)
    return {"followed": settings.active_model == ARM and settings.queue_mode == "follow", "snapshots": calsnap.snapshot_count(db),
            "labels_used": latest.labels_used if latest else None,
            "last_label_id": latest.last_label_id if latest else None,
            "features": latest.features if latest else
            (TEXT_AND_SCORES if has_text(db) else SCORES_ONLY)}


def verify_snapshots(db: sqlite_utils.Database, settings: Settings) -> list[dict[str, Any]]:
    """Refit every stored snapshot from the labels it names; whether each replays exactly.

    (A label undone after a snapshot was fit is missing from its replay: such a snapshot
    differs, and says so.)
    """
    out = []
    for snap in calsnap.all_snapshots(db):
        config = CalConfig(**snap.config)
        again = train_snapshot(db, settings, config, upto=snap.last_label_id)
        same = (again is not None and again.labels_used == snap.labels_used
                and np.array_equal(again.candidate_ids, snap.candidate_ids)
                and np.allclose(again.scores, snap.scores, rtol=0, atol=1e-9))
        out.append({"id": snap.id, "labels_used": snap.labels_used, "same": bool(same)})
    return out


__all__ = ["ARM", "cal_status", "SCORES_ONLY", "TEXT_AND_SCORES", "due", "features_for", "has_text",
           "train_snapshot", "training_set", "up_to_date", "verify_snapshots"]
