"""SQL functions of a project as PL/pgSQL, so a session plans their queries once.

PostgreSQL plans the body of a ``LANGUAGE sql`` function that it cannot inline (every
project function is SECURITY DEFINER with a pinned ``search_path``, so none is inlined)
again for every statement that calls it. The feeds a desk reads after each label and the
small checks ``add_label`` runs were planned several times per label: profiled with
``track_functions``, ``is_lead`` alone took a third of the server's time per
label-and-next step (the judge's helpers without SECURITY DEFINER are planned again too,
as they are never inlined where PL/pgSQL calls them). The same body in PL/pgSQL (``RETURN QUERY`` for a set, ``RETURN``
for a value) keeps its plans for the session. ``#variable_conflict use_column``: a name
that is both an output column and a table column means the table's column, as in SQL.
"""

from __future__ import annotations

import re

_SQL_FUNCTION = re.compile(
    r"^(?P<head>CREATE OR REPLACE FUNCTION .*?)\s+LANGUAGE sql (?P<volatility>STABLE|IMMUTABLE) "
    r"(?P<definer>(?:SECURITY DEFINER SET search_path = [^$]*?|SECURITY INVOKER) AS \$fn\$)(?P<body>.*)\$fn\$$",
    re.DOTALL)


def cached_plans(statement: str) -> str:
    """``statement`` with a ``LANGUAGE sql`` function rewritten to PL/pgSQL; others as is."""
    found = _SQL_FUNCTION.match(statement.strip())
    if found is None:
        return statement
    body = found["body"].strip()
    returns_set = re.search(r"\bRETURNS (TABLE|SETOF)\b", found["head"]) is not None
    action = f"RETURN QUERY {body};" if returns_set else f"RETURN ({body});"
    return (f"{found['head']} LANGUAGE plpgsql {found['volatility']} {found['definer']}\n"
            f"#variable_conflict use_column\nBEGIN\n  {action}\nEND $fn$")


__all__ = ["cached_plans"]
