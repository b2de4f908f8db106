"""``triage gain``: gain, cumulative gain and cost by decile per model (seed 000), offline.

Reads a plain CSV/TSV/JSONL file with one score column per model and a gold label column,
or a Triage project file (handed on to :func:`triage.project.gain.gain_report`).
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from triage.cli.commands._common import (
    add_json_flag,
    add_scored_file_arguments,
    emit,
    require,
)
from triage.cli.commands._dialect import file_dialect
from triage.views.formatting import format_money
from triage.views.gain_words import gain_words


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``triage gain`` to the command line."""
    parser = subparsers.add_parser(
        "gain",
        help="gain and cumulative gain by decile, and what a budget buys, per model",
        description="Offline gain analysis (gold labels known) of one or more models' "
        "rankings: gain, cumulative gain and lift per decile, the cost to reach all "
        "positives, and the three budget situations of Klubička et al. (2018).",
    )
    add_scored_file_arguments(parser, file_help="CSV/TSV/JSONL file, or a .triage project",
                              gold_required=False)
    parser.add_argument("--cost", type=float, metavar="PRICE",
                        help="price of annotating one candidate, e.g. 0.04")
    parser.add_argument("--budget", type=float, metavar="AMOUNT", help="money available")
    parser.add_argument("--after-deciles", type=int, metavar="K",
                        help="situation 3: deciles already annotated (default: what the "
                        "budget buys in whole deciles, else 1)")
    parser.add_argument("--currency", default="USD", help="currency shown in text output")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``triage gain`` with the parsed arguments; returns the exit code."""
    from triage.store.connection import is_sqlite_file
    from triage.store.pg.url import is_server_url

    if is_server_url(args.file) or is_sqlite_file(args.file):
        from triage.project.gain import gain_report

        data = gain_words(gain_report(args.file, args))
    else:
        data = gain_data(args)
    return emit(args, data, render_text)


def _check_args(args: argparse.Namespace) -> None:
    require(bool(args.score), "give at least one --score NAME=COLUMN")
    require(args.gold is not None, "give the gold label column with --gold COLUMN")
    require(bool(args.positive), "give the positive gold value(s) with --positive VALUE")
    require(args.cost is not None, "give the price of one annotation with --cost PRICE")
    require(math.isfinite(args.cost) and args.cost >= 0, "--cost must be a number >= 0")
    if args.budget is not None:
        require(math.isfinite(args.budget) and args.budget >= 0, "--budget must be >= 0")
    if args.after_deciles is not None:
        require(0 <= args.after_deciles <= 10, "--after-deciles must be between 0 and 10")
    names = [name for name, _ in args.score]
    dupes = sorted({n for n in names if names.count(n) > 1})
    require(not dupes, f"model name(s) given twice: {', '.join(dupes)}")


def gain_data(args: argparse.Namespace) -> dict[str, Any]:
    """Read the file and compute the full report as plain JSON-ready data."""
    from triage.ingest.read import read_table
    from triage.stats.gain.report import build_report

    _check_args(args)
    columns = list(dict.fromkeys(col for _, col in args.score))
    table = read_table(args.file, numeric=columns, required=[*columns, args.gold],
                       dialect=file_dialect(args))
    require(len(table) > 0, f"{args.file}: no rows to rank")
    wanted = {v.strip() for v in args.positive}
    gold = [str(g).strip() for g in table.column(args.gold)]
    positive = np.fromiter((g in wanted for g in gold), dtype=bool, count=len(gold))
    scores = {name: (col, table.numbers(col)) for name, col in args.score}
    data = build_report(scores, positive, cost_per_item=args.cost, budget=args.budget,
                        after_deciles=args.after_deciles, currency=args.currency)
    seen = sorted(set(gold)) if data["undefined_reason"] else None
    return gain_words({"file": args.file, "gold_column": args.gold,
                       "positive_values": sorted(wanted), **data}, seen)




# -- text ------------------------------------------------------------------------------

def _num(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "-"
    if math.isinf(x):
        return "inf"
    return f"{x:.{digits}f}".rstrip("0").rstrip(".") if x != int(x) else f"{int(x)}"


def _models(choice: dict[str, Any]) -> str:
    names = choice["models"]
    return names[0] if len(names) == 1 else "a tie between " + " and ".join(names)


def _model_text(name: str, m: dict[str, Any], data: dict[str, Any]) -> list[str]:
    cur = data["currency"]
    lines = [f"Model {name} (column {m['score_column']}): {data['pool']} candidates, "
             f"{data['positives']} positives, {m['tied_items']} tied items"
             + (f" in {m['tie_groups']} group(s) (figures are expectations)" if m["tied_items"]
                else "")]
    head = f"  {'decile':>6} {'items':>6} {'positives':>9} {'gain':>6} {'cum.gain':>8} " \
           f"{'lift':>6} {'cost':>12} {'per positive':>14}"
    lines.append(head)
    for row in m["deciles"]:
        lines.append(
            f"  {row['decile']:>6} {row['items']:>6} {_num(row['positives'], 2):>9} "
            f"{_num(row['gain']):>6} {_num(row['cumulative_gain']):>8} {_num(row['lift'], 2):>6} "
            f"{format_money(row['cost'], cur):>12} {format_money(row['marginal_cost_per_positive'], cur):>14}")
    if m["deciles_to_all_positives"] is not None:
        lines.append(
            f"  all positives after {_num(m['deciles_to_all_positives'], 2)} decile(s): "
            f"{format_money(m['cost_to_all_positives_whole_deciles'], cur)} (whole deciles, "
            f"{format_money(m['cost_per_decile_whole'], cur)} each); last positive at rank "
            f"{_num(m['rank_of_last_positive'], 2)}: {format_money(m['cost_to_last_positive'], cur)} "
            "(per candidate)")
    if data["budget"] is not None:
        lines.append(
            f"  within the budget: {m['candidates_within_budget']} candidates find "
            f"{_num(m['positives_within_budget'], 2)} positives; by whole deciles "
            f"{m['deciles_within_budget']} decile(s) find "
            f"{_num(m['positives_within_budget_whole_deciles'], 2)}")
    return lines


def render_text(data: dict[str, Any]) -> str:
    """A table per model, then the three budget situations in words."""
    cur = data["currency"]
    lines: list[str] = []
    for name, m in data["models"].items():
        lines += _model_text(name, m, data) + [""]
    if data["undefined_reason"]:
        lines.append(f"Gain is undefined: {data['undefined_reason']}.")
        return "\n".join(lines)
    best, best_dec = data["best_model_within_budget"], data["best_model_within_budget_whole_deciles"]
    if best is None:
        lines.append("Situation 1 (fixed budget): no --budget given.")
    else:
        lines.append(
            f"Situation 1 (fixed budget {format_money(data['budget'], cur)}): {_models(best)} finds the "
            f"most positives, {_num(best['positives'], 2)} of {data['positives']}, in "
            f"{_num(best['candidates'], 2)} candidates (whole candidates); by whole deciles "
            f"({best_dec['deciles']} decile(s), {format_money(best_dec['cost'], cur)}) "
            f"{_models(best_dec)} finds {_num(best_dec['positives'], 2)}.")
    early, early_dec = data["earliest_to_all_positives"], data["earliest_to_all_positives_whole_deciles"]
    lines.append(
        f"Situation 2 (flexible budget): {_models(early_dec)} reaches all {data['positives']} "
        f"positives earliest by whole deciles: {_num(early_dec['deciles'], 2)} decile(s), "
        f"{format_money(early_dec['cost'], cur)}; per candidate {_models(early)} reaches the last "
        f"positive at rank {_num(early['candidates'], 2)}, {format_money(early['cost'], cur)}.")
    nxt = list(data["next_decile"].values())
    lines.append(f"Situation 3 (one more decile?): after {nxt[0]['after_deciles']} decile(s):")
    for n in nxt:
        if n["decile"] is None:
            lines.append(f"  {n['model']}: every decile is already annotated.")
            continue
        per = n["cost_per_new_positive"]
        worth = (f"{format_money(per, cur)} per new positive" if per is not None
                 else "nothing new: not worth it")
        lines.append(
            f"  {n['model']}: decile {n['decile']} adds {_num(n['new_positives'], 2)} positives "
            f"(gain {_num(n['gain'])}) for {format_money(n['cost'], cur)}: {worth}.")
    return "\n".join(lines)
