"""``triage --install-desktop``: Triage in the desktop's menu, and ``.triage`` files it opens.

Writes, under ``$XDG_DATA_HOME`` (``~/.local/share`` when unset), the files the
freedesktop.org specifications read:

- ``applications/triage.desktop``: the menu entry; ``Exec`` is the running ``triage``
  program's absolute path with ``%f``, so a double-clicked project opens at the desk
  (``triage PROJECT.triage``);
- ``icons/hicolor/scalable/apps/triage.svg`` and ``.../256x256/apps/triage.png``: its icon;
- ``mime/packages/triage.xml``: the type ``application/x-triage`` for ``*.triage`` (a
  kind of SQLite database).

Then it refreshes the desktop's caches with ``update-mime-database``,
``update-desktop-database`` and ``gtk-update-icon-cache`` where they are installed (none of
them is required). Running it again rewrites the same files; ``--uninstall-desktop``
removes them. No Qt here: it runs before, and without, the desk.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from triage.base.errors import TriageError
from triage.base.resources import resource

APP_ID = "triage"
MIME_TYPE = "application/x-triage"
# Where each shipped icon goes in the hicolor theme (the fallback every desktop reads).
ICONS = (("scalable", "triage.svg"), ("256x256", "triage.png"))
# Characters that make the desktop-entry spec require an Exec argument to be quoted.
_RESERVED = set(' \t\n"\'\\><~|&;$*?#()`')
_TOOL_TIMEOUT_S = 30

MIME_XML = """<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="application/x-triage">
    <comment>Triage project</comment>
    <sub-class-of type="application/vnd.sqlite3"/>
    <icon name="triage"/>
    <glob pattern="*.triage"/>
  </mime-type>
</mime-info>
"""


@dataclass(frozen=True)
class DesktopFiles:
    """Where the entry, its icons and the MIME type go under one data directory."""

    data_home: Path

    @property
    def entry(self) -> Path:
        """The ``.desktop`` file."""
        return self.data_home / "applications" / f"{APP_ID}.desktop"

    @property
    def mime(self) -> Path:
        """The MIME package (``application/x-triage``)."""
        return self.data_home / "mime" / "packages" / f"{APP_ID}.xml"

    def icon(self, size: str, name: str) -> Path:
        """Where one icon goes in the hicolor theme."""
        return self.data_home / "icons" / "hicolor" / size / "apps" / name

    def all(self) -> list[Path]:
        """Every file installed."""
        return [self.entry, self.mime, *(self.icon(size, name) for size, name in ICONS)]


def data_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME`` if absolute (the spec ignores a relative one), else ``~/.local/share``."""
    value = (os.environ if environ is None else environ).get("XDG_DATA_HOME", "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / ".local" / "share"


def program_command(argv0: str | None = None, executable: str | None = None) -> list[str]:
    """The command that starts this program's desk, as absolute paths.

    The installed ``triage`` script runs as itself; ``python main.py`` from a checkout as
    that Python with that file. A symlink is kept (``~/.local/bin/triage`` from pipx
    outlives an upgrade of the environment it points into).
    """
    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = sys.executable if executable is None else executable
    if Path(argv0).name == "main.py" and Path(argv0).is_file():
        return [os.path.abspath(executable), os.path.abspath(argv0)]
    if argv0 and not argv0.endswith(".py"):
        found = argv0 if os.sep in argv0 else shutil.which(argv0)
        if found and Path(found).is_file():
            return [os.path.abspath(found)]
    found = shutil.which(APP_ID)
    if found:
        return [os.path.abspath(found)]
    raise TriageError("cannot tell how to start the desk from here: run "
                      "`triage --install-desktop` with the installed triage command")


def exec_argument(arg: str) -> str:
    """One argument of an ``Exec`` key, quoted and escaped as the desktop-entry spec says."""
    arg = arg.replace("%", "%%")
    if any(ch in _RESERVED for ch in arg):
        inner = "".join("\\" + ch if ch in '"`$\\' else ch for ch in arg)
        arg = f'"{inner}"'
    # The value is a string too, where a backslash is itself escaped.
    return arg.replace("\\", "\\\\")


def desktop_entry(command: Sequence[str]) -> str:
    """The text of ``triage.desktop`` for a desk started by ``command``."""
    exec_line = " ".join(exec_argument(part) for part in command)
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.4",
        "Name=Triage",
        "GenericName=Annotation desk",
        "Comment=Label model-ranked candidates on a budget, and know when to stop",
        f"TryExec={command[0].replace(chr(92), chr(92) * 2)}",  # a plain string: no quotes
        f"Exec={exec_line} %f",
        "Icon=triage",
        "Terminal=false",
        "Categories=Science;DataVisualization;",
        f"MimeType={MIME_TYPE};",
        "Keywords=annotation;labeling;labelling;triage;",
        "StartupNotify=true",
        # Qt names the desk's windows' class after the application ("Triage"); the
        # instance is the program's file name ("triage", or "main.py" from a checkout).
        "StartupWMClass=Triage",
        "",
    ])


Runner = Callable[[Sequence[str]], None]


def run_tool(argv: Sequence[str]) -> None:
    """Run one cache-refresh tool if it is installed; its failure is not ours."""
    if shutil.which(argv[0]) is None:
        return
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(list(argv), check=False, capture_output=True, timeout=_TOOL_TIMEOUT_S)


def refresh_caches(files: DesktopFiles, runner: Runner = run_tool) -> None:
    """Tell the desktop about the new (or removed) type, entry and icon."""
    runner(["update-mime-database", str(files.data_home / "mime")])
    runner(["update-desktop-database", "-q", str(files.entry.parent)])
    runner(["gtk-update-icon-cache", "-q", "-t", "-f",
            str(files.data_home / "icons" / "hicolor")])


def _write(path: Path, data: bytes) -> None:
    """Write ``path`` whole (a reader never sees half a file), making its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def install(home: Path | None = None, command: Sequence[str] | None = None,
            runner: Runner = run_tool) -> list[Path]:
    """Write the entry, the icons and the MIME type; return the files written."""
    files = DesktopFiles(home or data_home())
    command = list(command or program_command())
    try:
        for size, name in ICONS:
            _write(files.icon(size, name), resource("icons", name).read_bytes())
        _write(files.mime, MIME_XML.encode("utf-8"))
        _write(files.entry, desktop_entry(command).encode("utf-8"))
    except OSError as error:
        raise TriageError(f"{error.filename or files.data_home}: cannot write the desktop "
                          f"entry ({error.strerror or error})") from None
    refresh_caches(files, runner)
    return files.all()


def uninstall(home: Path | None = None, runner: Runner = run_tool) -> list[Path]:
    """Remove what :func:`install` wrote; return the files that were there."""
    files = DesktopFiles(home or data_home())
    removed = [path for path in files.all() if path.is_file()]
    for path in removed:
        path.unlink()
    refresh_caches(files, runner)
    return removed


def run(flag: str) -> int:
    """``triage --install-desktop`` or ``--uninstall-desktop``: do it and say what changed."""
    if flag == "--install-desktop":
        written = install()
        print(f"Triage is in the applications menu; .triage files open at the desk "
              f"({MIME_TYPE}). Files written:")
        for path in written:
            print(f"  {path}")
        return 0
    removed = uninstall()
    if not removed:
        print(f"No desktop entry of Triage was installed under {data_home()}.")
    for path in removed:
        print(f"removed {path}")
    return 0
