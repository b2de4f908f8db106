"""``triage server init|grant URL``: set a project up on a PostgreSQL server for a team."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage server init`` and ``triage server grant`` to the command line."""
    p = sub.add_parser("server", help="set up a team project on a PostgreSQL server")
    actions = p.add_subparsers(dest="server_action", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init", help="create the project's schema, group roles, grants, row-level security "
        "and functions (idempotent), and add members")
    grant = actions.add_parser("grant", help="make login roles leads or annotators of a project")
    for q in (init, grant):
        q.add_argument("url", metavar="URL",
                       help="postgresql://[USER@]HOST[:PORT]/DB?project=NAME[&sslmode=…]; "
                       "secrets come from PGPASSWORD, ~/.pgpass or PGSERVICE")
        q.add_argument("--lead", action="append", default=[], metavar="ROLE",
                       help="an existing login role that leads the project (repeatable)")
        q.add_argument("--annotator", action="append", default=[], metavar="ROLE",
                       help="an existing login role that annotates; its name is the "
                       "annotator's name (repeatable)")
    init.set_defaults(func=run_init)
    grant.set_defaults(func=run_grant)


def run_init(args: argparse.Namespace) -> int:
    """Run ``triage server init``; returns the exit code."""
    from triage.store.pg.schema import init_server
    from triage.store.pg.url import parse_url

    url = parse_url(args.url)
    todo = init_server(url, leads=args.lead, annotators=args.annotator)
    print(f"project {url.project} ready on {url.host}: schema {url.schema}, "
          f"groups {url.lead_role} and {url.annotator_role}")
    _members(args)
    _limits(todo)
    return 0


def run_grant(args: argparse.Namespace) -> int:
    """Run ``triage server grant``; returns the exit code."""
    from triage.base.errors import TriageError
    from triage.store.pg.schema import grant

    if not (args.lead or args.annotator):
        raise TriageError("name at least one --lead ROLE or --annotator ROLE")
    todo = grant(args.url, leads=args.lead, annotators=args.annotator)
    _members(args)
    _limits(todo)
    return 0


def _limits(todo: list[str]) -> None:
    """Say which annotator limits the owner could not set, as SQL for the administrator."""
    if todo:
        print("the owner may not limit these annotators' connections and waits, nor keep "
              "them from reading who holds which lock (the others' pace); a database "
              "administrator should run:", file=sys.stderr)
        for statement in todo:
            print(f"  {statement}", file=sys.stderr)


def _members(args: argparse.Namespace) -> None:
    for kind, roles in (("lead", args.lead), ("annotator", args.annotator)):
        if roles:
            print(f"{kind}{'s' if len(roles) > 1 else ''}: {', '.join(roles)}")
