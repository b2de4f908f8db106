"""The core's public API is typed and documented: every public function says what it takes,
what it returns and, in its first docstring line, what it is for.

Public means a name without a leading underscore, at module level or in a public class.
Dunder methods are exempt (their meaning is Python's); so are ``self`` and ``cls``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "triage"

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _is_public(name: str) -> bool:
    return not name.startswith("_")


def _public_functions(tree: ast.Module) -> Iterator[tuple[Function, bool]]:
    """(function, is_method) for module-level functions and methods of public classes."""
    for node in tree.body:
        if isinstance(node, Function) and _is_public(node.name):
            yield node, False
        elif isinstance(node, ast.ClassDef) and _is_public(node.name):
            for member in node.body:
                if isinstance(member, Function) and _is_public(member.name):
                    yield member, True


def _unannotated(fn: Function, is_method: bool) -> list[str]:
    """Names of the parameters without an annotation (``self``/``cls`` aside)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    if is_method and not static and positional:
        positional = positional[1:]
    params = [*positional, *([args.vararg] if args.vararg else []), *args.kwonlyargs,
              *([args.kwarg] if args.kwarg else [])]
    return [a.arg for a in params if a.annotation is None]


def _summary_problem(fn: Function) -> str | None:
    """Why the docstring does not open with a one-line summary, or None when it does."""
    doc = ast.get_docstring(fn, clean=False)
    if doc is None or not doc.strip():
        return "no docstring"
    lines = doc.split("\n")
    if not lines[0].strip():
        return "docstring does not start with a summary line"
    if len(lines) > 1 and lines[1].strip():
        return "docstring summary runs onto a second line"
    return None


def api_gaps(paths: list[Path], root: Path) -> list[str]:
    """``path:line name: problems`` for each public function lacking annotations or a summary."""
    out = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for fn, is_method in _public_functions(tree):
            problems = []
            missing = _unannotated(fn, is_method)
            if missing:
                problems.append(f"unannotated {', '.join(missing)}")
            if fn.returns is None:
                problems.append("no return annotation")
            summary = _summary_problem(fn)
            if summary:
                problems.append(summary)
            if problems:
                out.append(f"{path.relative_to(root).as_posix()}:{fn.lineno} {fn.name}: "
                           + "; ".join(problems))
    return out


def test_every_public_function_is_typed_and_documented():
    gaps = api_gaps(sorted((ROOT / PACKAGE).rglob("*.py")), ROOT)
    assert gaps == [], "public functions lacking annotations or a docstring:\n" + "\n".join(gaps)


# -- the guard above must be able to fail ------------------------------------------------


def test_the_api_check_catches_offenders(tmp_path):
    module = tmp_path / "pkg" / "mod.py"
    module.parent.mkdir()
    module.write_text('''
def untyped(a, b: int, *args, key=None, **kwargs):
    """Has a summary but no annotations."""


def undocumented(a: int) -> int:
    return a


def wrapped(a: int) -> int:
    """A summary that goes on
    and on across two lines."""
    return a


def blank_first(a: int) -> int:
    """
    Summary on the second line.
    """
    return a


def fine(a: int, *args: str, key: str | None = None, **kwargs: object) -> None:
    """Typed and documented.

    Details after a blank line are fine.
    """


def _private(a, b):
    pass


class Public:
    """A public class."""

    def __init__(self, a):
        pass

    def method(self, a: int):
        """No return annotation."""

    @staticmethod
    def helper(a: int) -> int:
        """A static method has no self to skip."""
        return a

    @staticmethod
    def loose(a) -> int:
        return a

    def _hidden(self, a):
        pass


class _Private:
    def exposed(self, a):
        pass


async def fetch(url: str) -> bytes:
    return b""
''')
    assert api_gaps([module], tmp_path) == [
        "pkg/mod.py:2 untyped: unannotated a, args, key, kwargs; no return annotation",
        "pkg/mod.py:6 undocumented: no docstring",
        "pkg/mod.py:10 wrapped: docstring summary runs onto a second line",
        "pkg/mod.py:16 blank_first: docstring does not start with a summary line",
        "pkg/mod.py:40 method: no return annotation",
        "pkg/mod.py:49 loose: unannotated a; no docstring",
        "pkg/mod.py:61 fetch: no docstring",
    ]
