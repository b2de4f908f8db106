"""The report's data: one JSON-ready dict with every number behind every section and chart.

Nothing is computed here that another command already computes: the advice is
``advise --json``, the agreement ``agree --json``, the offline gain ``gain --json``, the
spend, gain and yield panels' data come from :mod:`triage.views.panels` and the model
comparison from :mod:`triage.views.models`. This module gathers them and adds one
plain-language reading per section. HTML, PDF and ``report --json`` all render this dict.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from triage.base.errors import TriageError
from triage.base.jsonutil import jsonable
from triage.base.progress import Progress as Progress
from triage.views.advice import advice_lines
from triage.views.agreement_words import agreement_words
from triage.views.gain_words import gain_words
from triage.views.panels import (
    PanelInfo,
    comparison_data,
    format_money,
    format_share,
    gain_data,
    recall_band,
    spend_data,
    yield_data,
)
from triage.views.report import readings

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.stats.live import LiveSnapshot
    from triage.views.report.side import Side

AGREEMENT_BREAKDOWNS = ("pair", "annotator", "session", "decile")
STEPS = 6


def report_advice(project: Project) -> dict[str, Any]:
    """The stopping advice exactly as ``triage advise --json`` prints it (one call site)."""
    from triage.project.advice import advice_state
    from triage.views.rule_words import worded

    return worded(advice_state(project).to_json())


def _tick(progress: Progress | None, done: int) -> None:
    if progress is not None and progress(done, STEPS) is False:
        raise TriageError("the report was cancelled; nothing was written")


def _settings(settings: Any) -> dict[str, Any]:
    data = dataclasses.asdict(settings)
    data["labels"] = [{"value": o["value"], "key": o["key"]} for o in data["labels"]]
    return data


def _project_section(project: Project, snap: LiveSnapshot) -> dict[str, Any]:
    st = project.status()
    data = {"file": st.path, "name": project.path.stem, "pool": st.pool, "models": st.models,
            "active_model": st.active_model, "annotators": st.annotators,
            "sessions": st.sessions, "settings": _settings(project.settings),
            "annotator_table": project.annotator_table(), "events": snap.events,
            "annotated": snap.annotated, "positives_found": snap.positives_found}
    data["reading"] = readings.project(data)
    return data


def _active_name(project: Project) -> str | None:
    model = project.active_model()
    return model.name if model is not None else None


def side_first(project: Project) -> dict[str, Any]:
    """What a second process computes first and sends at once: the gold curves.

    They need a scan of the pool's gold labels, which its models' section reads anyway."""
    return {"offline_curves": project.offline_curves()}


def _panel_info(project: Project, side: Side | None) -> PanelInfo:
    s = project.settings
    first = side.first() if side is not None else None
    return PanelInfo(pool=project.pool, currency=s.currency, budget=s.budget,
                     value_per_positive=s.value_per_positive, price_per_item=s.price_per_item,
                     offline_curves=first["offline_curves"] if first is not None
                     else project.offline_curves(),
                     active_model=_active_name(project),
                     annotator_rows=project.annotator_table())


def _spend_section(project: Project, snap: LiveSnapshot, info: PanelInfo) -> dict[str, Any]:
    from triage.project.report import spend_timeline

    data = spend_data(snap, info).as_dict()
    data["timeline"] = spend_timeline(project)
    data["price_model"] = snap.price_model
    data["reading"] = readings.spend(data)
    return data


def _gain_section(snap: LiveSnapshot, info: PanelInfo, advice: dict[str, Any]) -> dict[str, Any]:
    gain = dataclasses.replace(gain_data(snap, info), band=recall_band(advice))
    data = gain.as_dict()
    data["estimated_recall"] = advice.get("estimated_recall")
    data["estimated_total_positives"] = advice.get("estimated_total_positives")
    data["positives_found"] = snap.positives_found
    lines = advice_lines(advice)
    data["recall_lines"] = [x for x in (lines.recall, lines.remaining) if x]
    data["left_text"] = lines.remaining.removeprefix("positives left: ")
    data["reading"] = readings.gain(data)
    return data


def _advice_section(advice: dict[str, Any]) -> dict[str, Any]:
    """The advice JSON plus its words: each rule's sentence and what it rests on."""
    from triage.views.rule_numbers import rule_numbers_text

    lines = advice_lines(advice)
    cur = str(advice.get("currency") or "USD")
    rows = [{"rule": rule.replace("_", " "), "verdict": verdict, "detail": detail,
             "numbers": rule_numbers_text(rule, r.get("numbers"), cur)}
            for (rule, verdict, detail), r in zip(lines.rules, advice.get("reasons", []),
                                                  strict=True)]
    return dict(advice, reading=readings.advice(advice), rule_rows=rows,
                next_batch_text=lines.next_batch, plan_text=lines.plan)


