"""Installed from a wheel, as ``pipx install .`` does, Triage runs without its checkout.

One slow test builds the wheel, installs it into a throwaway virtual environment outside
the checkout and runs the installed ``triage`` from another folder: ``--help``, ``new``,
``status``, the demo and the picture demo (their data must come from inside the package),
a report, and ``--install-desktop``.

Why not ``pipx install .`` itself, or a plain ``pip install`` with its dependencies? Both
download and unpack every dependency again (PySide6, pandas, scipy, pyarrow: over two
minutes here), and pipx is not a test dependency. What pipx does is: build a wheel from the
folder, make a venv, ``pip install`` the wheel there, and link its ``triage`` script. This
test does the same, except for the third-party dependencies: the new venv sees them through
a ``.pth`` file naming a folder of links to exactly the distributions the wheel's metadata
requires (followed transitively through their own requirements), taken from the
environment running the tests. So an undeclared dependency (say, a test-only package the
program started importing) fails here, as it would after ``pipx install``, and the
checkout is on no path: the test asserts that ``triage``, ``ui`` and ``main`` and the demo
data are all imported or read from inside the throwaway venv.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PNG = b"\x89PNG\r\n\x1a\n"


def source_copy(target: Path) -> Path:
    """The checkout's files as a fresh clone has them (building in place would write
    ``build/`` into the checkout, and a clone has none of its untracked leftovers)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, capture_output=True,
                            check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: cannot tell the project's files from leftovers")
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def wheel_requirements(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel's metadata."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode("utf-8"))
    return metadata.get_all("Requires-Dist") or []


def requirement_closure(requirements: list[str]) -> dict[str, Distribution]:
    """Every installed distribution these requirements need at run time, by name."""
    found: dict[str, Distribution] = {}
    todo: list[tuple[str, list[str], frozenset[str]]] = [("triage", requirements, frozenset())]
    while todo:
        parent, texts, wanted = todo.pop()
        for text in texts:
            req = Requirement(text)
            if req.marker is not None and not any(
                    req.marker.evaluate({"extra": extra}) for extra in (wanted or {""})):
                continue
            key = req.name.lower().replace("_", "-")
            if key in found:
                continue
            try:
                found[key] = distribution(req.name)
            except PackageNotFoundError:
                pytest.fail(f"{req.name} (required by {parent}) is not installed here")
            todo.append((req.name, found[key].requires or [], frozenset(req.extras)))
    return found


def link_dependencies(folder: Path, wheel: Path) -> list[str]:
    """A folder of links to the top-level modules of the wheel's dependency closure."""
    folder.mkdir()
    names = []
    for key, dist in sorted(requirement_closure(wheel_requirements(wheel)).items()):
        files = dist.files
        if files is None:
            pytest.fail(f"{key} has no RECORD: cannot tell its files")
        for top in sorted({Path(str(f)).parts[0] for f in files}):
            if top in ("..", "__pycache__") or top.endswith(".pth") or (folder / top).exists():
                continue
            source = Path(str(dist.locate_file(top)))
            if source.exists():
                (folder / top).symlink_to(source)
        names.append(key)
    return names


def throwaway_venv(tmp: Path, wheel: Path) -> Path:
    """A venv with the wheel installed by pip, and only the required distributions."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    deps = link_dependencies(tmp / "deps", wheel)
    assert {"pyside6-essentials", "numpy", "jinja2", "platformdirs"} <= set(deps)
    (site / "_triage_test_deps.pth").write_text(f"{tmp / 'deps'}\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--no-deps", "--no-index", "--quiet", str(wheel)], check=True,
                   capture_output=True)
    return venv


def run(argv: list[str], cwd: Path, env: dict[str, str],
        timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run a command in ``cwd``; fail the test with its error output when it fails."""
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{argv[1:]} exited {done.returncode}:\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The venv's bin folder, after building the wheel and installing it there."""
    tmp = tmp_path_factory.mktemp("install")
    src = source_copy(tmp / "src")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                            str(src), "-w", str(tmp / "wheel")], capture_output=True,
                           text=True, check=False, timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = next((tmp / "wheel").glob("triage-*.whl"))
    return throwaway_venv(tmp, wheel) / "bin"


