"""Before ``make run``: does this machine have the X libraries Qt's xcb platform needs?

Only asked when a window would really open (a display is set and QT_QPA_PLATFORM is not
offscreen). Prints the one ``apt-get install`` line that fixes a missing library and exits
1; otherwise says nothing and exits 0.
"""

from __future__ import annotations

import ctypes.util
import os
import sys
from collections.abc import Callable, Mapping

# library name (as find_library takes it) -> the Debian/Ubuntu package that provides it
XCB_LIBRARIES = {"xcb-cursor": "libxcb-cursor0", "xcb-icccm": "libxcb-icccm4",
                 "xcb-keysyms": "libxcb-keysyms1"}


def needs_check(env: Mapping[str, str]) -> bool:
    """A real window on X11 (or XWayland): a display, and no offscreen platform."""
    platform = env.get("QT_QPA_PLATFORM", "")
    return bool(env.get("DISPLAY")) and not platform.startswith(("offscreen", "minimal"))


def missing_packages(find: Callable[[str], str | None] = ctypes.util.find_library) -> list[str]:
    """The packages whose library ``ldconfig`` does not know."""
    return [package for name, package in XCB_LIBRARIES.items() if not find(name)]


def main(env: Mapping[str, str] | None = None,
         find: Callable[[str], str | None] = ctypes.util.find_library) -> int:
    env = os.environ if env is None else env
    if not needs_check(env):
        return 0
    missing = missing_packages(find)
    if not missing:
        return 0
    print("Qt cannot open a window here: the X library "
          f"{'packages' if len(missing) > 1 else 'package'} {', '.join(missing)} "
          f"{'are' if len(missing) > 1 else 'is'} missing. Install with:\n\n"
          f"    sudo apt-get install {' '.join(XCB_LIBRARIES.values())}\n", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
