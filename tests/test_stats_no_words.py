"""One text per number: the statistics return numbers and reason codes, the views word them.

A string of three or more words built in ``triage/stats`` (outside docstrings and raised
errors) is a sentence meant for a user. The stopping rules have none: every rule result
carries a reason code and numbers, and ``triage.views.rule_words`` words it for every
surface, as the agreement, gain and model modules' codes are worded by their views. No
module there words anything, and ``STILL_WORDED`` stays empty.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np

from triage.stats.stopping import AdviceInputs, advice_to_json, advise
from triage.views.rule_words import rule_sentence, worded

ROOT = Path(__file__).resolve().parents[1]
WORDS = re.compile(r"[A-Za-z]{2,}(?:\s+[A-Za-z%'’]+){2,}")
# Modules of triage/stats that may still word something, with their counts: none is left.
STILL_WORDED: dict[str, int] = {}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def sentences(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string of three or more words: no docstrings, no raised errors."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Raise, ast.Assert)):
            skip.update(id(n) for n in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            skip.update(id(n) for n in ast.walk(node))
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if WORDS.search(text):
            found.append((node.lineno, text))
    return found


def test_the_scan_finds_a_sentence_and_ignores_docstrings_and_errors():
    source = ('def f(x):\n    """Say something in words."""\n    if x:\n'
              '        raise ValueError("x is not allowed here")\n'
              '    return f"Only {x} left: buy more of them"\n')
    assert [t for _, t in sentences(source)] == ["Only  left: buy more of them"]


def test_no_module_in_stats_words_more_than_it_did():
    counts = {}
    for path in sorted((ROOT / "triage" / "stats").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        found = sentences(path.read_text(encoding="utf-8"))
        if len(found) > STILL_WORDED.get(rel, 0):
            counts[rel] = found
    assert counts == {}, "user-facing sentences in triage/stats: word them in triage/views"


def _situations() -> list[AdviceInputs]:
    ranks = np.arange(1, 61)
    positive = np.arange(60) % 3 == 0
    return [
        AdviceInputs(pool=100, ranks=[], positive=[]),
        AdviceInputs(pool=1000, ranks=ranks, positive=positive, budget=10.0, spend=9.5,
                     value_per_positive=1.0, alpha=0.5, overlap_items=40),
        AdviceInputs(pool=1000, ranks=ranks, positive=positive, budget=5.0, spend=6.0,
                     alpha=0.9, overlap_items=10),
        AdviceInputs(pool=60, ranks=ranks, positive=positive, value_per_positive=0.01),
    ]


def test_every_rule_result_is_a_code_with_numbers_worded_by_the_views():
    for inputs in _situations():
        data = advice_to_json(advise(inputs))
        assert "headline" not in data
        for reason in data["reasons"]:
            assert "detail" not in reason
            assert re.fullmatch(r"[a-z_]+", reason["code"]), reason
        words = worded(data)
        assert words["headline"].startswith(data["decision"] + " — ")
        for reason in words["reasons"]:
            assert reason["detail"] == rule_sentence(reason, data)
            assert len(reason["detail"].split()) >= 3 and "None" not in reason["detail"]


def test_the_certification_words_need_no_worded_copy_first():
    from triage.views.advice import audit_rate_text, certification_text

    texts = []
    for inputs in _situations():
        data = advice_to_json(advise(inputs))     # as AdviceState.to_json() hands it on
        assert certification_text(data) == certification_text(worded(data))
        assert audit_rate_text(data) == audit_rate_text(worded(data))
        texts.append(certification_text(data))
    assert any(t.startswith("Certifying 80% recall") for t in texts), texts
