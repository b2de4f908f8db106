"""The work the GUI sends to its helper processes, named by typed references, not strings.

A :class:`Task` says which function computes it (module and name, imported in the helper
process only, so that the desk never pays for those imports) and which helper process runs
it: ``advice`` (the advice, curves and checkpoints, below the desk's priority), ``cal``
(the cal ranking's fits), ``lead`` (the lead window's agreement, disagreements, gallery)
and ``models`` (the model comparison, which must not queue behind the lead's). A test
imports every task's function, so a renamed function fails there, not in a helper.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Helper = Literal["advice", "cal", "lead", "models"]
HELPERS: tuple[Helper, ...] = ("advice", "cal", "lead", "models")


@dataclass(frozen=True)
class Task:
    """``function`` of ``module``, run on a project path in the ``helper`` process."""

    module: str
    function: str
    helper: Helper

    def resolve(self) -> Callable[..., Any]:
        """The function itself (imports its module: call it in the helper)."""
        function: Callable[..., Any] = getattr(importlib.import_module(self.module),
                                               self.function)
        return function


ADVICE = Task("triage.project.advice", "advice_state_at", "advice")
CURVES = Task("triage.project.live_build", "offline_curves_at", "advice")
CHECKPOINT = Task("triage.project.live_build", "checkpoint_at", "advice")
CAL = Task("triage.project.cal_helper", "train_cal_at", "cal")
AGREEMENT = Task("triage.views.analysis", "agreement_at", "lead")
DISAGREEMENTS = Task("triage.views.analysis", "disagreements_at", "lead")
GALLERY = Task("triage.views.gallery", "gallery_at", "lead")
MODELS = Task("triage.views.models", "models_view_at", "models")
TASKS = (ADVICE, CURVES, CHECKPOINT, CAL, AGREEMENT, DISAGREEMENTS, GALLERY, MODELS)
