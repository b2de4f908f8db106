"""``triage compare``: classic metrics per model and paired permutation tests (seed 002)."""

from __future__ import annotations

import argparse
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


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``triage compare`` to the command line."""
    parser = subparsers.add_parser(
        "compare",
        help="precision, recall, F1, MCC, SBA, ROC-AUC, AP, NDCG per model, with significance",
        description="Classic metrics of each model against gold labels, and a paired "
        "approximate-randomisation test for every pair of models and metric.",
    )
    add_model_file_arguments(parser)
    parser.add_argument("--threshold", type=float, default=0.5,
                        help="score at or above which a model predicts positive (default 0.5)")
    parser.add_argument("--k-ndcg", type=int, default=10, metavar="K", help="cut-off of NDCG@K (default 10)")
    parser.add_argument("--trials", type=int, default=1000, metavar="N",
                        help="random swap patterns per test (default 1000; exact when 2^n <= N)")
    parser.add_argument("--curves", action="store_true",
                        help="with --json: add each model's ROC and precision-recall curve "
                             "(key curves, at most 400 points each)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def compare_data(args: argparse.Namespace) -> dict[str, Any]:
    """Read the file and compute metrics and paired tests as JSON-ready data."""
    from triage.ingest.scored import load_scored_file
    from triage.stats.models.report import compare_report
    from triage.views.model_words import pair_words, undefined_words

    require(args.trials >= 1, "--trials must be at least 1")
    require(args.k_ndcg >= 1, "--k-ndcg must be at least 1")
    data = load_scored_file(args.file, args.score, args.gold, args.positive,
                            dialect=file_dialect(args),
                            labels_followed=args.labels_followed)
    try:
        report = compare_report(data.scores, data.gold, threshold=args.threshold, k_ndcg=args.k_ndcg,
                                trials=args.trials, seed=args.seed, warnings=data.warnings)
    except ValueError as error:
        raise TriageError(str(error)) from error
    models = {}
    for name, r in report.models.items():
        metrics = {key: m.value for key, m in r.metrics.items()}
        codes = {key: m.reason for key, m in r.metrics.items() if m.reason}
        models[name] = {"score_column": data.columns[name], **metrics,
                        "undefined": undefined_words(codes), "undefined_codes": codes,
                        "confusion": jsonable(r.confusion), "tied_scores": r.tied_scores}
    out = {
        "file": args.file,
        "n": int(data.gold.size),
        "positives": int(data.gold.sum()),
        "threshold": args.threshold,
        "k_ndcg": args.k_ndcg,
        "trials": args.trials,
        "seed": args.seed,
        "metrics": list(next(iter(report.models.values())).metrics),
        "models": models,
        "pairs": pair_words(jsonable(report.pairs)),
        "warnings": report.warnings,
    }
    if getattr(args, "curves", False):
        from triage.stats.models.metrics import model_curves

        out["curves"] = {
            name: {kind: {"x": x.tolist(), "y": y.tolist()}
                   for kind, (x, y) in model_curves(scores, data.gold).items()}
            for name, scores in data.scores.items()}
    return out


def run(args: argparse.Namespace) -> int:
    """Run ``triage compare`` with the parsed arguments; returns the exit code."""
    return emit(args, compare_data(args), render_text)


def _f(x: float | None) -> str:
    return "undef." if x is None else f"{x:.4f}"


def render_text(data: dict[str, Any]) -> str:
    """The metrics table and each pair's tests as text."""
    out = [f"{data['file']}: {data['n']} labeled items, {data['positives']} positive; "
           f"threshold {data['threshold']}"]
    out += [f"WARNING: {w}" for w in data["warnings"]]
    names = list(data["models"])
    width = max(8, *(len(n) for n in names))
    out += ["", f"{'metric':<18}" + "".join(f"{n:>{width + 2}}" for n in names)]
    for metric in data["metrics"]:
        out.append(f"{metric:<18}" + "".join(f"{_f(data['models'][n][metric]):>{width + 2}}" for n in names))
    out.append(f"{'tied scores':<18}" + "".join(f"{data['models'][n]['tied_scores']:>{width + 2}}" for n in names))
    for n in names:
        for metric, reason in data["models"][n]["undefined"].items():
            out.append(f"  {n} {metric}: undefined, {reason}")
    for pair, row in data["pairs"].items():
        a, b = pair.split("|", 1)
        out += ["", f"{a} vs {b}: paired permutation test ({data['trials']} trials, seed {data['seed']})",
                f"  {'metric':<18} {'A - B':>9} {'p':>8}"]
        for metric, r in row.items():
            p = "-" if r["p_value"] is None else f"{r['p_value']:.4f}" + (" (exact)" if r["exact"] else "")
            diff = "-" if r["difference"] is None else f"{r['difference']:+.4f}"
            out.append(f"  {metric:<18} {diff:>9} {p:>8}")
    return "\n".join(out)
