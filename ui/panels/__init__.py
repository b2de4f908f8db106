"""Live chart panels: cumulative gain, spend, marginal-decile yield (and the lead view's
offline model comparison). Each is ``Panel(parent=None, *, large=False)`` with
``show_state(snapshot, info)``, ``panel_data()`` and ``save_figure(path)``."""

from ui.panels._base import hold_renders
from ui.panels.comparison import ComparisonPanel
from ui.panels.gain import GainPanel
from ui.panels.spend import SpendPanel
from ui.panels.yield_ import YieldPanel

__all__ = ["ComparisonPanel", "GainPanel", "SpendPanel", "YieldPanel", "hold_renders"]
