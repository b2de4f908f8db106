"""Type stub of :mod:`triage`: the lazily loaded exports, with their real types (PEP 561)."""

from typing import Any

from triage.base.errors import InputError as InputError
from triage.base.errors import ProjectError as ProjectError
from triage.base.errors import TriageError as TriageError
from triage.project import Candidate as Candidate
from triage.project import Project as Project
from triage.project import Session as Session
from triage.project import create_project as create_project
from triage.project import open_project as open_project

__version__: str
__all__: list[str]

def __getattr__(name: str) -> Any: ...
