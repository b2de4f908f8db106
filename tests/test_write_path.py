"""One write path: every function of the store that writes is reached through the project's
writer (:class:`triage.store.writer.ProjectWriter`), or is listed below as refused on a
server or as internal, with the reason.

What the writers reach is read from their source, not listed by hand: a store function that
a :class:`~triage.store.writer.FileWriter` method calls, a server statement that a
:class:`~triage.store.pg.link.TeamLink` method of the interface builds, and those methods
themselves. The package exports no write function (only the writers), and nothing outside
the store calls one directly.

The writers are found by reading the source: a function (or method) writes when it holds
SQL that changes data or schema (INSERT, UPDATE, DELETE, REPLACE, CREATE, DROP, ALTER),
refers to a module constant that does, or calls one of sqlite-utils' writing methods. A
new writer that is in none of the lists fails :func:`test_every_writer_of_the_store_is_accounted_for`.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from triage.base.errors import TriageError
from triage.store.teamwriter import TeamWriter
from triage.store.writer import FileWriter, ProjectWriter

ROOT = Path(__file__).resolve().parent.parent
STORE = ROOT / "triage" / "store"

WRITE_SQL = re.compile(rb"\b(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b")
WRITE_CALLS = {"executescript", "insert", "insert_all", "upsert", "upsert_all", "delete_where",
               "transform", "add_column", "create_index", "create_table"}

# -- imports: one transaction over many tables, into the project file that
# -- ProjectWriter.import_target hands out; a team project refuses them there.
REFUSED_ON_SERVER = {
    "triage.store.bulk:insert_model": "a later model's row (import of scores)",
    "triage.store.records:save_ranking": "a later model's ranking (import of scores)",
    "triage.store.provenance:record_source": "the imported file's provenance",
    "triage.store.exchange:insert_session": "a Prodigy / Label Studio session",
    "triage.store.exchange:insert_sourced_labels": "Prodigy / Label Studio label events",
    "triage.store.exchange:set_picture_folder": "where a Prodigy / Label Studio pool's pictures are",
    "triage.store.poolwrite:_write_sqlite": "the pool, through sqlite3",
    "triage.store.bulkchild:_write": "the pool, through ADBC in a child process",
    "triage.store.bulkchild:_finish": "the pool's models, checksums and provenance, in that child",
    "triage.store.bulkchild:_store_plan": "the overlap plan drawn with the pool, in that child",
    "triage.store.poolwrite:_store_plan": "the overlap plan drawn with the pool",
    "triage.store.content:TextHashes.store": "the checksums of an imported pool's texts",
    "triage.store.content:store_ranking_hashes": "the checksums of an imported ranking",
    "triage.store.content:record_missing": "`triage check --deep --record`: checksums an "
                                           "older project lacks",
    "triage.store.merging:insert_row": "merge (project files only; refuses a server address)",
    "triage.store.merging:end_session": "merge (project files only)",
    "triage.store.merging:mark_undone": "merge (project files only)",
    "triage.store.merging:add_note": "merge (project files only)",
}

# -- internal: not a write of the project's data by a desk or a lead.
INTERNAL = {
    "triage.store.schema:m0001_initial": "schema migration",
    "triage.store.schema:m0002_certification": "schema migration",
    "triage.store.schema:m0003_guidelines": "schema migration",
    "triage.store.schema:m0004_label_source": "schema migration",
    "triage.store.schema:m0005_cal_snapshots": "schema migration",
    "triage.store.schema:m0006_content_hashes": "schema migration",
    "triage.store.schema:m0007_text_search": "schema migration",
    "triage.store.search:build_index": "a derived full-text index of the local file (or "
                                       "replica), built on first search; never on a server",
    "triage.store.candidates:ensure_key_index": "a derived index, built on first look-up",
    "triage.store.bulkrun:rollback_journal": "the file's journal mode around a pool import "
                                             "(no data)",
    "triage.store.pg.pull:_apply": "the replica following its server (link's connection)",
    "triage.store.pg.pull:insert_sql": "the replica following its server (link's connection)",
    "triage.store.pg.pull:store_labels": "the replica following its server (link's connection)",
    "triage.store.pg.quarantine:_set_aside": "the replica setting aside a row it cannot use",
    "triage.store.pg.quarantine:ensure_local_tables": "the replica's quarantine table",
    "triage.store.pg.quarantine:set_mark": "the replica's pull position",
    "triage.store.pg.quarantine:store": "the replica setting aside a row it cannot use",
    "triage.store.pg.feeds:feed_statements": "`triage server init`",
    "triage.store.pg.plpgsql:cached_plans": "`triage server init` (the functions it creates)",
    "triage.store.pg.schema:retired_statements": "`triage server init` (upgrade)",
    "triage.store.pg.ingest:_store_model": "`triage new URL`: a model, its ranking and plan",
    "triage.store.pg.ingest:add_primary_key": "`triage new URL`: the pool's key, built once",
    "triage.store.pg.copy:push_tables": "`triage push`: a file published to a new server project",
    "triage.store.pg.copy:add_member_annotators": "`triage push`",
    "triage.store.pg.copy:without_primary_key": "`triage push`",
    "triage.store.pg.ingest:write_pool": "`triage new URL`: a pool created on the server",
    "triage.store.pg.functions:function_statements": "`triage server init`",
    "triage.store.pg.schema:table_statements": "`triage server init`",
    "triage.store.pg.schema:role_statements": "`triage server init`",
    "triage.store.pg.schema:permission_statements": "`triage server init|grant`",
    "triage.store.pg.schema:project_statements": "`triage server init`",
    "triage.store.pg.schema:_check_login_roles": "`triage server grant`",
    "triage.store.pg.schema:grant_roles": "`triage server grant`",
    "triage.store.pg.schema:annotator_limits": "`triage server init|grant`: role limits",
    "triage.store.pg.judge:judge_template": "`triage server init`: the judge's functions",
    "triage.store.pg.order:order_template": "`triage server init`: the ranking-order checks",
    "triage.store.pg.served:served_template": "`triage server init`: the judge of served_by",
    "triage.store.pg.notes:notes_template": "`triage server init`: the note quota's counts",
    "triage.store.pg.audit:store_shuffled": "`triage push|new URL|server init`, a new seed: the server's audit order",
}


# -- finding the writers ------------------------------------------------------------------


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _writes(node: ast.AST, docstrings: set[int], constants: set[str]) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str | bytes) \
                and id(n) not in docstrings:
            text = n.value.encode() if isinstance(n.value, str) else n.value
            if WRITE_SQL.search(text):
                return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr in WRITE_CALLS:
            return True
        if isinstance(n, ast.Name) and n.id in constants:
            return True
    return False


def _write_constants(tree: ast.Module, docs: set[int]) -> set[str]:
    """Module constants holding a write (or built from one defined above them)."""
    found: set[str] = set()
    for s in tree.body:
        if isinstance(s, ast.Assign) and _writes(s.value, docs, found):
            found |= {t.id for t in s.targets if isinstance(t, ast.Name)}
    return found


def writers(root: Path, package_root: Path) -> set[str]:
    """``module:function`` (``module:Class.method``) of every writer under ``root``."""
    found = set()
    trees = {path: ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted(root.rglob("*.py"))}
    # A statement constant counts where it is defined and wherever it is imported by name.
    shared = set().union(*(_write_constants(t, _docstrings(t)) for t in trees.values()))
    for path, tree in trees.items():
        docs = _docstrings(tree)
        imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom)
                    for a in n.names if a.name in shared}
        constants = _write_constants(tree, docs) | imported
        module = ".".join(path.relative_to(package_root).with_suffix("").parts)
        units: list[tuple[str, ast.AST]] = []
        for s in tree.body:
            if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
                units.append((s.name, s))
            elif isinstance(s, ast.ClassDef):
                units += [(f"{s.name}.{f.name}", f) for f in s.body
                          if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]
        found |= {f"{module}:{name}" for name, node in units if _writes(node, docs, constants)}
    return found


# -- the checks -----------------------------------------------------------------------------


def _source_tree(function: object) -> ast.AST:
    return ast.parse(inspect.getsource(function).strip().replace("\n    ", "\n"))


def _calls(function: object) -> set[str]:
    """Names of the attributes called in a function's source (``x.f(...)`` gives ``f``)."""
    return {n.func.attr for n in ast.walk(_source_tree(function))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}


