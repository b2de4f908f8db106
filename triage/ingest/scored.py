"""Reading score columns and gold labels from a plain file for ``value`` and ``compare``."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from triage.base.errors import Problem, TriageError
from triage.ingest.read import Dialect, read_table
from triage.stats.models.report import PROBABILITY_SLACK


@dataclass(frozen=True)
class ScoredFile:
    """Scores per model (file order of --score) and the boolean gold labels."""

    scores: dict[str, np.ndarray]
    columns: dict[str, str]  # model name -> column
    gold: np.ndarray
    warnings: list[str]


def _matches(value: str, wanted: set[str], wanted_numbers: set[float]) -> bool:
    value = value.strip()
    if value in wanted:
        return True
    try:
        return float(value) in wanted_numbers  # "1" and "1.0" name the same label
    except ValueError:
        return False




def load_scored_file(
    path: str, scores: list[tuple[str, str]], gold: str, positives: list[str], *,
    probabilities: bool = False, labels_followed: str | None = None,
    dialect: Dialect | None = None,
) -> ScoredFile:
    """Read ``path`` with :func:`triage.ingest.read.read_table` and validate what we need."""
    if not scores:
        raise TriageError("give at least one --score NAME=COLUMN")
    names = [name for name, _ in scores]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise TriageError(f"model name(s) given twice: {', '.join(dupes)}")
    if not positives:
        raise TriageError("give the positive gold value with --positive VALUE")
    if labels_followed is not None and labels_followed not in names:
        raise TriageError(f"--labels-followed {labels_followed!r} is not one of the models: {', '.join(names)}")
    columns = list(dict.fromkeys(col for _, col in scores))
    table = read_table(path, numeric=columns, nonempty=[gold], dialect=dialect)
    if len(table) == 0:
        raise TriageError(f"{path}: no rows")
    lines = np.asarray(table.lines)
    problems: list[Problem] = []
    if probabilities:
        for col in columns:
            s = np.asarray(table.column(col), dtype=np.float64)
            bad = np.flatnonzero((s < -PROBABILITY_SLACK) | (s > 1 + PROBABILITY_SLACK))
            problems += [
                Problem(path, int(lines[i]), col, f"score {float(s[i])!r} is not a probability in [0, 1] "
                        "(value needs the model's probability of the positive class)")
                for i in bad[:50]
            ]
    if problems:
        # Not InputError: its heading speaks of importing, and nothing is imported here.
        head = f"{len(problems)} score{'s are' if len(problems) != 1 else ' is'} not a probability"
        raise TriageError(head + ":\n" + "\n".join(str(p) for p in problems[:20]))
    wanted = {v.strip() for v in positives}
    numbers = set()
    for v in wanted:
        with contextlib.suppress(ValueError):
            numbers.add(float(v))
    labels = table.column(gold)
    is_pos = np.fromiter((_matches(str(v), wanted, numbers) for v in labels), dtype=bool, count=len(labels))
    warnings = []
    if not is_pos.any() or is_pos.all():
        seen = sorted({str(v).strip() for v in labels})
        shown = ", ".join(repr(v) for v in seen[:10]) + (" ..." if len(seen) > 10 else "")
        which = "no" if not is_pos.any() else "every"
        warnings.append(f"{which} row counts as positive (--positive {sorted(wanted)}; values in {gold!r}: {shown}); "
                        "most figures are undefined")
    if labels_followed is not None:
        warnings.append(followed_warning(labels_followed))
    data = {name: np.clip(np.asarray(table.column(col), dtype=np.float64), 0.0, 1.0) if probabilities
            else np.asarray(table.column(col), dtype=np.float64) for name, col in scores}
    return ScoredFile(data, dict(scores), is_pos, warnings)


def followed_warning(model: str) -> str:
    """The biased-sample warning for gold labels gathered by following one model's ranking."""
    return (
        f"gold labels came from annotation that followed {model}'s ranking: the labeled items "
        f"are the ones {model} ranked high, not a random sample, so every figure here favours "
        f"{model} and says little about the items nobody labeled. Compare models on a random "
        "audit sample instead."
    )
