"""The agreement report as ``agree`` prints it: the coefficients, pairs, breakdowns in a table.

:mod:`triage.stats.agreement.report` computes the numbers; the words and the layout are here.
"""

from __future__ import annotations

from triage.stats.agreement.coefficients import PairKappa
from triage.stats.agreement.ratings import Coefficient
from triage.stats.agreement.report import AgreementReport
from triage.views.agreement_words import MIN_OVERLAP_ITEMS, reason_text


def _fmt(c: Coefficient) -> str:
    return f"{c.value:.3f}" if c.value is not None else "undefined"


def _pair_lines(pairs: tuple[PairKappa, ...], shown: int = 10) -> list[str]:
    """Cohen's κ per pair; with many pairs only the lowest and highest few."""
    lines = [f"  {'pair':<30} {'items':>6} {'kappa':>9}"]
    chosen = list(pairs)
    if len(pairs) > shown:
        ranked = sorted(pairs, key=lambda p: (p.kappa.value is None, p.kappa.value or 0.0))
        chosen = ranked[: shown // 2] + ranked[-(shown // 2):]
        lines[0] += f"   ({shown // 2} lowest and highest of {len(pairs)} pairs; --json has all)"
    for p in chosen:
        lines.append(f"  {p.first + ' | ' + p.second:<30} {p.items:>6} {_fmt(p.kappa):>9}")
    return lines


def render_text(report: AgreementReport) -> str:  # long: one table, row by row
    """A short readable table of the report (what ``agree`` prints)."""
    lines = [
        f"{report.items} items, {report.annotators} annotators, {report.ratings} ratings "
        f"({report.pairable_items} items rated by two or more); level {report.level}",
    ]
    if report.replaced:
        lines.append(f"{report.replaced} earlier ratings were replaced by a later one")
    ci = report.bootstrap.alpha.as_list() if report.bootstrap else None
    ci_text = f"  95% CI [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    weights = "" if report.kappa_weights == "none" else f" ({report.kappa_weights} weights)"
    boot = report.kappa_intervals or {}

    def kci(key: str) -> str:
        iv = boot[key].as_list() if key in boot else None
        return f"  95% CI [{iv[0]:.3f}, {iv[1]:.3f}]" if iv else ""

    word = report.reading if report.pairable_items >= MIN_OVERLAP_ITEMS else (
        f"too few to judge (n = {report.pairable_items:,})")
    table = [
        ("Krippendorff's alpha", report.krippendorff_alpha,
         ci_text + (f"  {word}" if report.krippendorff_alpha.defined else "")),
        ("Percent agreement", report.percent_agreement, ""),
        ("Cohen's kappa (mean of pairs)", report.cohen_kappa_mean,
         kci("cohen_kappa_mean") + weights),
        ("Fleiss' kappa", report.fleiss_kappa, kci("fleiss_kappa")),
        ("Gwet's AC1", report.gwet_ac1, kci("gwet_ac1")),
    ]
    lines.append("")
    for name, coef, extra in table:
        lines.append(f"  {name:<30} {_fmt(coef):>9}{extra}")
    first = report.cohen_pairs[0] if report.cohen_pairs else None
    first_pair = None if first is None else (first.first, first.second, first.kappa.reason)
    notes = [(n, reason_text(c.reason, first_pair)) for n, c, _ in table if c.reason]
    if report.cohen_pairs:
        lines.append("")
        lines.extend(_pair_lines(report.cohen_pairs))
    if report.breakdowns:
        lines.append("")
        lines.append(f"  {'breakdown':<30} {'items':>6} {'alpha':>9} {'agree':>9}")
        for r in report.breakdowns:
            label = f"{r.by} {r.group}"
            lines.append(
                f"  {label:<30} {r.items:>6} {_fmt(r.alpha):>9} {_fmt(r.percent_agreement):>9}"
            )
    if report.retest:
        lines.append("")
        lines.append(f"  {'test-retest':<30} {'items':>6} {'alpha':>9} {'agree':>9} {'kappa':>9}")
        for t in report.retest:
            lines.append(f"  {t.annotator:<30} {t.items:>6} {_fmt(t.alpha):>9} "
                         f"{_fmt(t.percent_agreement):>9} {_fmt(t.kappa):>9}")
    if notes:
        lines.append("")
        lines.extend(f"{name} is undefined: {reason}" for name, reason in notes)
    return "\n".join(lines)
