"""The project store: the SQLite file, its schema and migrations, settings and label events.

This package is the only place in ``triage/`` that holds SQL (``tests/test_architecture_sql.py``
checks it). Callers use it as a module of small typed functions
(``from triage import store; store.insert_label(db, ...)``); the functions live in
:mod:`triage.store.records`, the connection in :mod:`triage.store.connection`, the schema in
:mod:`triage.store.schema` and the settings type in :mod:`triage.store.settings`.

The SQL of particular jobs lives in submodules that callers import by name
(``from triage.store import claims; claims.claim(db, ...)``): :mod:`~triage.store.bulk`
(the import's bulk writes and pragmas), :mod:`~triage.store.candidates` (reads of the pool),
:mod:`~triage.store.claims` (the dispatcher's claims and overlap plan) and
:mod:`~triage.store.merging` (merging project copies).
"""

from triage.store._quiet_import import import_sqlite_utils

import_sqlite_utils()  # before any module of ours imports it (see the module)

from triage.store.curation import (  # noqa: E402
    GuidelineRow,
    add_guidelines,
    guideline_versions,
    label_guideline_versions,
    last_active_ruling,
    latest_guidelines,
    recent_labels,
)
from triage.store.records import (  # noqa: E402
    LabelRow,
    ModelInfo,
    active_labels,
    annotator_names,
    candidate_id_by_key,
    candidate_rows,
    end_session,
    ensure_annotator,
    gold_by_candidate,
    hourly_rates,
    insert_label,
    labels_after,
    last_active_label,
    load_settings,
    mark_undone,
    max_undo_seq,
    models,
    new_uid,
    now_iso,
    pool_size,
    project_info,
    rank_order,
    ranking,
    save_ranking,
    save_settings,
    scores_by_candidate,
    scores_in_rank_order,
    session_counts,
    set_hourly_rate,
    set_note,
    set_project_info,
    start_session,
    undone_after,
)

__all__ = [
    "GuidelineRow",
    "add_guidelines",
    "guideline_versions",
    "label_guideline_versions",
    "last_active_ruling",
    "latest_guidelines",
    "recent_labels",
    "new_uid",
    "now_iso",
    "ModelInfo",
    "LabelRow",
    "load_settings",
    "save_settings",
    "set_project_info",
    "project_info",
    "models",
    "pool_size",
    "save_ranking",
    "ranking",
    "rank_order",
    "scores_in_rank_order",
    "scores_by_candidate",
    "gold_by_candidate",
    "ensure_annotator",
    "start_session",
    "end_session",
    "insert_label",
    "last_active_label",
    "mark_undone",
    "labels_after",
    "undone_after",
    "set_note",
    "active_labels",
    "max_undo_seq",
    "candidate_rows",
    "candidate_id_by_key",
    "annotator_names",
    "hourly_rates",
    "set_hourly_rate",
    "session_counts",
]
