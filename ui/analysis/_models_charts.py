"""The charts of the model view, each drawn afresh into its Figure from ModelsViewData."""

from __future__ import annotations

import math

import numpy as np

from triage.views.formatting import format_decimal, format_share, plural
from triage.views.models import ModelsViewData
from triage.views.palette import GREY, model_colour
from triage.views.panels import downsample
from ui.analysis._common import FS, MARKERS, chart_text, style_axes

# A chart is a few hundred pixels wide: more points than this only cost drawing time (a
# million-point line took seconds of the GUI thread to draw) and change no pixel.
MAX_POINTS = 4000


def thin(x, y):
    """At most ~MAX_POINTS evenly spaced points of a curve, its first and last kept."""
    return downsample(x, y, MAX_POINTS)


def message(fig, text: str) -> None:
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=FS + 1, color=GREY,
            transform=ax.transAxes, wrap=True)


def draw_gain(fig, d: ModelsViewData) -> None:
    fig.clear()
    if not d.gain:
        message(fig, "Offline gain curves need gold labels for the whole pool.")
        return
    ax = fig.add_subplot()
    style_axes(ax)
    n = max(len(v) for v in d.gain.values())
    x = np.arange(1, n + 1)
    total = max(float(v[-1]) for v in d.gain.values())
    at = None
    if d.budget_items is not None and d.budget_items >= 1:
        at = int(min(math.floor(d.budget_items), n))
    for i, (m, y) in enumerate(d.gain.items()):
        name = chart_text(m)
        label = name if at is None else f"{name}: {int(y[at - 1])} positives within the budget"
        ax.plot(*thin(x[: y.size], y), color=model_colour(m, d.models), linewidth=1.6, label=label)
        if at is not None:
            ax.plot([at], [y[at - 1]], marker=MARKERS[i % len(MARKERS)],
                    color=model_colour(m, d.models), markersize=6, zorder=4)
    ax.plot([0, n], [0, total], color=GREY, linestyle=(0, (4, 3)), linewidth=1,
            label="random order")
    if at is not None:
        ax.axvline(at, color="#333333", linewidth=1, linestyle=(0, (1, 2)))
        ax.annotate(f"budget: {plural(at, 'item')}", (at, 0.02), xycoords=("data", "axes fraction"),
                    xytext=(4, 0), textcoords="offset points", fontsize=FS - 1,
                    color="#333333")
    ax.set_xlim(0, n)
    ax.set_ylim(0, total * 1.04 if total else 1)
    ax.set_xlabel("candidates annotated, in each model's order", fontsize=FS)
    ax.set_ylabel("gold positives found", fontsize=FS)
    ax.set_title("Cumulative gain per model (gold labels)", fontsize=FS + 1, loc="left")
    ax.legend(fontsize=FS - 1, frameon=False, loc="lower right")


PENDING = "Computing value with a reject option and calibration…"


def draw_value(fig, d: ModelsViewData) -> None:
    fig.clear()
    if d.value_pending:
        message(fig, PENDING)
        return
    if not d.value_tuned:
        message(fig, "No model with probability scores and enough labels: "
                      "value with a reject option does not apply.")
        return
    ax = fig.add_subplot()
    style_axes(ax)
    ks = np.asarray(d.value_ks)
    for i, m in enumerate(d.models):
        if m not in d.value_tuned:
            continue
        colour = model_colour(m, d.models)
        ax.plot(ks, d.value_tuned[m], color=colour, linewidth=1.6,
                marker=MARKERS[i % len(MARKERS)], markersize=3.5, label=f"{chart_text(m)} (tuned τ)")
        ax.plot(ks, d.value_rule[m], color=colour, linewidth=1, linestyle=(0, (4, 2)),
                label=f"{chart_text(m)} (τ = k/(k+1))")
    ax.axhline(0, color="#333333", linewidth=0.8)
    ax.set_xlabel("k: cost of an accepted error relative to a correct prediction",
                  fontsize=FS)
    ax.set_ylabel("value V per item", fontsize=FS)
    ax.set_title("Value with a reject option (held-out)", fontsize=FS + 1, loc="left")
    ax.legend(fontsize=FS - 1.5, frameon=False, ncols=2)


