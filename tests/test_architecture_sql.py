"""SQL lives in triage/store only: no other module of the core holds a statement.

The scan reads every ``.py`` file under ``triage/`` outside ``triage/store/`` with ``ast``
and flags each string constant (f-strings included, with their holes filled) that starts
like an SQL statement. Docstrings are prose and are skipped; so that English help texts
("with --json: ...", "create a project from ...") do not trip it, each keyword must be
followed by what SQL puts after it (``DELETE FROM``, ``CREATE TABLE``, ``WITH x AS (``...);
a bare ``BEGIN``, ``COMMIT``, ``ROLLBACK`` or ``VACUUM`` counts in capitals only (a lowercase
"commit" is more likely a value than a statement).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "triage"
ALLOWED = ("store",)  # sub-packages of triage/ that may hold SQL

SQL = re.compile(
    r"""^\s*(?:
        SELECT\s*$
      | SELECT\s+(?:DISTINCT|ALL|EXISTS|\*|\d|[\w."]+\s*(?:,|\(|FROM\b|AS\b|$))
      | INSERT\s+(?:OR\s+\w+\s+)?INTO\b
      | REPLACE\s+INTO\b
      | UPDATE\s+(?:OR\s+\w+\s+)?[\w."{}]+\s+SET\b
      | DELETE\s+FROM\b
      | PRAGMA\s+[\w.]+
      | (?:CREATE|DROP)\s+(?:UNIQUE\s+|TEMP\s+|TEMPORARY\s+|VIRTUAL\s+)?
            (?:TABLE|INDEX|VIEW|TRIGGER)\b
      | ALTER\s+TABLE\b
      | WITH\s+(?:RECURSIVE\s+)?[\w"]+\s*(?:\([^)]*\)\s*)?AS\s*(?:NOT\s+)?(?:MATERIALIZED\s*)?\(
      | BEGIN\s+(?:DEFERRED|IMMEDIATE|EXCLUSIVE|TRANSACTION)\b
      | (?:COMMIT|END|ROLLBACK)\s+TRANSACTION\b
      | (?-i:BEGIN|COMMIT|ROLLBACK|VACUUM)\s*;?\s*$
      | ROLLBACK\s+(?:TRANSACTION\s+)?TO\b
      | (?:SAVEPOINT|RELEASE\s+SAVEPOINT)\s+\w+
      | VACUUM\s+INTO\b
      | (?:ATTACH|DETACH)\s+DATABASE\b
      | ATTACH\s+\S+\s+AS\b
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings of the module, classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def _fstring_text(node: ast.JoinedStr) -> str:
    """The literal text of an f-string with each ``{...}`` hole written as ``x``."""
    return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "x"
                   for v in node.values)


def sql_strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant or f-string in ``path`` that looks like SQL."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _docstrings(tree)
    for node in ast.walk(tree):  # f-string parts are judged with their f-string
        if isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = _fstring_text(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in skip:
            text = node.value
        else:
            continue
        if SQL.match(text):
            found.append((node.lineno, text))
    return sorted(set(found))


def sql_outside_store(root: Path) -> list[str]:
    """``file:line: text`` for every SQL-looking string under ``root`` outside its store."""
    out = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] in ALLOWED:
            continue
        for line, text in sql_strings(path):
            out.append(f"{root.name}/{relative.as_posix()}:{line}: {text.strip()[:60]!r}")
    return out


def test_sql_lives_only_in_the_store():
    found = sql_outside_store(CORE)
    assert not found, ("SQL outside triage/store (move it into a small typed function of "
                       "triage/store):\n" + "\n".join(found))


def test_the_scan_catches_sql_and_spares_prose(tmp_path):
    core = tmp_path / "triage"
    (core / "store").mkdir(parents=True)
    (core / "serving").mkdir()
    (core / "store" / "fine.py").write_text('Q = "SELECT id FROM candidates"\n')
    (core / "serving" / "bad.py").write_text(
        '"""Create the queue; with care. Select what comes next."""\n'
        "\n"
        "def claims(db, table, now):\n"
        '    """Delete from the plan? No: select it."""\n'
        '    help = "with --json: print JSON; create a project from a file"\n'
        '    db.execute("select candidate_id from claims where expires_at > ?", [now])\n'
        '    db.execute(f"DELETE FROM {table} WHERE id = ?", [1])\n'
        '    db.execute("  PRAGMA synchronous=NORMAL")\n'
        '    rows = "WITH recent AS (SELECT 1) SELECT * FROM recent"\n'
        '    db.execute("COMMIT")\n'
        '    return help, rows, "commit", "end", "Begin"\n'
    )
    found = sql_outside_store(core)
    assert [f.split(": ")[0] for f in found] == [
        "triage/serving/bad.py:6", "triage/serving/bad.py:7", "triage/serving/bad.py:8",
        "triage/serving/bad.py:9", "triage/serving/bad.py:10",
    ], found
    assert "select candidate_id from claims" in found[0]
