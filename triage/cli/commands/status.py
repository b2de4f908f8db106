"""``triage status PROJECT``: what has been spent and what it bought, decile by decile."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from triage.cli.commands._common import add_json_flag, emit
from triage.project.files import project_location
from triage.views.formatting import format_money

if TYPE_CHECKING:
    from triage.project.core import Project


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage status`` to the command line."""
    p = sub.add_parser("status", help="spend, positives found and yield per decile of a project")
    p.add_argument("project", type=project_location)
    p.add_argument("--curve", action="store_true", help="include the positives-found curve in JSON")
    p.add_argument("--check-images", action="store_true",
                   help="a pool of pictures: check every local picture and count those that "
                   "could not be shown (missing, damaged, too large, not a picture)")
    add_json_flag(p)
    p.set_defaults(func=run)


def status_data(project: Project, *, curve: bool = False) -> dict[str, Any]:
    """The status of an open project as plain data (the JSON of ``triage status``)."""
    st = project.status()
    settings = asdict(st.settings)
    settings["labels"] = [{"value": o["value"], "key": o["key"]} for o in settings["labels"]]
    data: dict[str, Any] = {
        "project": st.path, "pool": st.pool, "models": st.models,
        "active_model": st.active_model, "annotators": st.annotators,
        "sessions": st.sessions, "settings": settings,
    }
    from triage.project.cal import cal_status

    data["cal"] = cal_status(project.state.db, project.settings)
    snap = st.snapshot
    if snap is not None:
        snap_data = asdict(snap)
        snap_data.pop("curve_annotated", None)
        snap_data.pop("curve_positives", None)
        for row in snap_data["deciles"]:
            row["yield"] = row.pop("yield_")
        data.update(snap_data)
        # On a team server an annotator sees others' decisions only as "handled by
        # someone" (blind labelling): those are not skips.
        hidden = int(getattr(project, "hidden_events", lambda: 0)())
        if hidden:
            data["skipped"] = max(0, data["skipped"] - hidden)
            data["handled_by_others"] = hidden
            data["skips_by_annotator"] = {a: n for a, n in data["skips_by_annotator"].items()
                                          if a == getattr(project, "role", a)}
        if curve:
            data["curve"] = {"annotated": snap.curve_annotated, "positives": snap.curve_positives}
        data.update(_recall(project))
    return data


def _recall(project: Project) -> dict[str, Any]:
    """What the advice knows of recall and positives left, in the advice's own words."""
    from triage.project.advice import advice_state
    from triage.views.advice import advice_lines

    state = advice_state(project)
    lines = advice_lines(state)
    return {"recall": [x for x in (lines.recall, lines.remaining) if x],
            "known": state.advice.get("known")}


def cal_line(cal: dict[str, Any], imported: str | None) -> str:
    """One line on the ranking learned from the labels."""
    how = "followed" if cal["followed"] else "a bandit arm"
    text = ("" if cal["features"] == "text+scores" else
            "; the pool has no text, so it learns from the imported scores only")
    if not cal["snapshots"]:
        return (f"cal ranking ({how}): no fit yet, the imported ranking serves{text}")
    return (f"cal ranking ({how}): {cal['snapshots']} fits, the newest learned from "
            f"{cal['labels_used']:,} labels{text}; deciles and yield stay on {imported}")


def render(data: dict[str, Any]) -> str:
    """Spend, positives and the per-decile and per-annotator tables as text."""
    cur = data["settings"]["currency"]
    lines = [
        f"{data['project']}: {data['pool']:,} candidates; active model {data['active_model']}",
        "models: " + ", ".join(f"{m['name']} ({m['tied_items']:,} tied)" for m in data["models"]),
    ]
    if "spend" not in data:
        return "\n".join(lines + ["no candidates imported yet"])
    if data.get("cal"):
        lines.append(cal_line(data["cal"], data["active_model"]))
    budget = ("no budget set" if data["budget"] is None else
              f"budget {format_money(data['budget'], cur)}")
    left = "" if data["budget_left"] is None else f", {format_money(data['budget_left'], cur)} left"
    cpp = data["cost_per_positive"]
    lines += [
        f"annotated {data['annotated']:,} ({data['annotated'] / max(1, data['pool']):.1%} of pool), "
        f"skipped {data['skipped']:,}, positives found {data['positives_found']:,}"
        + (f"; {data['handled_by_others']:,} handled by others (decisions hidden)"
           if data.get("handled_by_others") else ""),
        f"spent {format_money(data['spend'], cur)} ({budget}{left}); cost per positive "
        + format_money(cpp, cur),
        *data.get("recall", []),
        "",
        "decile   items  annotated  positives   yield  cost/positive",
    ]
    for d in data["deciles"]:
        y = "" if d["yield"] is None else f"{d['yield']:.3f}"
        m = d["marginal_cost_per_positive"]
        mc = "" if m is None else format_money(m, cur)
        marker = " <" if d["decile"] == data.get("current_decile") else ""
        lines.append(f"{d['decile']:>6} {d['items']:>7,} {d['annotated']:>10,} "
                     f"{d['positives']:>10,} {y:>7} {mc:>14}{marker}")
    if data["spend_by_annotator"]:
        lines += ["", "annotator        labels  positives      spend"]
        for name, spend in sorted(data["spend_by_annotator"].items()):
            lines.append(f"{name[:15]:<15} {data['labels_by_annotator'].get(name, 0):>7,} "
                         f"{data['positives_by_annotator'].get(name, 0):>10,} {format_money(spend, cur):>10}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``triage status`` with the parsed arguments; returns the exit code."""
    from triage.project import open_project

    with open_project(args.project) as project:
        data = status_data(project, curve=args.curve)
        if args.check_images:
            data["pictures"] = _picture_check(project)
    return emit(args, data, _render_all)


def _picture_check(project: Project) -> dict[str, Any]:
    """``--check-images``: the pool's pictures checked now, as plain data."""
    from triage.base.errors import TriageError
    from triage.project.pictures import check_pictures, picture_source

    source = picture_source(project.db, project.location)
    if source is None:
        raise TriageError("--check-images: this project's pool has no pictures")
    return check_pictures(project.db, source).as_dict()


def _render_all(data: dict[str, Any]) -> str:
    """The status text, then the picture check when there is one."""
    text = render(data)
    pics = data.get("pictures")
    if pics is None:
        return text
    lines = [f"pictures: {pics['pictures']:,}; could not be shown: {pics['not_shown']:,}"]
    if pics["blank"]:
        lines.append(f"  {pics['blank']:,}: no picture in the cell")
    lines += [f"  {n:,}: {why}" for why, n in sorted(pics["reasons"].items())]
    lines += [f"  e.g. {e['key']}: {e['cell']}: {e['reason']}" for e in pics["examples"][:5]]
    return text + "\n\n" + "\n".join(lines)
