"""``triage check PROJECT``: SQLite's full integrity check of a project file, reading only."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from triage.cli.commands._common import add_json_flag, emit


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage check`` to the command line."""
    p = sub.add_parser("check", help="check a project file for damage (full integrity check)")
    p.add_argument("project", help="the project file")
    p.add_argument("--deep", action="store_true",
                   help="also compare every candidate's text and every model's scores with "
                   "the checksums stored when they were imported")
    p.add_argument("--record", action="store_true",
                   help="with --deep: record the checksums a project made before they "
                   "existed lacks (of its data as it stands now)")
    add_json_flag(p)
    p.set_defaults(func=run)


def _deep_lines(data: dict[str, Any]) -> list[str]:
    lines = []
    if data["damaged_rows"]:
        lines.append(f"{data['path']}: {len(data['damaged_rows'])} row(s) changed since "
                     "import (the file is otherwise sound):")
        lines += [f"  {row}" for row in data["damaged_rows"][:100]]
        if len(data["damaged_rows"]) > 100:
            lines.append(f"  … and {len(data['damaged_rows']) - 100} more")
    missing = data["unhashed_candidates"]
    models = data["unhashed_models"]
    if missing or models:
        what = " and ".join(x for x in (
            f"{missing:,} candidate(s)" if missing else "",
            f"the ranking of {', '.join(models)}" if models else "") if x)
        lines.append(f"{what}: no checksum was stored at import (a project made before "
                     "checksums existed), so they were not compared. Record them now with "
                     f"`triage check --deep --record {data['path']}`.")
    if data.get("recorded"):
        n, m = data["recorded"]
        lines.append(f"{data['path']}: recorded the checksums of {n:,} candidate(s) and "
                     f"{m} ranking(s)")
    return lines


def _text(data: dict[str, Any]) -> str:
    lines = []
    if data["rolled_back"]:
        lines.append(f"{data['path']}: an interrupted write was rolled back first")
    if data["ok"]:
        lines.append(f"{data['path']}: ok (no damage found)")
    elif data["problems"]:
        lines.append(f"{data['path']}: damaged; SQLite's integrity check found:")
        lines += [f"  {p}" for p in data["problems"]]
    if data["deep"]:
        lines += _deep_lines(data)
    if not data["ok"]:
        lines.append(f"Restore the backup: copy {data['backup']} over {data['path']}"
                     if data["backup"] else "No backup beside it: restore it from a copy "
                     "you trust.")
    if data["read_only"]:
        lines.append("The file or its folder is read-only: it can be read, not labelled.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Check the file; exit 0 when sound, 1 when damaged."""
    from triage.base.errors import TriageError
    from triage.project.checkup import check_file, record_checksums

    if args.record and not args.deep:
        raise TriageError("--record goes with --deep: triage check --deep --record PROJECT")
    report = check_file(args.project, deep=args.deep)
    data = {**asdict(report), "ok": report.ok}
    if args.record and report.ok and (report.unhashed_candidates or report.unhashed_models):
        data["recorded"] = record_checksums(args.project)
        data["unhashed_candidates"], data["unhashed_models"] = 0, []
    emit(args, data, _text)
    return 0 if report.ok else 1
