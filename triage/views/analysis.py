"""What the agreement view, the advice banner and the adjudication table draw."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage.base.errors import TriageError
from triage.base.progress import Progress as Progress
from triage.project.reads import label_events
from triage.views.advice import (
    advice_lines,
    agreement_reading,
    agreement_reading_text,
    summary_lines,
)
from triage.views.agreement_words import agreement_words
from triage.views.formatting import awaiting, plural

if TYPE_CHECKING:
    from triage.project.core import Project




def _num(x: Any) -> float:
    """None (undefined) as NaN, for arrays that are drawn."""
    return math.nan if x is None else float(x)


# -- agreement ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Series:
    """One value per group (session, decile); NaN where undefined, with the reason."""

    groups: tuple[str, ...]
    labels: tuple[str, ...]
    values: np.ndarray
    items: tuple[int, ...]
    reasons: tuple[str | None, ...]
    percent: np.ndarray


@dataclass(frozen=True)
class AgreementViewData:
    """What the agreement view draws: α and its reading, κ per pair, α per session and decile."""

    alpha: float | None
    ci95: tuple[float, float] | None
    reading: str
    reading_text: str
    undefined_reason: str | None
    alpha_text: str
    summary: str
    annotators: tuple[str, ...]
    kappa: np.ndarray            # n x n, symmetric, NaN on the diagonal and where undefined
    kappa_items: np.ndarray      # n x n items both annotators rated
    kappa_reasons: dict[str, str]  # "A|B" -> why κ is undefined
    sessions: Series
    deciles: Series
    guidelines: Series       # α of the ratings given under each guideline version
    coefficients: str = ""   # κ, Fleiss' κ and AC1, each with its 95% interval

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON and tests (NaN as None)."""
        def series(s: Series) -> dict[str, Any]:
            return {"groups": list(s.groups), "labels": list(s.labels),
                    "alpha": [None if math.isnan(v) else float(v) for v in s.values],
                    "items": list(s.items)}
        return {
            "alpha": self.alpha, "ci95": list(self.ci95) if self.ci95 else None,
            "reading": self.reading, "alpha_text": self.alpha_text,
            "reading_text": self.reading_text, "undefined_reason": self.undefined_reason,
            "annotators": list(self.annotators),
            "kappa": [[None if math.isnan(v) else float(v) for v in row] for row in self.kappa],
            "kappa_items": self.kappa_items.tolist(), "kappa_reasons": dict(self.kappa_reasons),
            "sessions": series(self.sessions), "deciles": series(self.deciles),
            "guidelines": series(self.guidelines),
        }


def _series(rows: list[dict], by: str, names: Mapping[str, str]) -> Series:
    chosen = [r for r in rows if r["by"] == by]
    return Series(
        groups=tuple(r["group"] for r in chosen),
        labels=tuple(names.get(r["group"], r["group"]) for r in chosen),
        values=np.array([_num(r["alpha"]) for r in chosen], dtype=float),
        items=tuple(int(r["items"]) for r in chosen),
        reasons=tuple(r.get("reason") for r in chosen),
        percent=np.array([_num(r["percent_agreement"]) for r in chosen], dtype=float),
    )


def _pair_names(report: Mapping[str, Any]) -> list[str]:
    names: list[str] = []
    for pair in report.get("cohen_kappa_pairs", {}):
        for name in pair.split("|", 1):
            if name not in names:
                names.append(name)
    return sorted(names)


def coefficients_text(report: Mapping[str, Any]) -> str:
    """"Cohen's κ 0.612 (95% CI 0.520–0.701) · Fleiss' κ … · Gwet's AC1 …" (defined ones)."""
    parts = []
    for key, name in (("cohen_kappa_mean", "Cohen's κ"), ("fleiss_kappa", "Fleiss' κ"),
                      ("gwet_ac1", "Gwet's AC1")):
        value = report.get(key)
        if value is None:
            continue
        ci = report.get(f"{key}_ci95")
        parts.append(f"{name} {value:.3f}" + (f" (95% CI {ci[0]:.3f}–{ci[1]:.3f})" if ci else ""))
    return " · ".join(parts)