def _record_text(record: dict[str, Any] | None) -> str:
    """The certification sample on record, in words."""
    if not record:
        return ""
    state = "running" if record.get("running") else (record.get("outcome") or "ended")
    p = record.get("p_value")
    return (f"{int(record.get('labelled') or 0):,} of {int(record.get('planned') or 0):,} "
            f"planned labels, {int(record.get('positives') or 0):,} positive, drawn from "
            f"{int(record.get('remaining') or 0):,} unlabelled items at "
            f"{int(record.get('labels_at') or 0):,} labels; {state}"
            + ("" if p is None else f"; p = {float(p):.3f}"))


def _yield_section(snap: LiveSnapshot, info: PanelInfo) -> dict[str, Any]:
    data = yield_data(snap, info).as_dict()
    data["currency"] = info.currency
    data["price_model"] = snap.price_model
    data["reading"] = readings.yield_(data)
    return data


def _agreement_section(project: Project, bootstrap: int, seed: int) -> dict[str, Any]:
    from triage.project.agreement import agreement_for_project
    from triage.project.report import labels_have_guideline_versions

    versions = labels_have_guideline_versions(project)
    # With guideline versions this is ``agree PROJECT --by guideline_version --json``.
    breakdowns = AGREEMENT_BREAKDOWNS + (("guideline_version",) if versions else ())
    report = agreement_words(agreement_for_project(project, seed=seed, bootstrap=bootstrap,
                                                   breakdowns=breakdowns).to_json())
    rows = [r for r in report["breakdowns"] if r["by"] == "guideline_version"]
    data = {"report": report, "guideline_versions": rows or None,
            "guideline_note": "α per guideline version is in the breakdowns below." if rows
            else "This project has no guideline versions yet, so agreement is not broken "
                 "down by them."}
    data["reading"] = readings.agreement(report)
    return data


def _model_parts(project: Project, seed: int) -> dict[str, Any]:
    """The models section's heavy parts: the gain report and the model view (no p-values)."""
    from triage.project.gain import project_gain_report
    from triage.views.models import build_models_view_data

    gain = gain_words(project_gain_report(project))
    try:
        # The report shows no p-values: the paired permutation tests (most of a report's
        # time at a million gold labels) are left to `triage compare` and the Models tab.
        # Nor the ROC/PR points and every item's gain curve (the gain report has them by
        # decile): computing them and turning a million numbers into lists cost the child
        # a tenth of its time.
        view = build_models_view_data(project, seed=seed, pvalues=False,
                                      curves=False).as_dict()
    except TriageError as error:
        view = {"unavailable": str(error)}
    view.pop("curves", None)
    view.pop("gain", None)
    return {"gain_report": gain, "view": view}


def _models_section(parts: dict[str, Any], snap: LiveSnapshot,
                    info: PanelInfo) -> dict[str, Any]:
    comparison = comparison_data(snap, info).as_dict()
    comparison.pop("curves", None)  # the gain report holds the curves by decile
    data: dict[str, Any] = {"gain_report": parts["gain_report"], "at_budget": comparison,
                            "view": parts["view"]}
    data["reading"] = readings.models(data, info.currency)
    return data


def _sample_reads(project: Project) -> dict[str, Any]:
    """What the samples section reads: the audit items, disagreements and notes."""
    from triage.project.adjudication import disagreements
    from triage.project.report import audit_items, label_notes

    return {"audit": audit_items(project), "pending": disagreements(project),
            "notes": label_notes(project)}


def _samples_section(project: Project, reads: dict[str, Any],
                     advice: dict[str, Any]) -> dict[str, Any]:
    items, pending = reads["audit"], reads["pending"]
    recall = next((r for r in advice.get("reasons", []) if r["rule"] == "recall"), None)
    data: dict[str, Any] = {
        "audit_rate": project.settings.audit_rate,
        "audit": {"items": len(items), "positives": sum(1 for i in items if i["positive"]),
                  "list": items},
        "certification": None if recall is None else {
            "verdict": recall["verdict"], "detail": recall["detail"],
            "numbers": recall["numbers"],
            "texts": [part["text"] for part in (advice.get("certification") or {}).values()
                      if isinstance(part, dict) and part.get("text")],
            "record": advice.get("certification_record"),
            "record_text": _record_text(advice.get("certification_record"))},
        "disagreements": {"count": len(pending), "list": [
            {"key": d.key, "text": d.text, "rank": d.rank, "votes": d.votes,
             "status": d.status} for d in pending[:50]]},
        "notes": reads["notes"],
    }
    data["reading"] = readings.samples(data)
    return data


def _gallery_items(section: Any, cache: Any, images: bool) -> list[dict[str, Any]]:
    from triage.base.jobs import lane
    from triage.views.thumbnails import report_thumbnail

    thumbs: list[Any] = [None] * len(section.items)
    if images:   # decoding releases the GIL: a few threads make the pictures side by side
        with lane("report-thumbnails", 4) as pool:
            thumbs = [t.as_dict() for t in pool.map(
                lambda item: report_thumbnail(item.ref, cache), section.items)]
    return [{"key": item.key, "rank": item.rank, "caption": item.caption,
             "labels": item.labels, "thumbnail": thumb}
            for item, thumb in zip(section.items, thumbs, strict=True)]


