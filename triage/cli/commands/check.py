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
    add_json_flag(p)
    p.set_defaults(func=run)


def _text(data: dict[str, Any]) -> str:
    lines = []
    if data["rolled_back"]:
        lines.append(f"{data['path']}: an interrupted write was rolled back first")
    if data["ok"]:
        lines.append(f"{data['path']}: ok (no damage found)")
    else:
        lines.append(f"{data['path']}: damaged; SQLite's integrity check found:")
        lines += [f"  {p}" for p in data["problems"]]
        lines.append(f"Restore the backup: copy {data['backup']} over {data['path']}"
                     if data["backup"] else "No backup beside it: restore it from a copy "
                     "you trust.")
    if data["read_only"]:
        lines.append("The file or its folder is read-only: it can be read, not labelled.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Check the file; exit 0 when sound, 1 when damaged."""
    from triage.project.checkup import check_file

    report = check_file(args.project)
    data = {**asdict(report), "ok": report.ok}
    emit(args, data, _text)
    return 0 if report.ok else 1
