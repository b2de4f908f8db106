"""Is a project argument a team server's address or a file? The one test, for every layer.

Light on purpose (no import beyond the standard library): the desk's command line asks
it before the core is loaded.
"""

from __future__ import annotations

from pathlib import Path

SCHEMES = ("postgresql", "postgres")


def is_server_url(text: str | Path) -> bool:
    """True when ``text`` is a ``postgresql://`` or ``postgres://`` address, not a file."""
    if not isinstance(text, str):
        return False
    scheme, sep, _rest = text.partition("://")
    return bool(sep) and scheme.lower() in SCHEMES


def project_location(text: str) -> Path | str:
    """A project argument: a server address stays text, anything else becomes a Path.

    (``Path`` would fold the ``//`` of ``postgresql://host/db``.)
    """
    return text if is_server_url(text) else Path(text)