def _protocol_methods() -> list[str]:
    return sorted(name for name, member in vars(ProjectWriter).items()
                  if callable(member) and not name.startswith("_"))


def reached(cls: type, methods: list[str]) -> set[str]:
    """``module:function`` of each store function that these methods of ``cls`` call as
    ``module.function(...)`` (the module bound by an import of ``cls``'s module)."""
    aliases = _store_aliases(ast.parse(inspect.getsource(inspect.getmodule(cls))))
    out = set()
    for name in methods:
        for n in ast.walk(_source_tree(getattr(cls, name))):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id in aliases:
                out.add(f"{aliases[n.func.value.id]}:{n.func.attr}")
    return out


def through_the_writers() -> set[str]:
    """Every store writer an open project reaches through its ``ProjectWriter``."""
    from triage.store.pg.link import TeamLink

    methods = _protocol_methods()
    file_side = reached(FileWriter, [m for m in vars(FileWriter) if not m.startswith("__")])
    link_methods = [m for m in methods if hasattr(TeamLink, m)]
    team_side = reached(TeamLink, link_methods)
    return file_side | team_side | {f"triage.store.pg.link:TeamLink.{m}" for m in link_methods}


def test_every_writer_of_the_store_is_accounted_for():
    listed = {**REFUSED_ON_SERVER, **INTERNAL}
    found = writers(STORE, ROOT)
    unaccounted = found - listed.keys() - through_the_writers()
    assert sorted(unaccounted) == [], "a new writer: route it through ProjectWriter"
    assert sorted(listed.keys() - found) == [], "listed but no longer a writer: drop it"
    assert sorted(listed.keys() & through_the_writers()) == [], "listed, yet reached by a writer"


