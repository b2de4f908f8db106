"""``triage simulate --strategy cal|bandit``: labeling orders of the learned ``cal`` ranking.

CAL refits on the gold labels exactly as the desk's helper does (every 50 labels, in
growing batches), warm-started from the imported scores; ``bandit`` with ``--text`` has
``cal`` among its arms. One order per repeat (seed, seed+1, ...).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from triage.cli.commands._common import require


def learned_orders(table: Any, args: argparse.Namespace, scores: dict[str, np.ndarray],
                   gold: np.ndarray, strategy: str) -> np.ndarray:
    """One full labeling order per repeat under ``cal`` or ``bandit`` with a cal arm."""
    from triage.stats.models.cal import CalConfig, build_features
    from triage.stats.models.cal_sim import bandit_cal_order, cal_order

    texts = None
    if args.text is not None:
        require(args.text in table.columns, f"{args.file}: no column {args.text!r} for --text; "
                f"columns: {', '.join(table.columns)}")
        texts = ["" if t is None else str(t) for t in table.column(args.text)]
    features = build_features(texts, list(scores.values()))
    orders = []
    for i in range(args.repeats):
        config = CalConfig(seed=args.seed + i)
        if strategy == "cal":
            orders.append(cal_order(features, list(scores.values()), gold, config))
        else:
            orders.append(bandit_cal_order(features, scores, gold, config)[0])
    return np.stack(orders)
