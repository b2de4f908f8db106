"""The address of a project on a server: ``postgresql://[user@]host[:port]/db?project=NAME``.

Everything except ``project`` is a libpq connection URI and passes through unchanged
(``sslmode``, ``sslrootcert``, ``service``, ``host=/socket/dir``, several hosts …). A
password is refused: an address ends up in shell history, recent-project lists and
messages, so secrets come from ``PGPASSWORD``, ``~/.pgpass`` or a ``PGSERVICE`` file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from triage.base.address import is_server_url
from triage.base.errors import TriageError

PROJECT_RULE = re.compile(r"[a-z][a-z0-9_]{0,39}")   # matched whole (re.fullmatch)
# libpq parameters that carry a secret, compared without regard to case.
SECRET_KEYS = frozenset({"password", "sslpassword"})
_SECRETS = "give it with PGPASSWORD, in ~/.pgpass, or in a PGSERVICE service file"


def check_project_name(name: str) -> str:
    """``name`` when it is a valid server project name, else a TriageError naming the rule."""
    if not PROJECT_RULE.fullmatch(name):
        raise TriageError(
            f"project name {name!r} is not allowed on a server: use 1 to 40 characters, "
            "lower-case letters, digits and _, starting with a letter")
    return name


@dataclass(frozen=True)
class ServerUrl:
    """A parsed server address: the libpq URI without ``project``, and the project."""

    conninfo: str
    project: str
    user: str | None
    hosts: str
    port: str | None
    dbname: str | None
    params: tuple[tuple[str, str], ...]

    @property
    def schema(self) -> str:
        """The PostgreSQL schema holding the project's tables."""
        return f"triage_{self.project}"

    @property
    def lead_role(self) -> str:
        """The group role whose members lead the project."""
        return f"triage_{self.project}_lead"

    @property
    def annotator_role(self) -> str:
        """The group role whose members annotate in the project."""
        return f"triage_{self.project}_annotator"

    @property
    def host(self) -> str:
        """The host (or socket directory) for messages: ``localhost`` when libpq's default."""
        return self.hosts or dict(self.params).get("host") or "localhost"

    def param(self, name: str) -> str | None:
        """A libpq parameter given in the query string (``sslmode`` …), or None."""
        return dict(self.params).get(name)

    @property
    def display(self) -> str:
        """The address as shown in messages (never holds a secret: passwords are refused)."""
        return f"{self.conninfo}{'&' if self.params else '?'}project={self.project}"

    def __str__(self) -> str:
        return self.display


def parse_url(text: str) -> ServerUrl:
    """Parse and check a server address; TriageError saying what is wrong with it."""
    if not is_server_url(text):
        raise TriageError(f"{text!r} is not a server address (postgresql://HOST/DB?project=NAME)")
    parts = urlsplit(text)
    userinfo, _, hostlist = parts.netloc.rpartition("@")
    user, colon, password = userinfo.partition(":")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if password or any(k.strip().lower() in SECRET_KEYS for k, _ in pairs):
        raise TriageError(f"put no password in the server address; {_SECRETS}")
    if colon and not password:
        userinfo = user   # "user:@host" (an empty password) is only the user
    projects = [v for k, v in pairs if k == "project"]
    if not projects:
        raise TriageError(f"{_redact(parts)}: name the project with ?project=NAME")
    if len(projects) > 1:
        raise TriageError(f"{_redact(parts)}: give ?project= once")
    kept = tuple((k, v) for k, v in pairs if k != "project")
    netloc = f"{userinfo}@{hostlist}" if userinfo else hostlist
    query = urlencode(kept)
    # Built by hand: urlunsplit drops the "//" of an empty host ("postgresql:///db").
    conninfo = f"{parts.scheme}://{netloc}{parts.path}{'?' if query else ''}{query}"
    port = None
    if hostlist and "," not in hostlist and not hostlist.endswith("]"):
        port = hostlist.rpartition(":")[2] if ":" in hostlist else None
        hostlist = hostlist.rpartition(":")[0] if port else hostlist
    return ServerUrl(conninfo=conninfo, project=check_project_name(projects[0]),
                     user=unquote(user) or None, hosts=unquote(hostlist), port=port,
                     dbname=unquote(parts.path.lstrip("/")) or None, params=kept)


def _redact(parts: object) -> str:
    """The address without its query string (for messages about a malformed one)."""
    scheme, netloc, path = (getattr(parts, name) for name in ("scheme", "netloc", "path"))
    return f"{scheme}://{netloc}{path}"


__all__ = ["ServerUrl", "check_project_name", "is_server_url", "parse_url"]
