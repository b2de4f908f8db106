"""The project store: the SQLite file, its schema and migrations, settings and label events.

This package is the only place in ``triage/`` that holds SQL (``tests/test_architecture_sql.py``
checks it). Callers read through it as a module of small typed functions
(``from triage import store; store.active_labels(db)``); the functions live in
:mod:`triage.store.records`, the connection in :mod:`triage.store.connection`, the schema in
:mod:`triage.store.schema` and the settings type in :mod:`triage.store.settings`.

It exports reads and the writers, never a write function: an open project writes only
through its :class:`ProjectWriter` (the project file's :class:`FileWriter`, or a team
server's ``TeamWriter``), whose methods are the only callers of the store's writes.

The SQL of particular jobs lives in submodules that callers import by name
(``from triage.store import claims; claims.claim(db, ...)``): :mod:`~triage.store.bulk`
(the import's bulk writes and pragmas), :mod:`~triage.store.candidates` (reads of the pool),
:mod:`~triage.store.claims` (the dispatcher's claims and overlap plan) and
:mod:`~triage.store.merging` (merging project copies).
"""

from triage.store._quiet_import import import_sqlite_utils

import_sqlite_utils()  # before any module of ours imports it (see the module)

from triage.base.labels import LabelEvent  # noqa: E402
from triage.store.curation import (  # noqa: E402
    GuidelineRow,
    guideline_versions,
    label_guideline_versions,
    last_active_ruling,
    latest_guidelines,
    recent_labels,
)
from triage.store.records import (  # noqa: E402
    ModelInfo,
    active_labels,
    annotator_names,
    candidate_id_by_key,
    candidate_rows,
    gold_by_candidate,
    hourly_rates,
    labels_after,
    last_active_label,
    load_settings,
    max_undo_seq,
    models,
    new_uid,
    now_iso,
    pool_size,
    project_info,
    rank_order,
    ranking,
    scores_by_candidate,
    scores_in_rank_order,
    session_counts,
    undone_after,
)
from triage.store.writer import FileWriter, ProjectWriter  # noqa: E402

__all__ = [
    "FileWriter",
    "ProjectWriter",
    "GuidelineRow",
    "guideline_versions",
    "label_guideline_versions",
    "last_active_ruling",
    "latest_guidelines",
    "recent_labels",
    "new_uid",
    "now_iso",
    "ModelInfo",
    "LabelEvent",
    "load_settings",
    "project_info",
    "models",
    "pool_size",
    "ranking",
    "rank_order",
    "scores_in_rank_order",
    "scores_by_candidate",
    "gold_by_candidate",
    "last_active_label",
    "labels_after",
    "undone_after",
    "active_labels",
    "max_undo_seq",
    "candidate_rows",
    "candidate_id_by_key",
    "annotator_names",
    "hourly_rates",
    "session_counts",
]