def _pictures_section(project: Project, images: bool, seed: int) -> dict[str, Any] | None:
    """Thumbnails of the disagreements and a sample of positives (None: a text pool)."""
    from triage.views.gallery import report_gallery

    found = report_gallery(project, seed=seed)
    if not found.pictures:
        return None
    data: dict[str, Any] = {"images": images}
    for name, section in (("disagreements", found.disagreements),
                          ("positives", found.positives)):
        items = _gallery_items(section, found.cache, images)
        data[name] = {"total": section.total, "shown": len(items), "list": items,
                      "not_shown": sum(1 for i in items
                                       if i["thumbnail"] and i["thumbnail"]["reason"])}
    data["reading"] = readings.pictures_section(data)
    return data


def without_thumbnails(data: dict[str, Any]) -> dict[str, Any]:
    """The report's data with the thumbnails' bytes left out (``report --json``)."""
    pictures = data.get("pictures")
    if not pictures:
        return data
    slim = {name: dict(part, list=[dict(i, thumbnail=None if i["thumbnail"] is None else
                                         dict(i["thumbnail"], jpeg=None))
                                   for i in part["list"]])
            if isinstance(part, dict) and "list" in part else part
            for name, part in pictures.items()}
    return dict(data, pictures=slim)


SIDE_PARTS = ("models", "agreement", "samples")
# The sections ready before the side's (what ``early`` gets in build_report_data).
EARLY = ("title", "generated_at", "project", "spend", "gain", "yield", "advice", "provenance")


def side_sections(project: Project, names: tuple[str, ...], *, bootstrap: int = 1000,
                  seed: int = 0) -> dict[str, Any]:
    """What a second process may compute alone (see :mod:`.side`), by name.

    The models' heavy parts, the agreement section and the samples section's reads."""
    work = {"models": lambda: _model_parts(project, seed),
            "agreement": lambda: _agreement_section(project, bootstrap, seed),
            "samples": lambda: _sample_reads(project)}
    return {name: work[name]() for name in names}


def build_report_data(project: Project, *, bootstrap: int = 1000, seed: int = 0,
                      progress: Progress | None = None, images: bool = True,
                      side: Side | None = None,
                      early: Callable[[dict[str, Any]], None] | None = None,
                      ) -> dict[str, Any]:  # long: the report's sections in their order
    """Every section of the report for an open project, as plain JSON-ready data.

    ``images``: thumbnails of a picture pool's disagreements and positives (False leaves
    them out, for privacy; the counts stay). ``side``: a child computing
    :func:`side_sections` (see :mod:`.side`); whatever it fails to deliver is computed here.
    ``early`` is called with the sections in :data:`EARLY` (JSON-ready) before the side's
    sections are waited for, so their charts can be drawn and their pages laid out
    meanwhile."""
    from triage.project.report import project_provenance

    if project.active_model() is None:
        raise TriageError(f"{project.path} has no candidates yet; import a pool first")
    _tick(progress, 0)
    snap = project.snapshot()
    advice = report_advice(project)
    info = _panel_info(project, side)   # the side's gold curves have come meanwhile
    _tick(progress, 1)
    data: dict[str, Any] = {
        "title": f"Triage report — {project.path.stem}",
        "generated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "project": _project_section(project, snap),
        "spend": _spend_section(project, snap, info),
        "gain": _gain_section(snap, info, advice),
        "yield": _yield_section(snap, info),
    }
    data["advice"] = _advice_section(advice)
    data["pictures"] = _pictures_section(project, images, seed)
    data["provenance"] = project_provenance(project)
    data["provenance"]["reading"] = readings.provenance(data["provenance"])
    _tick(progress, 2)
    away = side.names if side is not None else ()
    parts = side_sections(project, tuple(n for n in ("agreement", "samples") if n not in away),
                          bootstrap=bootstrap, seed=seed)
    _tick(progress, 3)
    if early is not None:
        early(jsonable({name: data[name] for name in EARLY}))
    from_side = (side.result() if side is not None else None) or side_sections(
        project, tuple(n for n in SIDE_PARTS if n not in parts), bootstrap=bootstrap, seed=seed)
    parts.update(from_side)
    data["agreement"] = parts["agreement"]
    data["samples"] = _samples_section(project, parts["samples"], advice)
    data["models"] = _models_section(parts["models"], snap, info)
    _tick(progress, 4)
    order = ("title", "generated_at", "project", "spend", "gain", "yield", "advice",
             "agreement", "models", "samples", "pictures", "provenance")
    data = {name: data[name] for name in order}
    _tick(progress, 5)
    return jsonable(data)


__all__ = ["EARLY", "SIDE_PARTS", "build_report_data", "format_money", "format_share",
           "report_advice", "side_first", "side_sections", "without_thumbnails"]
