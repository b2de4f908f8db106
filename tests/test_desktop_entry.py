"""``triage --install-desktop``: the menu entry, icon and MIME type, and what they open.

Every test writes under its own ``XDG_DATA_HOME``; nothing touches the real home.
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from triage.base.resources import resource
from triage.cli import desktop, gui_requested

ROOT = Path(__file__).resolve().parents[1]


def read_entry(path: Path) -> dict[str, str]:
    """The ``[Desktop Entry]`` group of a .desktop file, keys as written."""
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text(encoding="utf-8"))
    assert parser.sections() == ["Desktop Entry"]
    return dict(parser["Desktop Entry"])


def exec_argv(value: str) -> list[str]:
    r"""An ``Exec`` value split as the desktop-entry spec says a launcher splits it.

    The string's escapes are undone first (two backslashes are one); then arguments are
    separated by spaces, a double-quoted one may hold anything, and inside the quotes a
    backslash makes the next double quote, backquote, dollar or backslash literal; ``%%``
    is ``%``.
    """
    text = value.replace("\\\\", "\\")
    args: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == " ":
            i += 1
            continue
        if text[i] != '"':
            end = text.find(" ", i)
            end = len(text) if end < 0 else end
            args.append(text[i:end])
            i = end
            continue
        arg, i = [], i + 1
        while text[i] != '"':
            if text[i] == "\\" and text[i + 1] in '"`$\\':
                i += 1
            arg.append(text[i])
            i += 1
        args.append("".join(arg))
        i += 1
    return [arg.replace("%%", "%") for arg in args]


def no_tools(argv: object) -> None:
    """A runner that runs nothing (the cache tools are tested on their own)."""


def test_install_writes_entry_icons_and_mime_type(tmp_path: Path) -> None:
    home = tmp_path / "share"
    written = desktop.install(home, ["/opt/triage/bin/triage"], runner=no_tools)
    files = desktop.DesktopFiles(home)
    assert sorted(written) == sorted(files.all())
    entry = read_entry(home / "applications" / "triage.desktop")
    assert entry["Type"] == "Application" and entry["Name"] == "Triage"
    assert entry["Exec"] == "/opt/triage/bin/triage %f"
    assert entry["TryExec"] == "/opt/triage/bin/triage"
    assert entry["Icon"] == "triage" and entry["Terminal"] == "false"
    assert entry["MimeType"] == "application/x-triage;"
    assert entry["StartupWMClass"] == "Triage"
    svg = home / "icons/hicolor/scalable/apps/triage.svg"
    png = home / "icons/hicolor/256x256/apps/triage.png"
    assert svg.read_bytes() == resource("icons", "triage.svg").read_bytes()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    mime = (home / "mime/packages/triage.xml").read_text(encoding="utf-8")
    assert 'type="application/x-triage"' in mime and 'pattern="*.triage"' in mime


def test_install_twice_gives_the_same_files_and_uninstall_removes_them(tmp_path: Path) -> None:
    home = tmp_path / "share"
    desktop.install(home, ["/usr/bin/triage"], runner=no_tools)
    first = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    desktop.install(home, ["/usr/bin/triage"], runner=no_tools)
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == first
    removed = desktop.uninstall(home, runner=no_tools)
    assert sorted(removed) == sorted(desktop.DesktopFiles(home).all())
    assert [p for p in home.rglob("*") if p.is_file()] == []
    assert desktop.uninstall(home, runner=no_tools) == []


@pytest.mark.parametrize("command", [
    ["/home/ada lovelace/.local/bin/triage"],
    ["/srv/$HOME/py\"thon", "/x/it's `main`.py"],
    ["/opt/100%/triage"],
    ["C:\\odd\\path"],
])
def test_exec_line_quotes_what_the_spec_says(command: list[str]) -> None:
    text = desktop.desktop_entry(command)
    value = next(line for line in text.splitlines() if line.startswith("Exec="))[5:]
    assert value.endswith(" %f")
    assert exec_argv(value[:-3]) == command


def test_data_home_follows_xdg_data_home_only_when_absolute(tmp_path: Path) -> None:
    assert desktop.data_home({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path
    default = Path.home() / ".local" / "share"
    assert desktop.data_home({"XDG_DATA_HOME": "relative/share"}) == default
    assert desktop.data_home({}) == default


def test_program_command_is_the_running_program(tmp_path: Path) -> None:
    script = tmp_path / "bin" / "triage"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    assert desktop.program_command(str(script), "/usr/bin/python3") == [str(script)]
    main_py = ROOT / "main.py"
    assert desktop.program_command(str(main_py), "/venv/bin/python") == \
        ["/venv/bin/python", str(main_py)]


def test_missing_cache_tools_are_no_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    written = desktop.install(tmp_path / "share", ["/usr/bin/triage"])
    assert all(path.is_file() for path in written)
    calls: list[list[str]] = []
    desktop.refresh_caches(desktop.DesktopFiles(tmp_path / "share"),
                           lambda argv: calls.append(list(argv)))
    assert [call[0] for call in calls] == ["update-mime-database", "update-desktop-database",
                                           "gtk-update-icon-cache"]


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate is not installed (apt: desktop-file-utils)")
def test_entry_passes_desktop_file_validate(tmp_path: Path) -> None:
    home = tmp_path / "share"
    desktop.install(home, ["/home/ada lovelace/bin/triage"], runner=no_tools)
    done = subprocess.run(["desktop-file-validate", str(home / "applications/triage.desktop")],
                          capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


@pytest.mark.skipif(shutil.which("update-mime-database") is None,
                    reason="update-mime-database is not installed (apt: shared-mime-info)")
def test_mime_database_maps_triage_files_to_the_type(tmp_path: Path) -> None:
    home = tmp_path / "share"
    desktop.install(home, ["/usr/bin/triage"])
    globs = (home / "mime" / "globs2").read_text(encoding="utf-8").splitlines()
    assert any(line.endswith(":application/x-triage:*.triage") for line in globs)
    if shutil.which("update-desktop-database"):
        cache = (home / "applications" / "mimeinfo.cache").read_text(encoding="utf-8")
        assert "application/x-triage=triage.desktop;" in cache.splitlines()
    desktop.uninstall(home)
    globs = (home / "mime" / "globs2").read_text(encoding="utf-8")
    assert "application/x-triage" not in globs


def test_desktop_flags_are_the_command_line_s_not_the_desk_s() -> None:
    assert not gui_requested(["--install-desktop"])
    assert not gui_requested(["--uninstall-desktop"])
    assert gui_requested(["project.triage"])


def _installed_command() -> list[str]:
    """How this environment starts Triage: its ``triage`` script, else ``python main.py``."""
    script = Path(sys.executable).parent / "triage"
    return [str(script)] if script.is_file() else [sys.executable, str(ROOT / "main.py")]


@pytest.mark.slow
def test_menu_entry_opens_the_double_clicked_project(tmp_path: Path) -> None:
    """``triage --install-desktop``, then the entry's Exec line run as a file manager
    would on a project: the desk opens that project (not the demo, not the last one)."""
    from ui.prefs import Prefs

    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "share"),
               TRIAGE_CONFIG_DIR=str(tmp_path / "config"),
               TRIAGE_DATA_DIR=str(tmp_path / "data"), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([*_installed_command(), "--install-desktop"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "triage.desktop" in done.stdout
    entry = read_entry(tmp_path / "share" / "applications" / "triage.desktop")
    assert exec_argv(entry["Exec"])[:-1] == _installed_command()

    project = tmp_path / "my projects" / "idioms.triage"
    project.parent.mkdir()
    made = subprocess.run([*_installed_command(), "new", str(project),
                           str(resource("demo", "idioms.csv")), "--text", "text",
                           "--key", "key", "--score", "m=m3_classifier"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    argv = [str(project) if arg == "%f" else arg for arg in exec_argv(entry["Exec"])]
    shot = tmp_path / "shot.png"
    opened = subprocess.run([*argv, "--annotator", "ada", "--screenshot", str(shot)],
                            env=env, capture_output=True, text=True, timeout=180,
                            check=False)
    assert opened.returncode == 0, opened.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    prefs = Prefs(tmp_path / "config" / "triage.ini")
    assert prefs.last_project() == str(project.resolve())
    assert prefs.last_annotator(project) == "ada"
    assert not (tmp_path / "data" / "demo.triage").exists()


def test_desk_windows_carry_the_icon_and_name_the_entry(qapp: object) -> None:
    """The desk's windows show the icon, and say which menu entry they belong to."""
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QApplication

    from ui.app import desktop_identity

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    desktop_identity(app)
    assert app.desktopFileName() == "triage"
    image = app.windowIcon().pixmap(64, 64).toImage()
    assert (image.width(), image.height()) == (64, 64)
    # The icon's dark blue fills its middle; the corners are transparent.
    assert QColor(image.pixel(32, 8)).name() == "#1f4e79"
    assert QColor.fromRgba(image.pixel(0, 0)).alpha() == 0