def draw_calibration(fig, d: ModelsViewData) -> None:
    fig.clear()
    if d.value_pending:
        message(fig, PENDING)
        return
    names = [m for m in d.models if m in d.reliability]
    if not names:
        message(fig, "No model with probability scores: nothing to calibrate.")
        return
    axes = fig.subplots(1, len(names), squeeze=False)[0]
    for ax, m in zip(axes, names):
        style_axes(ax)
        ax.plot([0.5, 1], [0.5, 1], color=GREY, linewidth=0.8, linestyle=(0, (1, 2)))
        rel = d.reliability[m]
        for part, style, colour in (("before", (0, (4, 2)), GREY),
                                    ("after", "-", model_colour(m, d.models))):
            pts = [(c, a) for c, a in zip(rel[part]["confidence"], rel[part]["accuracy"])
                   if c is not None]
            if pts:
                cx, ay = zip(*pts)
                ax.plot(cx, ay, linestyle=style, color=colour, marker="o", markersize=3.5,
                        label=part if part == "before" else f"after ({rel['calibration']})")
        after = rel["after"]
        for c, a, n in zip(after["confidence"], after["accuracy"], after["counts"]):
            if c is not None:
                ax.annotate(f"{n}", (c, a), xytext=(0, -10), textcoords="offset points",
                            ha="center", fontsize=FS - 2.5, color=GREY)
        eb, ea = rel["before"]["ece"], rel["after"]["ece"]
        ece = "ECE –" if eb is None else f"ECE {format_decimal(eb)} → {format_decimal(ea)}"
        ax.set_title(f"{chart_text(m)}: {ece} (numbers: held-out items per bin)", fontsize=FS,
                     loc="left")
        ax.set_xlim(0.48, 1.01)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("confidence", fontsize=FS - 1)
        ax.set_aspect("auto")
        ax.legend(fontsize=FS - 2, frameon=False, loc="lower right")
    axes[0].set_ylabel("accuracy (held-out)", fontsize=FS - 1)


def draw_bandit(fig, d: ModelsViewData) -> None:
    fig.clear()
    b = d.bandit
    if not b:
        message(fig, "Follow mode: no bandit is choosing among the rankings.")
        return
    ax = fig.add_subplot()
    style_axes(ax)
    ax.grid(False, axis="y")
    names = list(b["p_best"])
    p = np.array([b["p_best"][m] for m in names])
    y = np.arange(len(names))
    colours = [model_colour(m, d.models) for m in names]
    ax.barh(y, p, color=colours, height=0.5)
    for yi, m, pi in zip(y, names, p):
        ax.annotate(f"{format_share(pi, 0)} · {b['pulls'].get(m, 0)} labels served",
                    (pi, yi), xytext=(4, 0), textcoords="offset points", va="center",
                    fontsize=FS - 1)
    ax.axvline(1 - b["delta"], color="#333333", linestyle=(0, (1, 2)), linewidth=1)
    ax.set_yticks(y, [chart_text(m) for m in names], fontsize=FS)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.25)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0], ["0", "25%", "50%", "75%", "100%"])
    decided = b.get("decided")
    title = (f"decided: {chart_text(decided)}" if decided else
             f"not decided yet (decides at P(best) ≥ {format_share(1 - b['delta'], 0)})")
    ax.set_title(f"P(best ranking) — {b['mode']} mode — {title}", fontsize=FS + 1,
                 loc="left")


def draw_curves(fig, d: ModelsViewData) -> None:
    """ROC (left) and precision-recall (right) curves, one line per model."""
    fig.clear()
    if not d.curves:
        message(fig, "No curves: the labeled items need both positives and negatives.")
        return
    roc, pr = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    for ax in (roc, pr):
        style_axes(ax)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
    roc.plot([0, 1], [0, 1], color=GREY, linewidth=0.8, linestyle="--", label="chance")
    base = d.positives / d.n if d.n else 0.0
    pr.axhline(base, color=GREY, linewidth=0.8, linestyle="--",
               label=f"chance ({format_share(base, 0)} positive)")
    for m in d.models:
        curves = d.curves.get(m, {})
        auc = d.metrics.get(m, {}).get("roc_auc")
        ap = d.metrics.get(m, {}).get("average_precision")
        if "roc" in curves:
            x, y = curves["roc"]
            label = chart_text(m) + ("" if auc is None else f" (AUC {format_decimal(auc)})")
            roc.plot(*thin(x, y), color=model_colour(m, d.models), linewidth=1.4, label=label)
        if "pr" in curves:
            x, y = curves["pr"]
            label = chart_text(m) + ("" if ap is None else f" (AP {format_decimal(ap)})")
            pr.step(*thin(x, y), where="post", color=model_colour(m, d.models), linewidth=1.4, label=label)
    roc.set_xlabel("false positive rate", fontsize=FS)
    roc.set_ylabel("true positive rate (recall)", fontsize=FS)
    roc.set_title("ROC", fontsize=FS + 1, loc="left")
    pr.set_xlabel("recall", fontsize=FS)
    pr.set_ylabel("precision", fontsize=FS)
    pr.set_title("Precision–recall", fontsize=FS + 1, loc="left")
    roc.legend(fontsize=FS - 1.5, frameon=False, loc="lower right")
    pr.legend(fontsize=FS - 1.5, frameon=False, loc="upper right")
