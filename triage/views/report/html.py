"""The report as one self-contained HTML page: Jinja2 with autoescape on, charts inline.

Every value from the project (candidate text and keys, annotator names, labels, notes,
settings, model names) reaches the page through the template, which escapes it. The only
markup not escaped is the charts' SVG, which :mod:`~triage.views.report.chart_svg` writes
itself, escaping every text it holds.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, Template
from markupsafe import Markup

from triage.views.panels import format_money, format_share
from triage.views.report.charts import drawn_charts
from triage.views.text import reveal


def format_number(x: Any, digits: int = 3) -> str:
    """A number for the report: thousands separated, ``digits`` decimals, — for none."""
    if x is None:
        return "—"
    if isinstance(x, bool) or not isinstance(x, int | float):
        return str(x)
    if isinstance(x, float) and math.isinf(x):
        return "unlimited" if x > 0 else "-unlimited"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.{digits}f}"


def format_count(x: Any) -> str:
    """A count as a count: ``230``, ``1,204`` (never ``230.0``); — for none."""
    if x is None or isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
        return "—" if x is None else str(x)
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def _visible(value: Any) -> Any:
    """Text with hidden characters made visible; markup we built ourselves left alone."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return reveal(value)
    return value


def environment() -> Environment:
    """The Jinja2 environment: autoescape always on, undefined names are errors.

    Every value printed passes through :func:`_visible` first, so a direction override,
    a zero-width space or a raw ESC in a candidate's text is shown as ``⟨U+…⟩``.
    """
    env = Environment(loader=PackageLoader("triage.views.report", "templates"),
                      autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True, finalize=_visible)
    env.filters["num"] = format_number
    env.filters["count"] = format_count
    env.filters["share"] = format_share
    env.filters["money"] = format_money
    return env


@functools.cache
def template() -> Template:
    """The report's page template, compiled once per process (ahead of the render, if asked)."""
    return environment().get_template("report.html.j2")


def render_html(data: dict[str, Any], drawn: dict[str, str] | None = None) -> str:
    """The whole page for report data from :func:`build_report_data`.

    ``drawn``: charts already drawn as SVG (by name); the others are drawn here."""
    charts = {name: Markup(svg)  # noqa: S704 - our own SVG, its texts escaped
              for name, svg in drawn_charts(data, "html", drawn).items()}
    return template().render(d=data, charts=charts)
