"""The lead window's schedule: which analyses are stale, which are computing, which tabs show
their figures, and what to compute next. Qt-free; ``ui.lead_window`` runs the requests (on a
worker, in a helper process) and draws what :meth:`LeadSchedule.arrive` hands back.

The rules it keeps:

- Every analysis is stale when the window opens, on "Recompute" and when it closes; one
  computes when its tab is shown while stale (:meth:`LeadSchedule.on_tab`), or on
  "Recompute" (:meth:`LeadSchedule.recompute`).
- A ruling (or its undo) makes the agreement stale.
- The model comparison comes in three steps, quick figures first: the metrics, curves and
  gain (``models``), then the value tables and calibration (``models-value``), then the
  permutation tests (``models-pvalues``); the later two are shown only into a comparison
  already shown. The Models tab is filled when its first step is shown.
- A result whose view is not built yet (the chart views load matplotlib first) waits for it.
- A step that failed counts as filled: it will not fill, and the news says why. When the
  metrics failed (their helper ended: the window closed, or it broke), there is no
  comparison to fill the later steps into: they count as filled too, and a later step that
  still arrives is dropped.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from triage.project.core import Project
from triage.project.guidelines import Guidelines, current_guidelines, save_guidelines
from triage.views.tasks import AGREEMENT, DISAGREEMENTS, MODELS, Task

# The advice is not among them: it arrives as the one AdviceState.
ANALYSES = ("agreement", "adjudication", "guidelines", "models")
LATER = ("models-value", "models-pvalues")   # shown into the comparison once it is shown
STEPS = (*ANALYSES, *LATER)
TABS = ("overview", "advice", *STEPS)   # what pending() counts
VIEW_OF = dict.fromkeys(LATER, "models")  # the steps whose figures go into another's view
LATE_VIEWS = ("agreement", "models")    # built after the window opens (see view_built)


@dataclass(frozen=True)
class Request:
    """One thing to compute: ``task`` in its helper process (None: here, one row)."""

    step: str
    task: Task | None
    stage: str | None = None      # the model comparison's step: metrics | value | pvalues
    needs_curves: bool = False    # pass the desk's offline curves along


REQUESTS = {
    "guidelines": (Request("guidelines", None),),
    "adjudication": (Request("adjudication", DISAGREEMENTS),),
    "agreement": (Request("agreement", AGREEMENT),),
    "models": (Request("models", MODELS, "metrics", True),
               Request("models-value", MODELS, "value"),
               Request("models-pvalues", MODELS, "pvalues")),
}


class LeadSchedule:
    """The state of the lead window's analyses; every method says what to do next."""

    def __init__(self) -> None:
        self.stale: set[str] = set(ANALYSES)
        self.filled: set[str] = set()     # tabs (TABS) showing their figures
        self.running: set[str] = set()    # steps computing now
        self.built: set[str] = set(ANALYSES) - set(LATE_VIEWS)
        self.drawn: set[str] = set()      # steps whose result was handed over to draw
        self._waiting: dict[str, Any] = {}  # results waiting for their view
        self.news = ""                     # the last news (a report written, an error)

    # -- what to compute -----------------------------------------------------------------
    def recompute(self) -> list[Request]:
        """Everything is stale: the requests for every analysis."""
        self.stale = set(ANALYSES)
        return [r for name in ANALYSES for r in self.start(name)]

    def on_tab(self, name: str | None) -> list[Request]:
        """The tab ``name`` is shown: its requests if it is stale, else none."""
        return self.start(name) if name in self.stale else []

    def start(self, name: str) -> list[Request]:
        """The requests that compute analysis ``name``; it is no longer stale."""
        self.stale.discard(name)
        requests = list(REQUESTS[name])
        if name == "models":
            self.filled -= set(LATER)   # the value tables and tests come again, after the metrics
            if "models" not in self.drawn:
                self.filled.discard("models")   # it failed before: computing it again
        self.running |= {r.step for r in requests if r.task is not None}
        return requests

    def ruled(self) -> None:
        """A ruling was recorded or undone: the agreement is stale."""
        self.stale.add("agreement")

    def closed(self) -> None:
        """The window closed: what it was computing is of no use; everything is stale."""
        self.stale = set(ANALYSES)

    # -- what arrives --------------------------------------------------------------------
    def arrive(self, step: str, result: Any) -> list[tuple[str, Any]]:
        """``step`` computed ``result``: the (step, result) pairs to draw now, in order."""
        self.running.discard(step)
        if step in LATER and "models" in self.filled and "models" not in self.drawn:
            self.filled.add(step)   # the metrics failed: no comparison to fill it into
            return []
        self._waiting[step] = result
        return self._deliverable()

    def dropped(self, step: str) -> None:
        """``step`` reported for a project no longer open: nothing to draw."""
        self.running.discard(step)

    def fail(self, step: str, message: str) -> str:
        """``step`` failed with ``message``: it counts as filled; the news to show."""
        self.running.discard(step)
        self.filled.add(step)
        if step == "models":   # no comparison to fill the later steps into: neither will fill
            self.drawn.discard("models")
            self.filled |= set(LATER)
            for later in LATER:
                self._waiting.pop(later, None)
        self.news = f"{step}: {message}"
        return self.news

    def view_built(self, name: str) -> list[tuple[str, Any]]:
        """The view of ``name`` is there now: the results that waited for it, in order."""
        self.built.add(name)
        return self._deliverable()

    def _deliverable(self) -> list[tuple[str, Any]]:
        out = []
        for step in STEPS:   # the metrics before their value tables and tests
            if step not in self._waiting or VIEW_OF.get(step, step) not in self.built:
                continue
            if step in LATER and "models" not in self.drawn:
                continue
            out.append((step, self._waiting.pop(step)))
            self.filled.add(step)
            self.drawn.add(step)
        return out

    # -- what the window says --------------------------------------------------------------
    def pending(self) -> set[str]:
        """The tabs (TABS) not yet showing their figures: "computing…" or still filling."""
        return set(TABS) - self.filled

    def shown(self, tab: str) -> None:
        """``tab`` (overview, advice) shows its figures."""
        self.filled.add(tab)

    def say(self, news: str) -> None:
        """Keep ``news`` (a report written, an error) until the next news."""
        self.news = news

    def status(self) -> str:
        """The status line: the last news, then what is computing."""
        running = [step for step in TABS if step in self.running]
        computing = f"computing {', '.join(running)}…" if running else ""
        return " — ".join(part for part in (self.news, computing) if part)


