"""The project: one SQLite file, and the documented Python API for scripts and notebooks.

    import triage
    with triage.open_project("idioms.triage") as project:
        session = project.start_session("ada")
        item = project.next_candidate(session)
        project.record_label(session, item.candidate_id, "idiom", seconds=2.5)
        project.undo(session)             # the candidate comes back
        print(project.status().snapshot.positives_found)

Every label is committed (durably: WAL + synchronous=FULL) before ``record_label``
returns, so whatever the caller shows next, the label is already safe.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from triage import db as dbmod
from triage import store
from triage.errors import BusyError, ProjectError, TriageError
from triage.live import LabelEvent, LiveSnapshot, LiveState, rebuild
from triage.queue import RankedQueue, decile_of
from triage.schema import LABEL_KINDS
from triage.settings import Settings

Progress = Callable[[int, int], bool | None]


@dataclass(frozen=True)
class Session:
    """An annotator's sitting at the desk; every label belongs to one."""

    annotator: str
    annotator_id: int
    session_id: int


@dataclass(frozen=True)
class Candidate:
    """What the desk shows: the candidate and where it stands in the active ranking."""

    candidate_id: int
    key: str
    text: str
    meta: dict[str, Any]
    rank: int
    decile: int
    pool: int
    score: float
    model: str
    kind: str = "triage"

    @property
    def depth(self) -> float:
        """How far into the pool this candidate sits (0..1)."""
        return self.rank / self.pool if self.pool else 0.0


@dataclass(frozen=True)
class ProjectStatus:
    path: str
    pool: int
    models: list[dict[str, Any]]
    active_model: str | None
    annotators: int
    sessions: dict[str, int]
    settings: Settings
    snapshot: LiveSnapshot