def agreement_view_data(report: Mapping[str, Any],
                        session_labels: Mapping[str, str] | None = None) -> AgreementViewData:
    """From ``AgreementReport.to_json()``: the headline, the κ matrix and the two series."""
    report = agreement_words(report)
    alpha = report.get("krippendorff_alpha")
    ci = report.get("alpha_ci95")
    ci = (float(ci[0]), float(ci[1])) if ci and None not in ci else None
    reading = report.get("reading", "undefined")
    reason = report.get("undefined_reason")
    if alpha is None:
        alpha_text = "Krippendorff's α is undefined"  # the reading line says why
    else:
        alpha_text = f"Krippendorff's α = {alpha:.3f}"
        if ci:
            alpha_text += f"  (95% CI {ci[0]:.3f} – {ci[1]:.3f})"
    names = _pair_names(report)
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    kappa = np.full((n, n), np.nan)
    items = np.zeros((n, n), dtype=int)
    reasons: dict[str, str] = {}
    for pair, row in report.get("cohen_kappa_pairs", {}).items():
        a, b = pair.split("|", 1)
        i, j = index[a], index[b]
        kappa[i, j] = kappa[j, i] = _num(row.get("kappa"))
        items[i, j] = items[j, i] = int(row.get("items", 0))
        if row.get("kappa") is None:
            reasons[pair] = row.get("reason") or "undefined"
    pairable = report.get("pairable_items", 0)
    summary = (f"{plural(report.get('items', 0), 'item')}, "
               f"{plural(report.get('annotators', 0), 'annotator')}, "
               f"{plural(report.get('ratings', 0), 'rating')}; "
               f"{plural(pairable, 'item')} rated by two or more")
    coefficients = coefficients_text(report)
    if coefficients:
        summary += "\n" + coefficients
    rows = list(report.get("breakdowns", []))
    return AgreementViewData(
        alpha=alpha, ci95=ci, reading=agreement_reading(reading, pairable),
        reading_text=agreement_reading_text(reading, pairable) if alpha is not None
        else f"undefined — {reason or 'no reason given'}",
        undefined_reason=reason, alpha_text=alpha_text, summary=summary,
        annotators=tuple(names), kappa=kappa, kappa_items=items, kappa_reasons=reasons,
        sessions=_series(rows, "session", session_labels or {}),
        deciles=_series(rows, "decile", {}),
        guidelines=_series(rows, "guideline_version", {}),
        coefficients=coefficients,
    )


AGREEMENT_BREAKDOWNS = ("pair", "annotator", "session", "decile", "guideline_version")


def agreement_job(project: Project, *, level: str = "nominal", seed: int = 0, bootstrap: int = 1000,
                  breakdowns: Sequence[str] = AGREEMENT_BREAKDOWNS
                  ) -> Callable[[Progress | None], dict[str, Any]]:
    """Read the ratings now (caller's thread); return ``work(progress)`` to run elsewhere.

    ``work`` computes the report's JSON from those arrays alone, so a worker thread never
    touches the database.

    Mirrors :func:`triage.project.agreement.agreement_for_project` (a test holds them equal).
    """
    from triage.project.agreement import project_ratings

    r = project_ratings(project)

    def work(progress: Progress | None = None) -> dict[str, Any]:
        from dataclasses import replace

        from triage.stats.agreement.breakdown import retest_agreement
        from triage.stats.agreement.report import agreement_report

        if progress is not None and progress(0, 1) is False:
            raise TriageError("the agreement computation was cancelled")
        report = agreement_report(
            r.items, r.annotators, r.labels, level=level, categories=r.categories, seed=seed,
            bootstrap=bootstrap, breakdowns=tuple(breakdowns), session=r.sessions,
            decile=r.deciles, time=r.times, guideline_version=r.guideline_versions)
        if r.retest_items:
            rows = retest_agreement(r.retest_items, r.retest_annotators, r.retest_labels,
                                    r.retest_sessions, level=level, categories=r.categories)
            report = replace(report, retest=tuple(rows))
        if progress is not None:
            progress(1, 1)
        return report.to_json()   # agreement_view_data words its reasons

    return work


