"""The lead's report: the same numbers as advise/gain/agree, inert untrusted text, a real PDF."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from triage.base.errors import TriageError
from triage.cli.program import main as cli
from triage.ingest.importer import ColumnMapping
from triage.project import create_project, open_project
from triage.project.demo import create_demo, simulate
from triage.store.settings import LabelOption, Settings
from triage.views.report import build_report_data, write_report

BOOT = "200"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "demo.triage"
    project = create_demo(path)
    simulate(project, 300)
    simulate(project, 60, annotator="bea")  # overlap items get a second label
    project.close()
    return path


def _json(capsys, *argv: str) -> dict:
    capsys.readouterr()
    assert cli(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_report_json_carries_the_numbers_of_advise_gain_and_agree(demo, capsys):
    data = _json(capsys, "report", str(demo), "--json", "--bootstrap", BOOT)
    advice = _json(capsys, "advise", str(demo), "--json")
    gain = _json(capsys, "gain", str(demo), "--json")
    # The demo ships guidelines (one version): the report is `agree --by guideline_version`.
    agree = _json(capsys, "agree", str(demo), "--json", "--bootstrap", BOOT,
                  "--by", "guideline_version")
    words = ("reading", "rule_rows", "next_batch_text", "plan_text")
    assert {k: v for k, v in data["advice"].items() if k not in words} == advice
    assert data["models"]["gain_report"] == gain
    assert data["agreement"]["report"] == agree
    status = _json(capsys, "status", str(demo), "--json")
    assert data["spend"]["spent"] == pytest.approx(status["spend"])
    assert data["spend"]["timeline"]["spend"][-1] == pytest.approx(status["spend"])
    assert data["yield"]["positives"] == [d["positives"] for d in status["deciles"]]
    assert data["gain"]["positives_found"] == status["positives_found"]
    band = data["gain"]["band"]
    if band["informative"]:
        assert band["total"] == advice["estimated_total_positives"]["point"]
    else:   # early: no count of positives in the pool, only what is known
        assert band["total"] is None and band["lower"] == advice["known"]["found"]
    assert data["provenance"]["sources"][0]["sha256"] and data["provenance"]["triage_version"]
    for section in ("project", "spend", "gain", "yield", "advice", "agreement", "models",
                    "samples", "provenance"):
        assert data[section]["reading"], section


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs


def parse_html(text: str) -> _Tags:
    parser = _Tags()
    parser.feed(text)
    return parser


def test_html_report_is_one_offline_file_with_every_section(demo, tmp_path, capsys):
    out = tmp_path / "report.html"
    assert cli(["report", str(demo), "-o", str(out), "--bootstrap", BOOT]) == 0
    text = out.read_text(encoding="utf-8")
    advice = _json(capsys, "advise", str(demo), "--json")
    for section in ("project", "spend", "gain", "yield", "advice", "agreement", "models",
                    "samples", "provenance"):
        assert f'<section id="{section}">' in text
    assert text.count("<svg") >= 5   # spend, gain, yield, model gain, value, calibration
    assert "$14.40" in text          # 360 annotations at 4 cents
    assert "built-in method" not in text and "Undefined" not in text  # no template slips
    for reason in advice["reasons"]:
        assert reason["rule"].replace("_", " ") in text
    tags = parse_html(text)
    assert "script" not in tags.tags and "link" not in tags.tags and "img" not in tags.tags
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text)
    assert "@import" not in text and not re.search(r"url\((?!#)", text)  # only in-page refs
    assert "@media print" in text and "@media (max-width" in text


PAYLOADS = ('<script>alert(1)</script>', '"onload=alert(2) x="', "<img src=x onerror=alert(3)>")


def _hostile_project(tmp_path: Path) -> Path:
    s, o, i = PAYLOADS
    pool = tmp_path / "pool.csv"
    rows = ["key,text,score"] + [f'"{s}{n}","{o} {i} text {n}",{1 - n / 40:.4f}' for n in range(40)]
    pool.write_text("\n".join(rows).replace('"onload', '""onload').replace('x="', 'x=""') + "\n")
    settings = Settings(labels=(LabelOption(s, "a"), LabelOption(o, "b")), positive_labels=(s,),
                        currency=i, budget=5.0, value_per_positive=1.0, overlap_rate=0.5)
    path = tmp_path / "hostile.triage"
    project = create_project(path, settings)
    project.import_file(pool, ColumnMapping(text="text", key="key", scores=((o, "score"),)))
    for who, value in ((s, s), (o, o), (i, s)):
        session = project.start_session(who)
        for _ in range(12):
            item = project.next_candidate(session)
            if item is None:
                break
            project.record_label(session, item.candidate_id, value, note=f"{i} note {o}")
        project.end_session(session)
    project.close()
    return path


def test_untrusted_text_comes_out_inert_in_every_field(tmp_path):
    path = _hostile_project(tmp_path)
    out = tmp_path / "r.html"
    data = write_report(path, out, bootstrap=20)
    text = out.read_text(encoding="utf-8")
    # The payloads did reach the report (names, labels, keys, text, notes, currency, model)...
    assert data["samples"]["notes"] and data["project"]["models"][0]["name"] == PAYLOADS[1]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&#34;onload=alert(2)" in text
    # ...and none of them became markup.
    tags = parse_html(text)
    assert "script" not in tags.tags
    assert "img" not in tags.tags
    assert not [name for name, _ in tags.attrs if name.startswith("on")]
    assert "<script" not in text and "<img" not in text
    assert not re.search(r"<[^>]*\sonload\s*=", text)


@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
def test_pdf_report_has_the_same_sections_on_a_few_pages(demo, tmp_path):
    from pypdf import PdfReader

    out = tmp_path / "report.pdf"
    assert cli(["report", str(demo), "-o", str(out), "--bootstrap", BOOT]) == 0
    payload = out.read_bytes()
    assert payload.startswith(b"%PDF-") and len(payload) > 50_000
    reader = PdfReader(io.BytesIO(payload))
    assert 4 <= len(reader.pages) <= 10
    text = " ".join(page.extract_text() for page in reader.pages)
    for heading in ("Project and settings", "Spend against budget", "Cumulative gain",
                    "Yield per score decile", "Stopping advice", "Agreement between",
                    "Model comparison", "Audit and certification", "Data provenance"):
        assert heading in text


@pytest.mark.slow
def test_hostile_text_prints_as_text_in_the_pdf(tmp_path):
    from pypdf import PdfReader

    out = tmp_path / "r.pdf"
    write_report(_hostile_project(tmp_path), out, bootstrap=0)
    text = " ".join(p.extract_text() for p in PdfReader(out).pages)
    assert "<script>alert(1)</script>" in text.replace("\n", "")


def test_cancel_leaves_no_file_and_bad_names_are_refused(demo, tmp_path):
    out = tmp_path / "r.html"
    with pytest.raises(TriageError, match="cancelled"):
        write_report(demo, out, bootstrap=0, progress=lambda done, total: done < 2)
    assert not out.exists()
    with pytest.raises(TriageError, match="unknown report format"):
        write_report(demo, tmp_path / "r.docx", bootstrap=0)


def test_empty_project_is_refused_with_a_reason(tmp_path):
    path = tmp_path / "empty.triage"
    create_project(path, Settings()).close()
    with open_project(path) as project, pytest.raises(TriageError, match="no candidates"):
        build_report_data(project, bootstrap=0)


def test_agreement_per_guideline_version_matches_agree(tmp_path, capsys):
    from tests.helpers import make_project
    from triage.project.guidelines import save_guidelines

    project = make_project(tmp_path, n=80, overlap_rate=0.5)
    for version_text in ("Idioms are figurative.", "Idioms are figurative; names are not."):
        save_guidelines(project, version_text, "lead")
        for who in ("ada", "bo"):
            session = project.start_session(who)
            for _ in range(12):
                item = project.next_candidate(session)
                project.record_label(session, item.candidate_id, "idiom")
            project.end_session(session)
    path = project.path
    project.close()
    data = _json(capsys, "report", str(path), "--json", "--bootstrap", "50")
    agree = _json(capsys, "agree", str(path), "--json", "--bootstrap", "50",
                  "--by", "guideline_version")
    assert data["agreement"]["report"] == agree
    groups = {r["group"] for r in data["agreement"]["guideline_versions"]}
    assert len(groups) == 2


def test_the_spend_chart_before_any_label_says_so_without_a_warning():
    import warnings

    from triage.views.report.chart_layout import texts
    from triage.views.report.charts import spend_chart

    empty = {"timeline": {"times": [], "spend": [], "events": []}, "currency": "USD",
             "budget": None}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chart = spend_chart(empty)
    assert [n.text for n in chart.notes] == ["nothing spent yet: no labels"]
    assert chart.legend_entries() == []   # no legend without a line to name
    assert "nothing spent yet: no labels" in texts(chart)


@pytest.mark.slow   # a few seconds: the slow tier, which CI runs
def test_html_and_pdf_from_one_computation(demo, tmp_path, capsys):
    from pypdf import PdfReader

    html, pdf = tmp_path / "r.html", tmp_path / "r.pdf"
    capsys.readouterr()
    assert cli(["report", str(demo), "-o", str(html), "-o", str(pdf), "--bootstrap", "0"]) == 0
    assert capsys.readouterr().out.strip() == (
        f"wrote the report of {demo} to {html} and {pdf}")
    page = re.sub(r"\s+", " ", html.read_text(encoding="utf-8"))
    text = re.sub(r"\s+", " ", " ".join(p.extract_text() for p in PdfReader(pdf).pages))
    advice = _json(capsys, "advise", str(demo), "--json")
    # Both files carry the advice as advise words it, down to the certification rule.
    cert = next(r for r in advice["reasons"] if r["rule"] == "certification")["detail"]
    for rendered in (page, text):
        assert advice["headline"].split(" — ")[1][:40] in rendered
    assert cert[:40] in page and cert[:30] in text