def _busy_guard(method):
    """Turn SQLite's 'database is locked' into BusyError: nothing written, safe to retry."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                raise BusyError(
                    "the project file is busy (another program is writing to it); "
                    "nothing was lost, try again"
                ) from error
            raise

    return wrapper


class Project:
    """An open project file. Use :func:`open_project` or :func:`create_project`."""

    def __init__(self, path: Path, database, backup: Path | None = None):
        self.path = path
        self.db = database
        self.backup = backup
        self.settings = store.load_settings(self.db)
        self._load_models()

    # -- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- models and ranking ----------------------------------------------------------

    def _load_models(self) -> None:
        self.models = store.models(self.db)
        self.pool = store.pool_size(self.db)
        self._queue: RankedQueue | None = None
        self._rank_of: np.ndarray | None = None
        self._live: LiveState | None = None
        model = self.active_model()
        if model is not None:
            self._queue = RankedQueue(self.db, model.id)

    def active_model(self) -> store.ModelInfo | None:
        """The model whose ranking the queue follows (the setting, else the first)."""
        if not self.models:
            return None
        by_name = {m.name: m for m in self.models}
        return by_name.get(self.settings.active_model or "", self.models[0])

    def rank_of(self, candidate_id: int) -> int:
        """1-based rank of a candidate under the active model."""
        return int(self._ranks()[candidate_id])

    def _ranks(self) -> np.ndarray:
        if self._rank_of is None:
            model = self._require_model()
            order = store.rank_order(self.db, model.id)
            ranks = np.zeros(int(order.max()) + 1 if order.size else 1, dtype=np.int64)
            ranks[order] = np.arange(1, order.size + 1)
            self._rank_of = ranks
        return self._rank_of

    def _require_model(self) -> store.ModelInfo:
        model = self.active_model()
        if model is None:
            raise TriageError(f"{self.path} has no candidates yet; import a file first")
        return model

    # -- settings ------------------------------------------------------------------------

    def update_settings(self, **changes: Any) -> Settings:
        """Validate and store new settings; the live state follows at once."""
        new = self.settings.with_changes(**changes)
        if new.active_model is not None and new.active_model not in {m.name for m in self.models}:
            raise TriageError(f"there is no model named {new.active_model!r}")
        store.save_settings(self.db, new)
        old = self.settings
        self.settings = new
        if new.active_model != old.active_model:
            self._load_models()
        else:
            self._live = None  # positives or prices may have changed: rebuild lazily
        return new

    def set_hourly_rate(self, annotator: str, rate: float | None) -> None:
        store.set_hourly_rate(self.db, annotator, rate)
        self._live = None

    # -- sessions --------------------------------------------------------------------

    @_busy_guard
    def start_session(self, annotator: str) -> Session:
        """Start an annotation session for ``annotator`` (created on first use)."""
        annotator_id = store.ensure_annotator(self.db, annotator)
        session_id = store.start_session(self.db, annotator_id)
        return Session(annotator.strip(), annotator_id, session_id)

    @_busy_guard
    def end_session(self, session: Session) -> None:
        store.end_session(self.db, session.session_id)

    # -- the queue -------------------------------------------------------------------

    @_busy_guard
    def next_candidate(self, session: Session | None = None) -> Candidate | None:
        """The best-ranked candidate nobody has labeled yet, or None when all are done."""
        if self._queue is None:
            self._require_model()
        found = self._queue.peek(1)
        if not found:
            return None
        rank, candidate_id, score = found[0]
        return self._candidate(candidate_id, rank, score)

    def upcoming(self, count: int) -> list[Candidate]:
        """The next ``count`` candidates in queue order (for previews and prefetch)."""
        if self._queue is None:
            return []
        return [self._candidate(c, r, s) for r, c, s in self._queue.peek(count)]

    def _candidate(self, candidate_id: int, rank: int, score: float, kind: str = "triage") -> Candidate:
        key, text, meta, _gold = store.candidate_rows(self.db, [candidate_id])[candidate_id]
        return Candidate(
            candidate_id=candidate_id, key=key, text=text, meta=meta, rank=rank,
            decile=decile_of(rank, self.pool), pool=self.pool, score=score,
            model=self._require_model().name, kind=kind,
        )

    # -- labels ----------------------------------------------------------------------

    @_busy_guard
    def record_label(
        self,
        session: Session,
        candidate_id: int,
        value: str | None,
        *,
        seconds: float = 0.0,
        note: str | None = None,
        kind: str = "triage",
    ) -> int:
        """Record (and durably commit) one label; ``value=None`` records a skip."""
        if value is not None and value not in {o.value for o in self.settings.labels}:
            raise TriageError(f"{value!r} is not a label of this project's scheme")
        if kind not in LABEL_KINDS:
            raise TriageError(f"unknown label kind {kind!r}")
        if not 0 < candidate_id < len(self._ranks()) or self._ranks()[candidate_id] == 0:
            raise TriageError(f"there is no candidate with id {candidate_id}")
        seconds = max(0.0, float(seconds))
        label_id = store.insert_label(
            self.db, candidate_id=candidate_id, annotator_id=session.annotator_id,
            session_id=session.session_id, value=value, kind=kind, seconds=seconds, note=note,
        )
        if self._live is not None:
            self._live.apply(self._event(label_id, candidate_id, session.annotator, value,
                                         seconds, kind))
        return label_id

    def skip(self, session: Session, candidate_id: int, *, seconds: float = 0.0,
             note: str | None = None) -> int:
        """Seen and paid for, but no class: the candidate is not served again."""
        return self.record_label(session, candidate_id, None, seconds=seconds, note=note)

    @_busy_guard
    def undo(self, session: Session) -> int | None:
        """Undo the annotator's last label (any session); returns its candidate id or None."""
        last = store.last_active_label(self.db, session.annotator_id)
        if last is None:
            return None
        store.mark_undone(self.db, last.id)
        rank = self.rank_of(last.candidate_id)
        if self._queue is not None:
            self._queue.rewind(rank)
        if self._live is not None:
            self._live.revert(self._event(last.id, last.candidate_id, last.annotator,
                                          last.value, last.seconds, last.kind))
        return last.candidate_id

    @_busy_guard
    def add_note(self, label_id: int, note: str) -> None:
        store.set_note(self.db, label_id, note)

    def _event(self, label_id: int, candidate_id: int, annotator: str, value: str | None,
               seconds: float, kind: str) -> LabelEvent:
        return LabelEvent(
            event_id=label_id, rank=self.rank_of(candidate_id), annotator=annotator,
            positive=self.settings.is_positive(value), skipped=value is None,
            seconds=seconds, kind=kind,
        )

    # -- live numbers ----------------------------------------------------------------

    @property
    def live(self) -> LiveState:
        """The incremental gain/spend state (rebuilt from the file on first use)."""
        if self._live is None:
            events = [
                self._event(r.id, r.candidate_id, r.annotator, r.value, r.seconds, r.kind)
                for r in store.active_labels(self.db)
            ]
            s = self.settings
            self._live = rebuild(
                self.pool, events, price_model=s.price_model, price_per_item=s.price_per_item,
                hourly_rates=store.hourly_rates(self.db, s.default_hourly_rate),
                budget=s.budget, value_per_positive=s.value_per_positive, currency=s.currency,
            )
        return self._live

    def snapshot(self) -> LiveSnapshot:
        return self.live.snapshot()

    def status(self) -> ProjectStatus:
        active = self.active_model()
        return ProjectStatus(
            path=str(self.path), pool=self.pool,
            models=[{"name": m.name, "column": m.source_column, "tied_items": m.tied_items}
                    for m in self.models],
            active_model=active.name if active else None,
            annotators=len(store.annotator_names(self.db)),
            sessions=store.session_counts(self.db), settings=self.settings,
            snapshot=self.snapshot() if self.models else None,
        )

    def has_gold(self) -> bool:
        return self.db.execute(
            "SELECT EXISTS(SELECT 1 FROM candidates WHERE gold IS NOT NULL AND gold != '')"
        ).fetchone()[0] == 1

    def gold_positive_in_rank_order(self, model: store.ModelInfo) -> np.ndarray:
        """Bool array: is the candidate at rank r+1 of ``model`` a gold positive?"""
        positives = list(self.settings.positive_labels)
        marks = ",".join("?" * len(positives))
        cur = self.db.conn.execute(
            "SELECT c.gold IN (" + marks + ") FROM scores s JOIN candidates c "
            "ON c.id = s.candidate_id WHERE s.model_id = ? ORDER BY s.rank",
            [*positives, model.id],
        )
        return np.fromiter((bool(r[0]) for r in cur), dtype=bool)

    def offline_curves(self) -> dict[str, np.ndarray]:
        """Per model, gold positives found after annotating the top r (index r-1).

        Empty when the project has no gold labels. Ties were broken by a seeded random
        order at import, so no model is favoured by the file's order.
        """
        if not self.has_gold():
            return {}
        return {m.name: np.cumsum(self.gold_positive_in_rank_order(m)) for m in self.models}

    def annotator_table(self) -> list[dict[str, Any]]:
        """Per annotator: labels, skips, positives, seconds per label, sessions, spend."""
        snap = self.snapshot()
        sessions = store.session_counts(self.db)
        names = sorted(set(sessions) | set(snap.labels_by_annotator))
        rows = []
        for name in names:
            labels = snap.labels_by_annotator.get(name, 0)
            skips = snap.skips_by_annotator.get(name, 0)
            seconds = snap.seconds_by_annotator.get(name, 0.0)
            events = labels + skips
            rows.append({
                "annotator": name, "labels": labels, "skips": skips,
                "positives": snap.positives_by_annotator.get(name, 0),
                "seconds_per_label": seconds / events if events else None,
                "sessions": sessions.get(name, 0),
                "spend": snap.spend_by_annotator.get(name, 0.0),
            })
        return rows

    # -- import ------------------------------------------------------------------------

    def import_file(self, path: str | Path, mapping, *, skip_invalid: bool = False,
                    progress: Progress | None = None):
        """Import the candidate pool (one transaction: all or nothing)."""
        from triage.importer import import_candidates

        result = import_candidates(self.db, path, mapping, skip_invalid=skip_invalid,
                                   progress=progress, seed=self.settings.seed)
        self._load_models()
        return result

    def add_scores(self, path: str | Path, *, key: str, scores, progress: Progress | None = None):
        """Add later models' scores, matched by key; labels are untouched."""
        from triage.importer import add_scores

        result = add_scores(self.db, path, key=key, scores=scores, progress=progress,
                            seed=self.settings.seed)
        self._load_models()
        return result


def create_project(path: str | Path, settings: Settings | None = None) -> Project:
    """Create a new, empty project file and open it."""
    path = Path(path)
    settings = (settings or Settings()).validate()
    database = dbmod.create_database(path)
    try:
        with database.atomic():
            store.set_project_info(database, "application", "triage")
            store.set_project_info(database, "created_at", store.now_iso())
        store.save_settings(database, settings)
    except BaseException:
        database.close()
        raise
    return Project(path, database)


def open_project(path: str | Path) -> Project:
    """Open an existing project file (migrating a copy-protected older one)."""
    path = Path(path)
    database, backup = dbmod.open_database(path)
    try:
        return Project(path, database, backup)
    except sqlite3.DatabaseError as error:
        database.close()
        raise ProjectError(f"{path} is damaged: {error}") from error


@contextmanager
def opened(path: str | Path) -> Iterator[Project]:
    project = open_project(path)
    try:
        yield project
    finally:
        project.close()
