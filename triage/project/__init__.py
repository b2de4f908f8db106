"""One project: the facade that joins the store, serving and the statistics.

:mod:`~triage.project.core` holds :class:`Project` (sessions, the queue, labels, live
figures), :mod:`~triage.project.files` creates and opens it; the other modules each answer one question about a project: ``advice``,
``agreement``, ``adjudication``, ``merge``, ``export``, ``gain`` and ``final`` (final
labels). ``demo`` builds the demo project.
"""

# sqlite-utils would load pandas, which no command here needs, unless triage.store imports
# it first through the start-up policy (triage.base.startup): import it before any module
# here imports sqlite_utils.
import triage.store  # noqa: F401, I001
from triage.project.core import Project
from triage.project.files import create_project, open_project, opened
from triage.project.types import Candidate, ProjectStatus, Session

__all__ = ["Candidate", "Project", "ProjectStatus", "Session", "create_project", "open_project",
           "opened"]
