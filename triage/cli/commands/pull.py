"""``triage pull URL FILE``: a standalone snapshot of a server project, for offline analysis."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from triage.cli.commands._common import add_json_flag, emit


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage pull`` to the command line."""
    p = sub.add_parser("pull", help="copy a project from a PostgreSQL server into a new "
                       "project file")
    p.add_argument("url", metavar="URL", help="postgresql://[USER@]HOST[:PORT]/DB?project=NAME")
    p.add_argument("file", type=Path, metavar="FILE", help="the new project file")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``triage pull``; returns the exit code."""
    from triage.store.pg.copy import pull
    from triage.store.pg.url import parse_url

    url = parse_url(args.url)
    pulled = pull(url, args.file)
    data = {"url": url.display, "file": str(args.file), **asdict(pulled)}
    return emit(args, data, lambda d: (
        f"pulled {d['url']} into {d['file']}: {d['candidates']:,} candidates, "
        f"{d['labels']:,} labels"))
