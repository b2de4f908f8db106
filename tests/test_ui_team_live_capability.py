"""The window asks the project what it offers on a server, never its class."""

from __future__ import annotations

from types import SimpleNamespace

from ui.team_live import project_title, server_problems, start_team_live, team_annotator


class Server:
    address = "postgresql://db.example/triage"
    role = "ada_login"
    server_problems = "2 rows from the server could not be used: bad value"

    def __init__(self) -> None:
        self.started = False

    def listener(self, on_change):
        server = self
        return SimpleNamespace(start=lambda: setattr(server, "started", True),
                               stop=lambda: None)


def test_a_project_on_a_server_is_known_by_what_it_offers(qtbot):
    from PySide6.QtCore import QObject

    server = Server()
    on_server = SimpleNamespace(server=server)
    assert project_title(on_server, "replica.triage") == "postgresql://db.example/triage"
    assert team_annotator(on_server, "typed name") == "ada_login"
    assert server_problems(on_server).startswith("2 rows from the server")
    parent = QObject()
    live = start_team_live(parent, on_server, lambda: None)
    assert live is not None and server.started


def test_a_project_file_has_no_server_side(qtbot):
    from PySide6.QtCore import QObject

    a_file = SimpleNamespace(server=None)
    assert project_title(a_file, "p.triage") == "p.triage"
    assert team_annotator(a_file, "ada") == "ada"
    assert server_problems(a_file) is None and server_problems(None) is None
    assert start_team_live(QObject(), a_file, lambda: None) is None
