"""Triage core: plain Python, no Qt.

Scripts and notebooks use it like this::

    import triage

    with triage.open_project("idioms.triage") as project:
        session = project.start_session("ada")
        item = project.next_candidate(session)
        project.record_label(session, item.candidate_id, "idiom", seconds=3.2)
        project.undo(session)                  # the candidate comes back
        print(project.status().snapshot.positives_found)
"""

from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Candidate": "triage.project", "Project": "triage.project", "Session": "triage.project",
    "create_project": "triage.project", "open_project": "triage.project",
    "InputError": "triage.base.errors", "ProjectError": "triage.base.errors", "TriageError": "triage.base.errors",
}
__all__ = ["Candidate", "InputError", "Project", "ProjectError", "Session", "TriageError",
           "create_project", "open_project"]   # the keys of _EXPORTS


def __getattr__(name: str) -> Any:
    # Lazy: ``import triage`` stays cheap, and the CLI loads only what a command needs.
    # Type checkers read the exports' real types from __init__.pyi.
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'triage' has no attribute {name!r}")
