"""The pictures of a project: where each candidate's picture is, and which cannot be shown.

The import records the image column, the caption column and the pool file's folder in
the ``project`` table (see :func:`triage.ingest.import_parts.image_rows`). Relative cells resolve against
that folder; if it no longer exists (the pool moved), against the project file's folder.

"Could not be shown" is computed when asked (``--check-images``), not recorded by the
desk: a picture that is missing today may be restored tomorrow, and a count taken now
over the whole pool says what a lead needs to know before paying people to look.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from triage import store
from triage.base.jobs import lane
from triage.base.pictures import PictureRef, check_file, resolve
from triage.store import candidates


@dataclass(frozen=True)
class PictureSource:
    """Where a project's pictures are: image column, caption column ("" none), folder."""

    column: str
    caption: str
    folder: Path

    def ref(self, text: str, meta: dict[str, Any]) -> PictureRef | None:
        """The picture of a candidate with this ``text`` and ``meta`` (None: no cell)."""
        given = meta.get(self.column) if self.caption else text
        if given is None or not str(given).strip():
            return None
        return resolve(str(given), self.folder)

    def caption_of(self, text: str) -> str:
        """The caption shown under the picture ("" when the pool has no text column)."""
        return text if self.caption else ""


def picture_source(db: Any, location: str | None = None) -> PictureSource | None:
    """The project's pictures (None: a text-only pool).

    ``location``: the project file, whose folder stands in when the recorded pool folder
    is gone.
    """
    info = store.project_info(db)
    column = info.get("image_column")
    if not column:
        return None
    folder = Path(info.get("image_folder") or ".")
    if not folder.is_dir() and location:
        folder = Path(location).resolve().parent
    return PictureSource(column, info.get("image_caption") or "", folder)


@dataclass
class PictureCheck:
    """The result of checking every picture: counts, and the first problems in full."""

    total: int = 0
    remote: int = 0            # URLs: fetched at the desk, not checked here
    blank: int = 0             # no image cell
    reasons: Counter[str] = field(default_factory=Counter)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # key, cell, why

    @property
    def not_shown(self) -> int:
        """How many pictures could not be shown (blank cells included)."""
        return self.blank + sum(self.reasons.values())

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON and the report."""
        return {"pictures": self.total, "remote": self.remote, "not_shown": self.not_shown,
                "blank": self.blank, "reasons": dict(self.reasons),
                "examples": [{"key": k, "cell": c, "reason": r} for k, c, r in self.problems]}


def _why(ref: PictureRef | None) -> str | None:
    if ref is None:
        return "no picture"
    if ref.path is None:
        return None
    return check_file(ref.path)


def check_pictures(db: Any, source: PictureSource, *, workers: int | None = None,
                   examples: int = 20, ids: Sequence[int] | None = None) -> PictureCheck:
    """Check that every local picture (or those of ``ids``) exists and looks whole.

    Header and ending are read, in parallel threads: the work is file reads, which
    release the GIL.
    """
    result = PictureCheck()
    workers = workers or min(32, 4 * (os.cpu_count() or 1))
    column = source.column if source.caption else None
    with lane("picture-check", workers) as pool:
        for cells in candidates.picture_cells(db, column, ids=ids):
            refs = [None if c is None or not c.strip() else resolve(c, source.folder)
                    for _, c in cells]
            result.remote += sum(1 for r in refs if r is not None and r.url is not None)
            for (key, cell), why in zip(cells, pool.map(_why, refs, chunksize=64),
                                        strict=True):
                if why is not None:
                    _count(result, key, cell, why, examples)
            result.total += len(cells)
    return result


def _count(result: PictureCheck, key: str, cell: str | None, why: str, examples: int) -> None:
    if why == "no picture":
        result.blank += 1
    else:
        result.reasons[why.split(" (")[0]] += 1  # the reason without its figures
    if len(result.problems) < examples:
        result.problems.append((key, cell or "", why))


def render_check(check: PictureCheck) -> str:
    """The check as lines of text for the command line."""
    lines = [f"pictures: {check.total:,}; could not be shown: {check.not_shown:,}"
             + (f"; {check.remote:,} URLs (fetched at the desk, not checked)"
                if check.remote else "")]
    if check.blank:
        lines.append(f"  {check.blank:,}: no picture in the cell")
    lines += [f"  {n:,}: {why}" for why, n in check.reasons.most_common()]
    lines += [f"  e.g. {key}: {cell}: {why}" for key, cell, why in check.problems[:5]]
    return "\n".join(lines)
