"""Library users' type checkers see the public API's types (PEP 561), not ``Any``."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_says_it_is_typed():
    assert (ROOT / "triage" / "py.typed").is_file()


@pytest.mark.slow  # runs mypy over the package
def test_open_project_is_typed_for_library_users(tmp_path):
    from mypy import api

    script = tmp_path / "use.py"
    script.write_text("import triage\n"
                      "project = triage.open_project('p.triage')\n"
                      "reveal_type(project)\n"
                      "reveal_type(triage.create_project)\n"
                      "project.no_such_method()\n")
    out, _err, status = api.run([str(script), "--no-incremental", "--follow-imports=silent",
                                 "--ignore-missing-imports"])
    assert 'Revealed type is "triage.project.core.Project"' in out
    assert '"Project" has no attribute "no_such_method"' in out
    assert status == 1


def test_the_stub_and_the_lazy_exports_name_the_same_things():
    import ast

    import triage

    stub = ast.parse((ROOT / "triage" / "__init__.pyi").read_text())
    typed = {alias.asname for node in stub.body if isinstance(node, ast.ImportFrom)
             for alias in node.names if alias.asname}
    assert typed == set(triage.__all__) == set(triage._EXPORTS)
    assert all(getattr(triage, name) is not None for name in triage.__all__)