def session_labels(project: Project) -> dict[str, str]:
    """Session id -> "ada · 3" (annotator and their n-th session) for the trend's axis."""
    seen: dict[int, str] = {}
    for row in label_events(project):
        seen.setdefault(row.session_id, row.annotator)
    count: dict[str, int] = {}
    out = {}
    for sid in sorted(seen):
        name = seen[sid]
        count[name] = count.get(name, 0) + 1
        out[str(sid)] = f"{name} · {count[name]}"
    return out


def agreement_at(path: str | Path, *, bootstrap: int = 1000) -> tuple[dict[str, Any],
                                                                    dict[str, str]]:
    """Open the project at ``path`` here (a helper process): (agreement report JSON, names).

    The names are :func:`session_labels`, for the trend's axis."""
    from triage.project.files import open_for_reading

    with open_for_reading(path) as project:
        work = agreement_job(project, bootstrap=bootstrap)
        names = session_labels(project)
    return work(None), names


def disagreements_at(path: str | Path) -> list[Any]:
    """Open the project at ``path`` here (a helper process): what awaits a ruling."""
    from triage.project.adjudication import disagreements
    from triage.project.files import open_for_reading

    with open_for_reading(path) as project:
        return disagreements(project)


# -- stopping advice ---------------------------------------------------------------------

@dataclass(frozen=True)
class BannerData:
    decision: str
    role: str          # go | stop | pause | none: which colour the banner takes
    badge: str         # a symbol and a word, so colour is never the only cue
    text: str          # the advice headline, verbatim
    details: tuple[str, ...]  # one line per rule, then the estimates
    stamp: str = ""    # "computed at 1,470 labels"


def banner_data(advice: Any) -> BannerData:
    """From the advice state (or its JSON): the headline, colour role, every rule, the stamp."""
    lines = advice_lines(advice)
    details = [f"{verdict:<8} {rule}: {detail}" for rule, verdict, detail in lines.rules]
    details += summary_lines(lines)
    return BannerData(lines.decision, lines.role, lines.badge, lines.headline, tuple(details),
                      lines.stamp)


# -- adjudication ------------------------------------------------------------------------

@dataclass(frozen=True)
class DisagreementRow:
    candidate_id: int
    rank: int
    key: str
    text: str
    votes: tuple[str, ...]   # one per annotator column; "" when that annotator did not label
    status: str


@dataclass(frozen=True)
class AdjudicationData:
    annotators: tuple[str, ...]
    rows: tuple[DisagreementRow, ...]
    labels: tuple[tuple[str, str], ...]  # (value, key) of the scheme
    summary: str


def _field(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, Mapping) else getattr(item, name)


def adjudication_data(items: Iterable[Any], scheme: Iterable[Any]) -> AdjudicationData:
    """Rows for the table from ``triage.project.adjudication.disagreements`` (objects or dicts)."""
    items = list(items)
    annotators = sorted({a for d in items for a in _field(d, "votes")})
    rows = []
    for d in items:
        votes = _field(d, "votes")
        status = _field(d, "status")
        if status == "majority":
            majority = d.get("majority") if isinstance(d, Mapping) else getattr(d, "majority", None)
            status = f"majority: {majority}" if majority else status
        elif status == "unresolved":
            status = "tie (unresolved)"
        rows.append(DisagreementRow(
            int(_field(d, "candidate_id")), int(_field(d, "rank")), str(_field(d, "key")),
            str(_field(d, "text")), tuple(votes.get(a, "") for a in annotators), status))
    labels = tuple((_field(o, "value"), _field(o, "key")) for o in scheme)
    ties = sum(1 for r in rows if r.status.startswith("tie"))
    summary = (f"{awaiting(len(rows), 'candidate')} "
               f"({ties} tie{'s' if ties != 1 else ''}, {len(rows) - ties} with a majority)"
               if rows else "No disagreements await a ruling.")
    return AdjudicationData(tuple(annotators), tuple(rows), labels, summary)
