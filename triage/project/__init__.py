"""One project: the facade that joins the store, serving and the statistics.

:mod:`~triage.project.core` holds :class:`Project` (sessions, the queue, labels, live
figures); the other modules each answer one question about a project: ``advice``,
``agreement``, ``adjudication``, ``merge``, ``export``, ``gain`` and ``final`` (final
labels). ``demo`` builds the demo project.
"""

from triage.project.core import (
    Candidate,
    Project,
    ProjectStatus,
    Session,
    create_project,
    open_project,
    opened,
)

__all__ = ["Candidate", "Project", "ProjectStatus", "Session", "create_project", "open_project",
           "opened"]