def guidelines_tab(project: Project) -> tuple[Guidelines, tuple[str, ...]]:
    """What the Guidelines tab shows: the current guidelines and the highlight words."""
    return current_guidelines(project), tuple(project.settings.highlight_words)


def save_guidelines_tab(project: Project, text: str, words: tuple[str, ...],
                        author: str | None) -> tuple[Guidelines, str]:
    """Save guidelines (and changed highlight words); the saved ones and the news line."""
    before = tuple(project.settings.highlight_words)
    saved = save_guidelines(project, text, author)
    if tuple(words) != before:
        project.update_settings(highlight_words=tuple(words))
    return saved, f"Saved: guidelines v{saved.version}, {len(words)} highlight words."


def fill_in(step: str, data: Any, result: Any) -> Any:
    """The model comparison ``data`` with a later step's ``result`` (LATER) filled in."""
    return (with_value if step == "models-value" else with_pvalues)(data, result)


def with_value(data: Any, tables: Any) -> Any:
    """The model comparison ``data`` with its value tables and calibration filled in."""
    from triage.views.models import with_value as fill

    return fill(data, tables)


def with_pvalues(data: Any, pvalues: Any) -> Any:
    """The model comparison ``data`` with its permutation tests filled in."""
    return dataclasses.replace(data, pvalues=pvalues, pvalues_pending=False)
