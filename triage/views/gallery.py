"""The gallery: pictures of the positives found so far and of the disagreements, for a lead
to judge label quality at a glance (the lead window's Gallery tab and the report).

Qt-free plain data. One definition of each number, shared with the rest of Triage:

- a *positive found* is a candidate whose final label counts as positive
  (:func:`triage.project.final.is_positive`: resolved, never a tie), as exports,
  certification and the advice count it; ties with a positive vote are disagreements;
- a *disagreement* is a candidate whose annotators' current labels differ and that awaits a
  ruling (:func:`triage.project.adjudication.disagreements`, the Adjudication tab's queue).

Both come best-ranked first under the active model; a section holds at most ``limit``
items and says how many there are in all ("showing 60 of 1,234").
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from triage.base.pictures import PictureRef
from triage.project.final import is_positive
from triage.project.pictures import PictureSource, picture_source
from triage.project.reads import candidate_rows
from triage.views.text import feedback_excerpt
from triage.views.thumbnails import url_cache_folder

if TYPE_CHECKING:
    from triage.project.adjudication import Disagreement
    from triage.project.core import Project

LIMIT = 60               # thumbnails per section in the lead window
CAPTION_CHARS = 200
NO_PICTURES = ("This project's pool has no pictures (no image column), so there is nothing "
               "to show here. The Adjudication tab lists the disagreements as text.")


@dataclass(frozen=True)
class GalleryItem:
    """One candidate in the gallery: where its picture is and what it was labelled."""

    candidate_id: int
    key: str
    rank: int
    caption: str           # the text caption, bounded and with hidden characters shown
    labels: str            # "final: three" / "ada: three; bea: other (a tie)"
    ref: PictureRef | None

    @property
    def tooltip(self) -> str:
        """Key, rank, labels and caption in lines (plain text)."""
        lines = [f"{self.key} (rank {self.rank:,})", self.labels]
        return "\n".join(lines + ([self.caption] if self.caption else []))


@dataclass(frozen=True)
class GallerySection:
    """Positives or disagreements: the first items and the count of all."""

    title: str
    total: int
    items: tuple[GalleryItem, ...]

    @property
    def caption(self) -> str:
        """"Positives found: showing 60 of 1,234" (or "none yet")."""
        if not self.total:
            return f"{self.title}: none yet"
        if len(self.items) < self.total:
            return f"{self.title}: showing {len(self.items):,} of {self.total:,}"
        return f"{self.title}: {self.total:,}"


@dataclass(frozen=True)
class Gallery:
    """The gallery of a project; ``pictures`` False for a text-only pool (``message`` says)."""

    pictures: bool
    message: str
    positives: GallerySection
    disagreements: GallerySection
    cache: Path            # where the desk keeps fetched URLs (read, never fetched into)


def _votes(votes: dict[str, str]) -> str:
    return "; ".join(f"{who}: {value}" for who, value in sorted(votes.items()))


def positive_ids(project: Project) -> tuple[list[int], dict[int, Any]]:
    """The positives found so far (``is_positive``), best-ranked first, with the finals."""
    finals = project.final_labels()
    ids = [cid for cid, f in finals.items() if is_positive(f, project.settings)]
    ids.sort(key=project.rank_of)
    return ids, finals


def _positive_items(project: Project, source: PictureSource, ids: list[int],
                    finals: dict[int, Any]) -> tuple[GalleryItem, ...]:
    rows = candidate_rows(project, ids)
    out = []
    for cid in ids:
        key, text, meta, _gold = rows[cid]
        final = finals[cid]
        how = "ruled" if final.adjudicated else "final"
        labels = f"{how}: {final.value}"
        if len(final.votes) > 1:
            labels += f" ({_votes(final.votes)})"
        out.append(GalleryItem(cid, key, project.rank_of(cid),
                               feedback_excerpt(source.caption_of(text), CAPTION_CHARS),
                               labels, source.ref(text, meta)))
    return tuple(out)


def _disagreement_items(project: Project, source: PictureSource,
                        pending: list[Disagreement]) -> tuple[GalleryItem, ...]:
    rows = candidate_rows(project, [d.candidate_id for d in pending])
    out = []
    for d in pending:
        _key, text, meta, _gold = rows[d.candidate_id]
        state = "a tie" if d.majority is None else f"majority {d.majority}"
        out.append(GalleryItem(d.candidate_id, d.key, d.rank,
                               feedback_excerpt(source.caption_of(text), CAPTION_CHARS),
                               f"{_votes(d.votes)} ({state})", source.ref(text, meta)))
    return tuple(out)


def _without_pictures(cache: Path) -> Gallery:
    """The gallery of a pool with no image column: its message, two empty sections."""
    return Gallery(False, NO_PICTURES, GallerySection("Positives found", 0, ()),
                   GallerySection("Disagreements", 0, ()), cache)


def gallery(project: Project, limit: int = LIMIT) -> Gallery:
    """The gallery of an open project: the first ``limit`` positives and disagreements."""
    from triage.project.adjudication import disagreements

    source, cache = picture_source(project.db, project.location), url_cache_folder(project.location)
    if source is None:
        return _without_pictures(cache)
    ids, finals = positive_ids(project)
    pending = disagreements(project)
    positives = GallerySection("Positives found", len(ids),
                               _positive_items(project, source, ids[:limit], finals))
    disagree = GallerySection("Disagreements", len(pending),
                              _disagreement_items(project, source, pending[:limit]))
    return Gallery(True, "", positives, disagree, cache)


def gallery_at(path: str | Path, limit: int = LIMIT) -> Gallery:
    """Open the project at ``path`` here (the lead window's helper process): its gallery."""
    from triage.project.files import open_for_reading

    with open_for_reading(path) as project:
        return gallery(project, limit)


def report_gallery(project: Project, *, disagreements_limit: int = 24,
                   positives_sample: int = 24, seed: int = 0) -> Gallery:
    """The report's pictures: the first disagreements and a seeded sample of positives.

    The sample is shown best-ranked first, so a reader sees more than the top of the
    ranking."""
    from triage.project.adjudication import disagreements

    source, cache = picture_source(project.db, project.location), url_cache_folder(project.location)
    if source is None:
        return _without_pictures(cache)
    ids, finals = positive_ids(project)
    sample = sorted(random.Random(seed).sample(ids, min(positives_sample, len(ids))),
                    key=project.rank_of)
    pending = disagreements(project)
    return Gallery(True, "",
                   GallerySection("Positives found", len(ids),
                                  _positive_items(project, source, sample, finals)),
                   GallerySection("Disagreements", len(pending),
                                  _disagreement_items(project, source,
                                                      pending[:disagreements_limit])),
                   cache)


@dataclass(frozen=True)
class PictureOf:
    """One candidate's picture and caption (the adjudication and history panes)."""

    ref: PictureRef | None
    caption: str
    cache: Path


def pictures_of(project: Project, ids: list[int]) -> dict[int, PictureOf] | None:
    """The pictures of a few candidates by id (None: the pool has no pictures)."""
    source = picture_source(project.db, project.location)
    if source is None:
        return None
    cache = url_cache_folder(project.location)
    return {cid: PictureOf(source.ref(text, meta),
                           feedback_excerpt(source.caption_of(text), CAPTION_CHARS), cache)
            for cid, (_key, text, meta, _gold) in candidate_rows(project, ids).items()}


def picture_of(project: Project, candidate_id: int) -> PictureOf | None:
    """The picture of one candidate (None: the pool has no pictures, or no such candidate)."""
    found = pictures_of(project, [candidate_id])
    return None if found is None else found.get(candidate_id)
