"""``triage simulate``: backtest the stopping rules on a labeled file.

An annotator labels down a model's ranking (or a bandit's order) with the gold labels plus
a random audit sample; after every batch each stopping rule is asked whether to stop. The
report says, per rule, where it stopped on average and what that bought.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from triage.base.errors import TriageError
from triage.cli.commands._common import (
    add_json_flag,
    add_scored_file_arguments,
    emit,
    jsonable,
    require,
)
from triage.cli.commands._dialect import file_dialect

RULE_ORDER = ("budget", "marginal_value", "recall", "recall_hypergeometric", "knee", "combined",
              "quant", "quant_ci")
COVERAGE_REPEATS = 20  # repeats the recall-interval coverage is measured on
COVERAGE_LABELS = (50, 150, 300, 1000)  # checkpoints always backtested (the early regime)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``triage simulate`` to the command line."""
    parser = subparsers.add_parser(
        "simulate",
        help="backtest the stopping rules on labeled data",
        description="Replay annotation down a ranking with the gold labels and a random audit "
        "sample; report where each stopping rule (budget, marginal value, recall with QBCB and "
        "hypergeometric bounds, knee) would have stopped, with recall, spend and net value.",
    )
    add_scored_file_arguments(parser, file_help="CSV/TSV/JSONL with scores and gold labels",
                              gold_required=True)
    parser.add_argument("--cost", type=float, required=True, metavar="C",
                        help="price per annotation (audit items included)")
    parser.add_argument("--value-per-positive", type=float, metavar="V",
                        help="what one positive is worth (needed for marginal value, net value)")
    parser.add_argument("--budget", type=float, metavar="B", help="money available")
    parser.add_argument("--target-recall", type=float, default=0.8, help="recall target (0.8)")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence (0.95)")
    parser.add_argument("--audit-rate", type=float, default=0.02, metavar="R",
                        help="one random audit item per 1/R ranked items (0.02, the "
                             "project default)")
    parser.add_argument("--batch", type=int, metavar="N",
                        help="items between two checks (default: 1%% of the pool)")
    parser.add_argument("--seed", type=int, default=0, help="first seed; repeats use seed+1, ... (0)")
    parser.add_argument("--repeats", type=int, default=100, metavar="K", help="repeats (100)")
    parser.add_argument("--strategy", metavar="follow:M|bandit|pets|cal",
                        help="labeling order (default: follow the first --score model); cal "
                        "learns from the labels (needs scikit-learn: pip install "
                        "'triage[learn]'); with --text, bandit has cal among its arms")
    parser.add_argument("--text", metavar="COLUMN",
                        help="the text column the cal ranking learns from (without it, cal "
                        "learns from the --score columns only)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def _validate(args: argparse.Namespace) -> None:
    require(bool(args.score), "give at least one model with --score M=COL")
    require(bool(args.positive), "give the positive gold value(s) with --positive VALUE")
    require(args.cost > 0, "--cost must be positive")
    require(args.repeats >= 1, "--repeats must be at least 1")
    require(0 < args.target_recall <= 1, "--target-recall must be in (0, 1]")
    require(0.5 <= args.confidence < 1, "--confidence must be in [0.5, 1)")
    require(0 <= args.audit_rate < 1, "--audit-rate must be in [0, 1)")
    require(args.batch is None or args.batch >= 1, "--batch must be at least 1")
    require(args.budget is None or args.budget > 0, "--budget must be positive")
    names = [name for name, _ in args.score]
    require(len(set(names)) == len(names), "each --score model needs its own name")


def follow_order(score: np.ndarray, seed: int) -> np.ndarray:
    """Descending score; ties in a random order drawn from ``seed`` (never file order)."""
    tie = np.random.default_rng([seed, 3]).random(score.size)
    return np.lexsort((tie, -score))


def labeling_orders(scores: dict[str, np.ndarray], gold: np.ndarray, strategy: str,
                    repeats: int, seed: int, budget_items: int | None) -> np.ndarray:
    """One full labeling order per repeat (seed, seed+1, ...)."""
    kind, _, name = strategy.partition(":")
    if kind == "follow":
        require(name in scores, f"unknown model {name!r} in --strategy {strategy!r}; "
                f"models: {', '.join(scores)}")
        return np.stack([follow_order(scores[name], seed + i) for i in range(repeats)])
    require(strategy in ("bandit", "pets"),
            f"unknown --strategy {strategy!r}: use follow:MODEL, bandit, pets or cal")
    try:
        from triage.stats.models.bandit import labeling_order
    except ImportError as error:
        raise TriageError(f"--strategy {strategy} needs triage.stats.models.bandit.labeling_order, "
                          f"which is not available yet ({error})") from error
    first = next(iter(scores.values()))
    orders = []
    for i in range(repeats):
        order = np.asarray(labeling_order(scores, gold, strategy, budget=budget_items,
                                          seed=seed + i), dtype=np.int64)
        # A budget-limited order stops early; the rest follows the first model so the pool
        # is complete (the budget cap keeps the backtest from reaching it).
        seen = np.zeros(gold.size, bool)
        seen[order] = True
        rest = follow_order(first, seed + i)
        orders.append(np.concatenate([order, rest[~seen[rest]]]))
    return np.stack(orders)


def run(args: argparse.Namespace) -> int:
    """Run ``triage simulate`` with the parsed arguments; returns the exit code."""
    from triage.ingest.read import read_table
    from triage.stats.models.cal_sim import labels_to_target
    from triage.stats.stopping.simulate import replay, summarise
    from triage.stats.stopping.validity import ADAPTIVE, FROZEN, rule_validity

    _validate(args)
    columns = [col for _, col in args.score]
    table = read_table(args.file, numeric=columns,
                       required=[args.gold] + ([args.text] if args.text else []),
                       dialect=file_dialect(args))
    require(len(table) > 0, f"{args.file}: no rows")
    scores = {name: table.numbers(col) for name, col in args.score}
    wanted = {v.strip() for v in args.positive}
    gold = np.array([str(g).strip() in wanted for g in table.column(args.gold)], dtype=bool)
    require(bool(gold.any()), f"no row of {args.gold!r} equals a --positive value "
            f"({', '.join(sorted(wanted))}); the backtest needs positives")
    strategy = args.strategy or f"follow:{args.score[0][0]}"
    budget_items = None if args.budget is None else int(args.budget // args.cost)
    learned = strategy == "cal" or (strategy == "bandit" and args.text is not None)
    if learned:
        from triage.cli.commands._simulate_cal import learned_orders

        orders = learned_orders(table, args, scores, gold, strategy)
    else:
        orders = labeling_orders(scores, gold, strategy, args.repeats, args.seed, budget_items)
    followed = np.asarray(scores[strategy.partition(":")[2]] if strategy.startswith("follow:")
                          else next(iter(scores.values())), dtype=float)
    # Quant needs probabilities: use the scores when they are (up to rounding) in [0, 1].
    probs = (np.clip(followed, 0, 1) if ((followed >= -1e-4) & (followed <= 1 + 1e-4)).all()
             else None)
    common = dict(price=args.cost, value_per_positive=args.value_per_positive,
                  budget=args.budget, target_recall=args.target_recall,
                  confidence=args.confidence, audit_rate=args.audit_rate, batch=args.batch,
                  seed=args.seed)
    rp = replay(orders, gold, probabilities=probs, **common)
    bt = summarise(rp, int(gold.sum()), args.target_recall)
    data: dict[str, Any] = {
        "file": str(args.file), "pool": bt.pool, "positives": bt.positives,
        "cost": args.cost, "value_per_positive": args.value_per_positive,
        "budget": args.budget, "target_recall": args.target_recall,
        "confidence": args.confidence, "audit_rate": args.audit_rate,
        "batch": args.batch or max(1, round(bt.pool / 100)), "checkpoints": bt.checkpoints,
        "seed": args.seed, "repeats": args.repeats, "strategy": strategy,
        "models": {name: col for name, col in args.score},
        "rules": {name: {**jsonable(bt.rules[name]),
                         "validity": rule_validity(name, ADAPTIVE if learned else FROZEN)}
                  for name in RULE_ORDER if name in bt.rules},
        "best_net_value": jsonable(bt.best_net_value) if bt.best_net_value else None,
        "certify_on_demand": _certify(rp, orders, gold, args, probs is not None),
        "recall_interval_coverage": _coverage(orders, gold, followed, args),
        "labels_to_target": [labels_to_target(o, gold, args.target_recall) for o in orders],
        "learned": ({"arm": "cal", "features": "text+scores" if args.text else "scores"}
                    if learned else None),
    }
    return emit(args, data, render_text)


def _certify(rp: Any, orders: np.ndarray, gold: np.ndarray, args: argparse.Namespace,
             has_quant: bool) -> dict[str, Any]:
    from triage.stats.stopping.simulate_certify import certify_on_demand

    # The lead asks for a certificate when the advice says the next batch no longer pays
    # (value set), else when QuantCI says the target looks met, else when QBCB/budget stop.
    trigger = ("marginal_value" if args.value_per_positive is not None else
               "quant_ci" if has_quant else "combined")
    out = certify_on_demand(rp, orders, gold, rp.stops[trigger], price=args.cost,
                            value_per_positive=args.value_per_positive, budget=args.budget,
                            target=args.target_recall, confidence=args.confidence, seed=args.seed)
    return {"trigger": trigger, **jsonable(out),
            "cost_to_certify_mean": out.sample_mean * args.cost}


def _coverage(orders: np.ndarray, gold: np.ndarray, followed: np.ndarray,
              args: argparse.Namespace) -> dict[str, Any]:
    from triage.stats.stopping.coverage import recall_coverage

    k = min(COVERAGE_REPEATS, orders.shape[0])
    step = max(300, gold.size // 8)
    marks = sorted({*COVERAGE_LABELS, *range(300, gold.size, step)})
    cov = recall_coverage(gold[orders[:k]], followed[orders[:k]], audit_rate=args.audit_rate,
                          labels=marks, confidence=args.confidence, seed=args.seed)
    return {"repeats": k, "runs": cov.runs, "covered": cov.covered,
            "by_method": {m: {"runs": n, "covered": c} for m, (n, c) in cov.by_method.items()},
            "mean_width": cov.mean_width,
            "by_labels": [{"labels": m, "runs": n, "covered": c, "mean_width": w}
                          for m, (n, c, w) in cov.by_labels.items()]}


def _fmt(x: float | None, spec: str) -> str:
    return "—" if x is None else format(x, spec)


def render_text(data: dict[str, Any]) -> str:
    """A table: one row per rule, means over the repeats."""
    head = (f"{data['file']}: pool {data['pool']}, {data['positives']} positives; "
            f"{data['strategy']}, batch {data['batch']}, audit rate {data['audit_rate']:g}, "
            f"{data['repeats']} repeats from seed {data['seed']}\n"
            f"price {data['cost']:g} per annotation, value per positive "
            f"{_fmt(data['value_per_positive'], 'g')}, budget {_fmt(data['budget'], 'g')}, "
            f"target recall {data['target_recall']:g} at {data['confidence']:g} confidence\n")
    rows = [f"{'rule':<22}{'stopped at':>11}{'recall':>8}{'min':>7}{'spend':>11}"
            f"{'net value':>12}{'target met':>12}"]
    entries = [(n, data["rules"][n]) for n in RULE_ORDER if n in data["rules"]]
    if data["best_net_value"]:
        entries.append(("best in hindsight", data["best_net_value"]))
    for name, r in entries:
        rows.append(f"{name:<22}{r['stopped_at_mean']:>11.0f}{r['recall_mean']:>8.3f}"
                    f"{r['recall_min']:>7.3f}{r['spend_mean']:>11.2f}"
                    f"{_fmt(r['net_value_mean'], '.2f'):>12}"
                    f"{_fmt(r['target_met_share'], '.0%'):>12}")
    c = data.get("certify_on_demand")
    if c:
        rows.append(f"{'certify on demand':<22}{c['stopped_at_mean']:>11.0f}{c['recall_mean']:>8.3f}"
                    f"{c['recall_min']:>7.3f}{c['spend_mean']:>11.2f}"
                    f"{_fmt(c['net_value_mean'], '.2f'):>12}{_fmt(c['target_met_share'], '.0%'):>12}")
    note = ("\nstopped at, recall, spend and net value are means over the repeats; knee is a "
            "heuristic; combined = budget, recall (QBCB) or marginal value, whichever stops first")
    if c:
        note += (f"\ncertify on demand: rank until {c['trigger']} says the target is met, then a "
                 f"random certification sample of about {c['sample_mean']:.0f} labels "
                 f"({c['cost_to_certify_mean']:.2f}); certified in {c['certified_share']:.0%}")
    ltt = data.get("labels_to_target")
    if ltt:
        note += (f"\nlabels to {data['target_recall']:.0%} true recall per repeat: "
                 + ", ".join(str(x) for x in ltt[:20]) + (" …" if len(ltt) > 20 else "")
                 + f" (mean {sum(ltt) / len(ltt):.0f})")
    if data.get("learned"):
        note += ("\ncal learns from the labels and re-ranks: the recall bounds below the "
                 "depth and Quant assume a fixed order and are heuristic here; the audit "
                 "and certification samples stay valid"
                 + ("" if data["learned"]["features"] == "text+scores" else
                    "; no --text column, so cal learned from the scores only"))
    cov = data.get("recall_interval_coverage")
    if cov and cov["runs"]:
        note += (f"\nrecall interval ({data['confidence']:.0%}) held the true recall in "
                 f"{cov['covered']:.1%} of {cov['runs']} checks ({cov['repeats']} repeats), "
                 f"mean width {cov['mean_width']:.2f}")
        for row in cov.get("by_labels", []):
            note += (f"\n  at {row['labels']:>6,} labels: held in {row['covered']:.1%} of "
                     f"{row['runs']}, mean width {row['mean_width']:.2f}")
    return head + "\n".join(rows) + note
