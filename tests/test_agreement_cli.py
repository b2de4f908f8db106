"""``triage agree`` end to end: real data, wide and long formats, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

ROOT = Path(__file__).resolve().parents[1]
BLUEBIRDS = ROOT / "tests" / "data" / "bluebirds_ratings.csv"


def agree(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "triage.cli", "agree", *map(str, args)],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )


def agree_json(*args: str) -> dict:
    done = agree(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def agree_here(capsys, *args: str) -> tuple[int, str, str]:
    """The same command in this process (cheaper than a subprocess under load)."""
    from triage.cli.program import main

    capsys.readouterr()
    code = main(["agree", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bluebirds_against_reference_libraries(capsys):
    # 39 workers x 108 images, all rated (Clear BSD data, see tests/data/).
    rows = [line.split(",") for line in BLUEBIRDS.read_text().splitlines()[1:]]
    workers = sorted({r[1] for r in rows})
    images = sorted({r[0] for r in rows})
    matrix = np.full((len(workers), len(images)), np.nan)
    for img, w, lab in rows:
        matrix[workers.index(w), images.index(img)] = lab == "true"
    counts = np.stack([(matrix == 1).sum(0), (matrix == 0).sum(0)], axis=1)
    data = agree_json(BLUEBIRDS, "--bootstrap", "200", "--seed", "4")
    assert data["items"] == 108 and data["annotators"] == 39 and data["ratings"] == 4212
    assert data["pairable_items"] == 108 and data["level"] == "nominal"
    ref_alpha = krippendorff.alpha(matrix, level_of_measurement="nominal")
    assert data["krippendorff_alpha"] == pytest.approx(ref_alpha, abs=1e-9)
    assert data["krippendorff_alpha"] == pytest.approx(0.126, abs=5e-4)  # data README
    assert data["fleiss_kappa"] == pytest.approx(fleiss_kappa(counts), abs=1e-9)
    assert data["reading"] == "unreliable" and data["undefined_reason"] is None
    lo, hi = data["alpha_ci95"]
    assert lo < data["krippendorff_alpha"] < hi
    assert len(data["cohen_kappa_pairs"]) == 39 * 38 // 2
    pair = data["cohen_kappa_pairs"]["w39|w97"]
    assert pair["items"] == 108 and -1 <= pair["kappa"] <= 1
    assert data["cohen_kappa_mean"] == pytest.approx(
        np.mean([p["kappa"] for p in data["cohen_kappa_pairs"]. values()]))
    # Same seed, same interval.
    code, out, _ = agree_here(capsys, BLUEBIRDS, "--bootstrap", "200", "--seed", "4", "--json")
    assert code == 0 and json.loads(out)["alpha_ci95"] == [lo, hi]


def test_wide_ordinal_with_order(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("item,ann1,ann2,ann3\n"
                    "t1,low,,low\nt2,mid,high,mid\nt3,high,high,high\nt4,low,mid,\nt5,,,mid\n")
    data = agree_json(path, "--wide", "--level", "ordinal", "--order", "low,mid,high",
                      "--bootstrap", "0")
    order = {"low": 0, "mid": 1, "high": 2}
    matrix = np.array([[0, 1, 2, 0, np.nan], [np.nan, 2, 2, 1, np.nan],
                       [0, 1, 2, np.nan, 1]], dtype=float)
    ref = krippendorff.alpha(matrix, level_of_measurement="ordinal", value_domain=[0, 1, 2])
    assert data["krippendorff_alpha"] == pytest.approx(ref, abs=1e-12)
    assert data["items"] == 5 and data["annotators"] == 3 and data["pairable_items"] == 4
    assert data["categories"] == list(order) and data["cohen_kappa_weights"] == "linear"
    assert data["alpha_ci95"] is None and data["reasons"]["alpha_ci95"]


def test_text_output_and_breakdown(tmp_path, capsys):
    path = tmp_path / "long.tsv"
    path.write_text("item\tannotator\tlabel\tsession\n"
                    "1\ta\tyes\ts1\n1\tb\tyes\ts2\n2\ta\tno\ts1\n2\tb\tyes\ts2\n"
                    "3\ta\tno\ts1\n3\tb\tno\ts2\n")
    done = agree(path, "--by", "pair", "--by", "session", "--session", "session")
    assert done.returncode == 0, done.stderr
    assert "Krippendorff's alpha" in done.stdout and "a | b" in done.stdout
    assert "session s1" in done.stdout and "pair a|b" in done.stdout
    code, out, _ = agree_here(capsys, path, "--by", "session", "--session", "session",
                              "--bootstrap", "0", "--json")
    data = json.loads(out)
    assert [b["group"] for b in data["breakdowns"]] == ["s1", "s2"]
    # α = 1 - (n-1) Do/De with n = 6, o = [[2, 1], [1, 2]]: 1 - 5·2/(36 - 18) = 4/9.
    assert data["krippendorff_alpha"] == pytest.approx(4 / 9)


def test_degenerate_file_reports_null_with_reason(tmp_path, capsys):
    path = tmp_path / "same.csv"
    path.write_text("item,annotator,label\n1,a,x\n1,b,x\n2,a,x\n2,b,x\n")
    data = agree_json(path, "--categories", "x,y")
    assert data["krippendorff_alpha"] is None and data["reading"] == "undefined"
    assert "0/0" in data["undefined_reason"]
    assert data["fleiss_kappa"] is None and data["reasons"]["fleiss_kappa"]
    assert data["gwet_ac1"] == 1.0 and data["percent_agreement"] == 1.0
    code, out, _ = agree_here(capsys, path)
    assert code == 0 and "Krippendorff's alpha           undefined" in out


def test_missing_column_is_an_error(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("item,rater,label\n1,a,x\n")
    done = agree(path)
    assert done.returncode == 2
    assert done.stderr.startswith("triage: ") and "bad.csv" in done.stderr
    assert "annotator" in done.stderr and "Traceback" not in done.stderr


def test_undeclared_label_names_the_line(tmp_path, capsys):
    path = tmp_path / "labels.csv"
    path.write_text("item,annotator,label\n1,a,x\n1,b,maybe\n")
    code, _, err = agree_here(capsys, path, "--categories", "x,y")
    assert code == 2
    assert "labels.csv:3: column label: label 'maybe' is not one of" in err


def test_non_numeric_interval_label_is_an_error(tmp_path, capsys):
    path = tmp_path / "num.csv"
    path.write_text("item,annotator,label\n1,a,3\n1,b,lots\n")
    code, _, err = agree_here(capsys, path, "--level", "interval")
    assert code == 2 and "num.csv:3" in err and "not a number" in err


def test_project_file_is_handed_to_project_report(tmp_path, capsys):
    path = tmp_path / "p.triage"
    path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    # Not a usable project: a clear one-line error, not the CSV reader's complaint.
    code, _, err = agree_here(capsys, path)
    assert code == 2 and err.startswith("triage: ") and "unknown file type" not in err


def test_retest_per_annotator(tmp_path, capsys):
    path = tmp_path / "retest.csv"
    rows = ["item,annotator,label,session"]
    first = ["x", "y", "x", "y"]
    again = ["x", "y", "x", "x"]
    rows += [f"{i},a,{lab},s1" for i, lab in enumerate(first)]
    rows += [f"{i},b,{lab},s2" for i, lab in enumerate(first)]
    rows += [f"{i},a,{lab},s3" for i, lab in enumerate(again)]
    path.write_text("\n".join(rows) + "\n")
    code, out, _ = agree_here(capsys, path, "--session", "session", "--retest", "--bootstrap",
                              "0", "--json")
    data = json.loads(out)
    # a: table [[2, 0], [1, 1]] -> p_o = 3/4, p_e = 1/2, κ = 0.5; b has one session only.
    assert data["retest"]["a"]["items"] == 4 and data["retest"]["a"]["kappa"] == 0.5
    assert data["retest"]["b"]["items"] == 0 and data["retest"]["b"]["kappa"] is None
    assert "two sessions" in data["retest"]["b"]["reason"]
    # The agreement between annotators uses a's latest ratings (s3).
    assert data["replaced_ratings"] == 4
    assert data["percent_agreement"] == 0.75


def test_few_pairable_items_read_too_few_to_judge_not_a_band(tmp_path, capsys):
    # Ten items rated alike by two people: α = 1, but the text says what the advice and
    # the report say (too few to judge), while JSON keeps Krippendorff's band.
    rows = ["item,annotator,label"] + [
        f"i{i},{who},{'a' if i % 2 else 'b'}" for i in range(10) for who in ("ada", "bob")]
    path = tmp_path / "few.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, err = agree_here(capsys, path)
    assert code == 0, err
    alpha_line = next(line for line in out.splitlines() if "Krippendorff's alpha" in line)
    assert alpha_line.rstrip().endswith("too few to judge (n = 10)")
    assert "reliable" not in alpha_line
    code, out, err = agree_here(capsys, path, "--json")
    assert code == 0 and json.loads(out)["reading"] == "reliable"
