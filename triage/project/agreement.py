"""Agreement over a project's own labels: long-form ratings fed to :mod:`triage.stats.agreement`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from triage import store
from triage.serving.queue import decile_of
from triage.store import candidates

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.stats.agreement.ratings import Coefficient
    from triage.stats.agreement.report import AgreementReport

RATING_KINDS = ("triage", "overlap", "audit", "certify")


@dataclass(frozen=True)
class ProjectRatings:
    """One rating per (candidate, annotator): their current label; plus re-test pairs."""

    items: list[str]
    annotators: list[str]
    labels: list[str]
    sessions: list[str]
    deciles: list[str]
    times: list[str]
    guideline_versions: list[str]  # "v2" (or "none" before any guidelines) per rating
    categories: list[str]
    retest_items: list[str]
    retest_annotators: list[str]
    retest_labels: list[str]
    retest_sessions: list[str]


def _current(rows: list[store.LabelEvent]) -> tuple[
        dict[tuple[int, str], tuple[store.LabelEvent, str]], list[tuple[store.LabelEvent, str]]]:
    """Each annotator's current rating of each candidate by (candidate, annotator), and the
    re-test events; skips are left out, so every value here is a label."""
    current: dict[tuple[int, str], tuple[store.LabelEvent, str]] = {}
    retest: list[tuple[store.LabelEvent, str]] = []
    for row in rows:
        if row.value is None:
            continue
        if row.kind in RATING_KINDS:
            current[(row.candidate_id, row.annotator)] = (row, row.value)
        elif row.kind == "retest":
            retest.append((row, row.value))
    return current, retest


def project_ratings(project: Project) -> ProjectRatings:
    """Current labels of every annotator (skips and undone events left out)."""
    rows = store.active_labels(project.db)
    versions = store.label_guideline_versions(project.db)
    keys = candidates.keys_by_id(project.db, sorted({r.candidate_id for r in rows}))
    current, retest = _current(rows)
    ordered = sorted(current.values(), key=lambda rv: rv[0].id)
    pool = project.pool
    out = ProjectRatings(
        items=[keys[r.candidate_id] for r, _ in ordered],
        annotators=[r.annotator for r, _ in ordered],
        labels=[value for _, value in ordered],
        sessions=[str(r.session_id) for r, _ in ordered],
        deciles=[str(decile_of(project.rank_of(r.candidate_id), pool)) for r, _ in ordered],
        times=[r.created_at for r, _ in ordered],
        guideline_versions=[_version(versions.get(r.id)) for r, _ in ordered],
        categories=[o.value for o in project.settings.labels],
        retest_items=[], retest_annotators=[], retest_labels=[], retest_sessions=[],
    )
    # Each re-test is paired with that annotator's original label of the candidate.
    for again in retest:
        r = again[0]
        original = current.get((r.candidate_id, r.annotator))
        if original is None:
            continue
        key = keys[r.candidate_id]
        for event, value in (original, again):
            out.retest_items.append(key)
            out.retest_annotators.append(event.annotator)
            out.retest_labels.append(value)
            out.retest_sessions.append(str(event.session_id))
    return out


def _version(version: int | None) -> str:
    return "none" if version is None else f"v{version}"


def agreement_for_project(project: Project, *, level: str = "nominal", seed: int = 0,
                          bootstrap: int = 1000,
                          breakdowns: Sequence[str] = ("pair", "annotator")) -> AgreementReport:
    """The full :class:`~triage.stats.agreement.report.AgreementReport` for an open project."""
    from triage.stats.agreement.breakdown import retest_agreement
    from triage.stats.agreement.report import agreement_report

    r = project_ratings(project)
    report = agreement_report(
        r.items, r.annotators, r.labels, level=level, categories=r.categories, seed=seed,
        bootstrap=bootstrap, breakdowns=breakdowns, session=r.sessions, decile=r.deciles,
        time=r.times, guideline_version=r.guideline_versions,
    )
    if r.retest_items:
        rows = retest_agreement(r.retest_items, r.retest_annotators, r.retest_labels,
                                r.retest_sessions, level=level, categories=r.categories)
        report = replace(report, retest=tuple(rows))
    return report


def project_reliability(project: Project, rows: list[store.LabelEvent]) -> tuple[Coefficient, int]:
    """Nominal Krippendorff's α and the pairable items of the active label events ``rows``.

    What the advice needs of :func:`agreement_for_project`, without the rest of the report:
    the same ratings in the same order as there, named by candidate id instead of key (a
    one-to-one renaming, so the same codes and the same α to the last bit).
    """
    from triage.stats.agreement.krippendorff import krippendorff_alpha
    from triage.stats.agreement.ratings import encode

    ordered = sorted(_current(rows)[0].values(), key=lambda rv: rv[0].id)
    ratings = encode([r.candidate_id for r, _ in ordered], [r.annotator for r, _ in ordered],
                     [value for _, value in ordered], level="nominal",
                     categories=[o.value for o in project.settings.labels])
    per_item = np.bincount(ratings.item, minlength=ratings.n_items)
    return krippendorff_alpha(ratings, "nominal"), int(np.count_nonzero(per_item >= 2))


def project_report(path: str | Path, args: argparse.Namespace) -> AgreementReport:
    """``triage agree PROJECT``."""
    from triage.project.files import open_project

    breakdowns = tuple(dict.fromkeys(["pair", "annotator", "session", "decile",
                                      *getattr(args, "by", [])]))
    with open_project(path) as project:
        return agreement_for_project(
            project, level=getattr(args, "level", "nominal"), seed=getattr(args, "seed", 0),
            bootstrap=getattr(args, "bootstrap", 1000), breakdowns=breakdowns,
        )
