"""What a project hands out: sessions, candidates, status; and the busy-file guard."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from triage.base.errors import BusyError
from triage.base.progress import Progress as Progress
from triage.stats.live import LiveSnapshot
from triage.store.faults import explain
from triage.store.settings import Settings

_Self = TypeVar("_Self")
_Params = ParamSpec("_Params")
_Result = TypeVar("_Result")


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
    """What ``triage status`` reports; ``snapshot`` is None before any candidate is imported."""

    path: str
    pool: int
    models: list[dict[str, Any]]
    active_model: str | None
    annotators: int
    sessions: dict[str, int]
    settings: Settings
    snapshot: LiveSnapshot | None


def _raise_explained(project: Any, error: BaseException) -> None:
    """Raise the user-facing error for a file fault; return when ``error`` is none."""
    explained = explain(error, getattr(project, "location", None))
    if explained is not None:
        raise explained from error


def busy_guard(
    method: Callable[Concatenate[_Self, _Params], _Result],
) -> Callable[Concatenate[_Self, _Params], _Result]:
    """Turn SQLite's 'database is locked' into BusyError: nothing written, safe to retry."""

    @functools.wraps(method)
    def wrapper(self: _Self, *args: _Params.args, **kwargs: _Params.kwargs) -> _Result:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                raise BusyError(
                    "the project file is busy (another program is writing to it); "
                    "nothing was lost, try again"
                ) from error
            _raise_explained(self, error)
            raise
        except (sqlite3.DatabaseError, OSError) as error:
            # A full disk, a read-only file, a damaged page: one sentence, never a traceback.
            _raise_explained(self, error)
            raise

    return wrapper


class ServerSide(Protocol):
    """What a project on a team server offers beside a file's (``Project.server``)."""

    @property
    def address(self) -> str:
        """The server address (shown instead of the replica's file name)."""

    @property
    def role(self) -> str | None:
        """The login role this project is worked on as."""

    @property
    def server_problems(self) -> str | None:
        """"N rows from the server could not be used: …" when a pull set rows aside."""

    def listener(self, on_change: Callable[[set[str]], None]) -> Any:
        """A live listener (not started) that pulls each change, then calls ``on_change``."""
