"""``triage value``: what a model is worth with a reject option (seed 001), per cost factor k.

Reads a CSV/TSV/JSONL file with each model's probability of the positive class and a gold
label column; reports V = (1-ρ)(α - k(1-α)) at the calibrated threshold k/(k+1), the
threshold tuned on a validation split with its held-out value, the cost-sensitive value,
calibration error before/after, and plain advice: which scores to accept without review.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from triage.base.errors import TriageError
from triage.cli.commands._common import (
    add_json_flag,
    add_model_file_arguments,
    emit,
    jsonable,
    require,
)
from triage.cli.commands._dialect import file_dialect

# Same as triage.stats.models.report.DEFAULT_KS; the models package (scipy) loads only when run,
# so listing commands stays fast.
DEFAULT_KS = (0.0, 1.0, 2.0, 4.0, 8.0, 10.0)


def parse_ks(text: str) -> tuple[float, ...]:
    """"0,1,2.5" -> (0.0, 1.0, 2.5); every k must be a finite number >= 0."""
    try:
        ks = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    if not ks or any(not math.isfinite(k) or k < 0 for k in ks):
        raise argparse.ArgumentTypeError(f"every k must be a number >= 0, got {text!r}")
    return tuple(dict.fromkeys(ks))


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``triage value`` to the command line."""
    parser = subparsers.add_parser(
        "value",
        help="model value with a reject option per error cost k, and what to auto-accept",
        description="Value of each model when its confident predictions are used without review "
        "and the rest go to people (Sayin et al.): V = (1-ρ)(α - k(1-α)) for each cost factor k.",
    )
    add_model_file_arguments(parser)
    parser.add_argument("--k", type=parse_ks, default=DEFAULT_KS, metavar="K,K,...",
                        help="cost of an error relative to a correct prediction (default 0,1,2,4,8,10)")
    parser.add_argument("--calibrate", choices=["none", "temperature", "platt"], default="none",
                        help="recalibrate scores on the validation split first (default none)")
    parser.add_argument("--validation-share", type=float, default=0.5, metavar="SHARE",
                        help="share of rows used to tune τ and fit calibration (default 0.5; 0 = none)")
    parser.add_argument("--ktp", type=float, default=1.0, help="value of a true positive (cost-sensitive; default 1)")
    parser.add_argument("--kfp", type=float, default=1.0, help="cost of a false positive (cost-sensitive; default 1)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def value_data(args: argparse.Namespace) -> dict[str, Any]:
    """Read the file and compute the report as JSON-ready data."""
    from triage.ingest.scored import load_scored_file
    from triage.stats.models.report import value_report

    require(0.0 <= args.validation_share < 1.0, "--validation-share must be in [0, 1)")
    require(args.calibrate == "none" or args.validation_share > 0,
            "--calibrate needs a validation split: give --validation-share > 0")
    require(args.ktp >= 0 and args.kfp >= 0 and args.ktp + args.kfp > 0,
            "--ktp and --kfp must be >= 0 and not both 0")
    data = load_scored_file(args.file, args.score, args.gold, args.positive,
                            dialect=file_dialect(args), probabilities=True,
                            labels_followed=args.labels_followed)
    try:
        report = value_report(data.scores, data.gold, ks=args.k, calibrate=args.calibrate,
                              validation_share=args.validation_share, seed=args.seed,
                              ktp=args.ktp, kfp=args.kfp, warnings=data.warnings)
    except ValueError as error:
        raise TriageError(str(error)) from error
    models = {}
    for name, m in report.models.items():
        entry = jsonable(m)
        entry.pop("name")
        models[name] = {"score_column": data.columns[name], **entry}
    return {
        "file": args.file,
        "n": int(data.gold.size),
        "positives": int(data.gold.sum()),
        "k": list(args.k),
        "calibration": args.calibrate,
        "validation_share": args.validation_share,
        "seed": args.seed,
        "ktp": args.ktp,
        "kfp": args.kfp,
        "models": models,
        "best_model_by_k": report.best_model_by_k,
        "best_model_by_k_tuned": report.best_model_by_k_tuned,
        "warnings": report.warnings,
    }


def run(args: argparse.Namespace) -> int:
    """Run ``triage value`` with the parsed arguments; returns the exit code."""
    return emit(args, value_data(args), render_text)


def _f(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "-"
    if math.isinf(x):
        return "all"
    return f"{x:.{digits}f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _advice_line(k: str, r: dict[str, Any]) -> str:
    a = r["advice"]
    if a["accept_positive_at_or_above"] is None:
        return f"  k={k}: accept nothing automatically; people review everything (value 0)"
    return (f"  k={k}: accept positive when score >= {a['accept_positive_at_or_above']:.4f}, "
            f"negative when score <= {a['accept_negative_at_or_below']:.4f}; people review "
            f"{_pct(a['reviewed_share'])} (saves {_pct(a['saved_share'])} of the review work); "
            f"value {a['value']:.3f} per item")


def render_text(data: dict[str, Any]) -> str:
    """Each model's value table and acceptance advice, and the best model per k, as text."""
    out = [f"{data['file']}: {data['n']} labeled items, {data['positives']} positive; "
           f"validation share {data['validation_share']}, seed {data['seed']}"]
    for warning in data["warnings"]:
        out.append(f"WARNING: {warning}")
    for name, m in data["models"].items():
        cal = m["calibration"]
        extra = ""
        if m["temperature"] is not None:
            extra = f" (T = {m['temperature']:.3f})"
        elif m["platt_a"] is not None:
            extra = f" (a = {m['platt_a']:.3f}, b = {m['platt_b']:.3f})"
        out += ["", f"Model {name} (column {m['score_column']}): {m['n_validation']} validation / "
                f"{m['n_heldout']} held-out rows; calibration {cal}{extra}; ECE (held-out) "
                f"{_f(m['ece_before'])} -> {_f(m['ece_after'])}"]
        out.append(f"  {'k':>5} {'τ=k/(k+1)':>9} {'value':>7} {'reviewed':>8} {'acc.acc':>7} | "
                   f"{'tuned τ':>7} {'held-out V':>10} {'reviewed':>8} | {'cost-sens. V':>12}")
        for k, r in m["by_k"].items():
            out.append(
                f"  {k:>5} {_f(r['threshold']):>9} {_f(r['value']):>7} {_pct(r['rejected_share']):>8} "
                f"{_f(r['accepted_accuracy']):>7} | {_f(r['tuned_threshold']):>7} "
                f"{_f(r['heldout_value']):>10} {_pct(r['heldout_rejected_share']):>8} | "
                f"{_f(r['cost_sensitive']['value']):>12}")
        out.append("  Advice (tuned τ, raw scores):" if m["n_validation"] else "  Advice (τ = k/(k+1), raw scores):")
        out += [_advice_line(k, r) for k, r in m["by_k"].items()]
    out += ["", "Best model by k (value at k/(k+1)): " + ", ".join(
        f"k={k}: {v or '-'}" for k, v in data["best_model_by_k"].items())]
    if any(data["best_model_by_k_tuned"].values()):
        out.append("Best model by k (tuned τ, held-out): " + ", ".join(
            f"k={k}: {v or '-'}" for k, v in data["best_model_by_k_tuned"].items()))
    out.append(f"Cost-sensitive V uses ktp={data['ktp']}, kfp={data['kfp']}, kfn=k; "
               "τp = kfp/(ktp+kfp), τn = kfn/(1+kfn).")
    return "\n".join(out)