def clean_env(home: Path) -> dict[str, str]:
    """The environment of a user's shell: no path into the checkout, a home of its own."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "share"),
               TRIAGE_CONFIG_DIR=str(home / "config"), TRIAGE_DATA_DIR=str(home / "data"),
               QT_QPA_PLATFORM="offscreen")
    return env


@pytest.mark.slow
def test_installed_program_runs_without_the_checkout(installed: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path / "home")
    triage = str(installed / "triage")
    where = run([str(installed / "python"), "-c",
                 "import main, triage, ui; from triage.base.resources import resource_dir;"
                 "print(main.__file__, triage.__file__, ui.__file__, resource_dir())"],
                tmp_path, env).stdout.split()
    venv = installed.parent.resolve()
    assert len(where) == 4 and all(Path(p).resolve().is_relative_to(venv) for p in where)
    assert not any(Path(p).resolve().is_relative_to(ROOT) for p in where)
    shipped = Path(where[3])
    assert shipped.parent == Path(where[1]).parent  # triage/resources, beside the code
    assert {p.name for p in shipped.iterdir()} >= {"demo", "demo_pictures", "icons"}

    assert "status" in run([triage, "--help"], tmp_path, env).stdout
    (tmp_path / "pool.csv").write_text("key,text,score,gold\nk1,spill the beans,0.9,yes\n"
                                       "k2,red car,0.2,no\nk3,kick the bucket,0.7,yes\n",
                                       encoding="utf-8")
    run([triage, "new", "pool.triage", "pool.csv", "--text", "text", "--key", "key",
         "--score", "m=score", "--gold", "gold"], tmp_path, env)
    status = json.loads(run([triage, "status", "--json", "pool.triage"], tmp_path,
                            env).stdout)
    assert (status["pool"], status["annotated"]) == (3, 0)
    run([triage, "report", "pool.triage", "-o", "report.html"], tmp_path, env)
    assert "pool.triage" in (tmp_path / "report.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_installed_demos_open_from_the_package_data(installed: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path / "home")
    triage = str(installed / "triage")
    data = tmp_path / "home" / "data"
    run([triage, "--demo", "--simulate", "20", "--screenshot", "demo.png"], tmp_path, env)
    assert (tmp_path / "demo.png").read_bytes()[:8] == PNG
    demo = json.loads(run([triage, "status", "--json", str(data / "demo.triage")],
                          tmp_path, env).stdout)
    assert (demo["pool"], demo["annotated"]) == (1500, 20)

    run([triage, "--demo-pictures", "--screenshot", "pictures.png"], tmp_path, env)
    assert (tmp_path / "pictures.png").read_bytes()[:8] == PNG
    pictures = json.loads(run([triage, "status", "--json", "--check-images",
                               str(data / "demo-pictures.triage")], tmp_path, env).stdout)
    assert pictures["pool"] == 400
    assert (pictures["pictures"]["pictures"], pictures["pictures"]["not_shown"]) == (400, 0)


@pytest.mark.slow
def test_installed_program_installs_its_desktop_entry(installed: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path / "home")
    run([str(installed / "triage"), "--install-desktop"], tmp_path, env)
    entry = (tmp_path / "home" / "share" / "applications" / "triage.desktop").read_text(
        encoding="utf-8")
    assert f"\nExec={installed / 'triage'} %f\n" in entry
    icon = tmp_path / "home" / "share" / "icons" / "hicolor" / "scalable" / "apps" / "triage.svg"
    assert icon.read_bytes() == (ROOT / "resources" / "icons" / "triage.svg").read_bytes()


def test_dependency_closure_follows_extras_and_markers_only_when_asked() -> None:
    closure = requirement_closure(["psycopg[binary]>=3.1", "jinja2",
                                   'pytest; extra == "test"', 'pywin32; sys_platform == "win32"'])
    assert {"psycopg", "psycopg-binary", "jinja2", "markupsafe"} <= set(closure)
    assert "pytest" not in closure and "pywin32" not in closure