def test_the_package_exports_the_writers_and_no_write_function():
    import triage.store as store

    assert {"FileWriter", "ProjectWriter"} <= set(store.__all__)
    home = {f"{v.__module__}:{k}" for k, v in vars(store).items() if callable(v)}
    assert sorted(home & writers(STORE, ROOT)) == []
    assert sorted(home & through_the_writers()) == []


def test_both_writers_implement_the_whole_interface():
    methods = _protocol_methods()
    assert "insert_label" in methods and "import_target" in methods
    for cls in (FileWriter, TeamWriter):
        for name in methods:
            ours = inspect.signature(getattr(cls, name))
            theirs = inspect.signature(getattr(ProjectWriter, name))
            assert list(ours.parameters) == list(theirs.parameters), (cls.__name__, name)


def test_team_writer_hands_every_write_to_the_link():
    from triage.store.pg.link import TeamLink

    for name in _protocol_methods():
        if name == "import_target":
            continue
        assert name in _calls(getattr(TeamWriter, name)), name
        assert callable(getattr(TeamLink, name)), name


def _store_aliases(tree: ast.Module) -> dict[str, str]:
    """Names a module binds to modules of ``triage.store`` (``store``, ``claims`` …)."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("triage"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full.startswith("triage.store"):
                    out[alias.asname or alias.name] = full
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("triage.store") and alias.asname:
                    out[alias.asname] = alias.name
    return out


def _package_exports() -> dict[str, str]:
    """``triage.store.X`` for each function the package re-exports, to its home module."""
    tree = ast.parse((STORE / "__init__.py").read_text(encoding="utf-8"))
    return {f"triage.store.{a.name}": f"{n.module}.{a.name}" for n in tree.body
            if isinstance(n, ast.ImportFrom) and n.module for a in n.names}


def direct_writes(root: Path) -> list[str]:
    """``path: module.function`` wherever code outside the store calls a writer directly."""
    through = {t.replace(":", ".") for t in through_the_writers()}
    exports = _package_exports()
    out = []
    for path in sorted(root.rglob("*.py")):
        if STORE in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = _store_aliases(tree)
        for node in ast.walk(tree):
            target = None
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases:
                target = f"{aliases[node.value.id]}.{node.attr}"
            elif isinstance(node, ast.Name) and node.id in aliases:
                target = aliases[node.id]
            if target is not None and exports.get(target, target) in through:
                out.append(f"{path.relative_to(root.parent)}: {exports.get(target, target)}")
    return sorted(set(out))


def test_nothing_outside_the_store_calls_a_writer_directly():
    assert direct_writes(ROOT / "triage") == []
    assert direct_writes(ROOT / "ui") == []


def test_imports_write_only_the_file_the_writer_hands_out():
    # Each call of an import into an open project takes the database from import_target.
    entry_points = {"import_candidates", "import_scores", "import_exchange"}
    seen = 0
    for path in sorted((ROOT / "triage" / "project").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            handed = {t.id for n in ast.walk(function) if isinstance(n, ast.Assign)
                      and isinstance(n.value, ast.Call)
                      and isinstance(n.value.func, ast.Attribute)
                      and n.value.func.attr == "import_target"
                      for t in n.targets if isinstance(t, ast.Name)}
            for call in [n for n in ast.walk(function) if isinstance(n, ast.Call)]:
                if isinstance(call.func, ast.Name) and call.func.id in entry_points:
                    seen += 1
                    first = call.args[0]
                    assert isinstance(first, ast.Name) and first.id in handed, (
                        f"{path.name}:{call.lineno} {call.func.id}")
    assert seen == 3


def test_a_team_project_refuses_an_import_in_words(tmp_path):
    writer = TeamWriter(link=None)  # type: ignore[arg-type]  # refused before any use
    with pytest.raises(TriageError, match=r"^cannot import a pool into a project on a server "
                                          r"from a desk; import into a project file"):
        writer.import_target("import a pool into")


# -- the guards above must be able to fail ------------------------------------------------


def test_the_scan_finds_a_planted_writer(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "quiet.py").write_text(
        '"""INSERT in a docstring is not a write."""\n'
        "def read(db):\n    return db.execute('SELECT 1')\n")
    (pkg / "sneaky.py").write_text(
        "_WIPE = 'DELETE FROM labels'\n"
        "def wipe(db):\n    db.conn.execute(_WIPE)\n"
        "def plan(db):\n    db['plan'].insert_all([])\n"
        "class Keeper:\n    def keep(self, db):\n"
        "        db.execute(f\"UPDATE labels SET note = {'?'}\")\n")
    assert writers(pkg, tmp_path) == {"pkg.sneaky:wipe", "pkg.sneaky:plan",
                                      "pkg.sneaky:Keeper.keep"}


def test_the_direct_write_check_finds_a_planted_call(tmp_path):
    pkg = tmp_path / "triage"
    pkg.mkdir()
    (pkg / "sneaky.py").write_text(
        "from triage import store\nfrom triage.store import claims, records\n"
        "from triage.store.records import set_note\n"
        "def go(db):\n    records.insert_label(db)\n    claims.claim(db)\n"
        "    set_note(db, 1, 'x')\n    store.load_settings(db)\n")
    assert direct_writes(pkg) == [
        "triage/sneaky.py: triage.store.claims.claim",
        "triage/sneaky.py: triage.store.records.insert_label",
        "triage/sneaky.py: triage.store.records.set_note"]


@pytest.mark.parametrize("call, message", [
    (lambda w: w.ensure_annotator("   "), "annotator name must not be empty"),
    (lambda w: w.ensure_annotator("x" * 81), r"annotator name is too long \(80"),
    (lambda w: w.set_hourly_rate("ada", -1.0), "hourly rate must not be negative"),
    (lambda w: w.set_hourly_rate("ada", float("nan")), "hourly rate must be a finite number"),
    (lambda w: w.insert_label(candidate_id=1, annotator_id=1, session_id=1, value="idiom",
                              kind="vote", seconds=1.0, note=None), "unknown label kind 'vote'"),
])
def test_both_writers_refuse_the_same_values_in_the_same_words(tmp_path, call, message):
    # The team writer checks before it would touch its link (here: none at all).
    from triage.project import create_project

    project = create_project(tmp_path / "p.triage")
    try:
        for writer in (project.writer, TeamWriter(link=None)):  # type: ignore[arg-type]
            with pytest.raises(TriageError, match=message):
                call(writer)
        assert project.db.execute("SELECT count(*) FROM annotators").fetchone()[0] == 0
    finally:
        project.close()
