"""The report as an A4 PDF, drawn with fpdf2 (pure Python) from the same data as the HTML.

Why fpdf2: it installs from PyPI with no system libraries (unlike WeasyPrint's Pango or
xhtml2pdf's Cairo), needs no Qt (so ``triage report -o x.pdf`` stays headless and the core
stays Qt-free), and lays out flowing text, tables and page breaks itself. Text is set in
DejaVu Sans, which ships with matplotlib, so Greek letters and most Latin, Cyrillic and
symbol characters print; the charts are the HTML report's charts, drawn as vector graphics.
Nothing is interpreted as markup: candidate text and names are printed as plain text.
"""

from __future__ import annotations

import base64
from io import BytesIO
from pathlib import Path
from typing import Any

from fpdf import FPDF

from triage.views.report import html as _html
from triage.views.report.chart_model import Chart
from triage.views.report.chart_pdf import draw_chart
from triage.views.report.charts import drawn_charts
from triage.views.report.pdf_table import fast_table

money = _html.format_money
share = _html.format_share
num = _html.format_number
count = _html.format_count
ACCENT = (31, 95, 168)
MUTED = (91, 100, 112)


def _font_dir() -> Path:
    """matplotlib's DejaVu fonts, found without importing matplotlib."""
    import importlib.util

    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the report's fonts come with matplotlib, which is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"


class ReportPDF(FPDF):
    """A4 pages with the report's title in the header and page numbers in the footer."""

    def __init__(self, title: str) -> None:
        super().__init__(format="A4")
        self.report_title = title
        fonts = _font_dir()
        self.add_font("DejaVu", "", str(fonts / "DejaVuSans.ttf"))
        self.add_font("DejaVu", "B", str(fonts / "DejaVuSans-Bold.ttf"))
        self.add_font("DejaVu", "I", str(fonts / "DejaVuSans-Oblique.ttf"))
        self.set_margins(15, 15, 15)
        self.set_auto_page_break(True, margin=16)
        self.set_title(title)
        self.set_creator("Triage")

    def footer(self) -> None:
        """Title and page number at the foot of every page."""
        self.set_y(-11)
        self.set_font("DejaVu", "", 7)
        self.set_text_color(*MUTED)
        self.cell(0, 5, f"{self.report_title} — page {self.page_no()}/{{nb}}", align="C")
        self.set_text_color(0, 0, 0)


def _heading(pdf: ReportPDF, text: str) -> None:
    if pdf.get_y() > pdf.h - 60:
        pdf.add_page()
    pdf.ln(3)
    pdf.set_font("DejaVu", "B", 13)
    pdf.set_text_color(*ACCENT)
    pdf.multi_cell(0, 7, text, new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)
    pdf.ln(1)


def _sub(pdf: ReportPDF, text: str) -> None:
    pdf.set_font("DejaVu", "B", 10)
    pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")


def _para(pdf: ReportPDF, text: str, *, reading: bool = False, small: bool = False) -> None:
    pdf.set_font("DejaVu", "I" if reading else "", 8 if small else 9.5)
    if small:
        pdf.set_text_color(*MUTED)
    pdf.set_fill_color(238, 243, 249)
    pdf.multi_cell(0, 4.6 if small else 5.2, text, fill=reading, padding=2 if reading else 0,
                   new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)
    pdf.ln(1.5)


def _chart(pdf: ReportPDF, chart: Chart | None) -> None:
    """A chart as wide as the text, drawn as vector graphics (:mod:`.chart_pdf`)."""
    if chart is None:
        return
    width = pdf.epw
    height = width * chart.height_pt / chart.width_pt
    if pdf.get_y() + height > pdf.h - 18:
        pdf.add_page()
    pdf.set_y(pdf.get_y() + draw_chart(pdf, chart, pdf.l_margin, pdf.get_y(), width))
    pdf.ln(1)


def _table(pdf: ReportPDF, rows: list[list[Any]], widths: tuple[int, ...] | None = None,
           size: float = 7.5, headings: bool = True) -> None:
    if len(rows) < 1 + headings:
        return
    fast_table(pdf, rows, widths, size, headings)
    pdf.ln(2)


def _kv(pdf: ReportPDF, pairs: list[tuple[str, str]]) -> None:
    _table(pdf, [[k, v] for k, v in pairs], widths=(1, 3), size=8, headings=False)


def _project(pdf: ReportPDF, d: dict[str, Any]) -> None:
    p, s = d["project"], d["project"]["settings"]
    cur = s["currency"]
    _heading(pdf, "1. Project and settings")
    _para(pdf, p["reading"], reading=True)
    price = (f"{money(s['price_per_item'], cur)} per annotation" if s["price_model"] == "per_item"
             else f"per hour, default rate {money(s['default_hourly_rate'], cur)}")
    _kv(pdf, [
        ("Candidates", num(p["pool"])),
        ("Models", "; ".join(f"{m['name']} (column {m['column']}, {num(m['tied_items'])} tied)"
                             for m in p["models"])),
        ("Queue follows", f"{p['active_model']} ({s['queue_mode']})"),
        ("Labels", ", ".join(f"{o['value']} [{o['key']}]" for o in s["labels"])
         + "; positive: " + ", ".join(s["positive_labels"])),
        ("Price", price),
        ("Budget", money(s["budget"], cur) if s["budget"] is not None else "none set"),
        ("Value of a positive", money(s["value_per_positive"], cur)
         if s["value_per_positive"] is not None else "not set"),
        ("Target recall", f"{share(s['target_recall'], 0)} at {share(s['confidence'], 0)}"),
        ("Overlap / audit / re-test", f"{share(s['overlap_rate'])} / {share(s['audit_rate'])} / "
                                      f"{share(s['retest_rate'])}"),
    ])
    _sub(pdf, "Annotators")
    _table(pdf, [["Annotator", "Labels", "Skips", "Positives", "s / label", "Sessions", "Spend"],
                 *[[a["annotator"], count(a["labels"]), count(a["skips"]), count(a["positives"]),
                    num(a["seconds_per_label"], 1), a["sessions"], money(a["spend"], cur)]
                   for a in p["annotator_table"]]], widths=(3, 1, 1, 1, 1, 1, 1))


def _spend_gain_yield(pdf: ReportPDF, d: dict[str, Any], charts: dict[str, Any]) -> None:
    cur = d["project"]["settings"]["currency"]
    sp, g, y = d["spend"], d["gain"], d["yield"]
    _heading(pdf, "2. Spend against budget")
    _para(pdf, sp["reading"], reading=True)
    _chart(pdf, charts.get("spend"))
    _kv(pdf, [(c, f) for c, f in sp["lines"]])
    _heading(pdf, "3. Cumulative gain and estimated recall")
    _para(pdf, g["reading"], reading=True)
    _chart(pdf, charts.get("gain"))
    lines = list(g.get("recall_lines") or []) + ["—"]
    _kv(pdf, [("Recall", lines[0]), ("Positives left", g.get("left_text") or "—")])
    _heading(pdf, "4. Yield per score decile")
    _para(pdf, y["reading"], reading=True)
    _chart(pdf, charts.get("yield"))
    _table(pdf, [["Decile", "Items", "Annotated", "Positives", "Yield", "Cost per positive"],
                 *[[f"{dec}{' ◀' if dec == y['current'] else ''}", count(y["items"][i]),
                    count(y["annotated"][i]), count(y["positives"][i]), share(y["yields"][i]),
                    money(y["marginal"][i], cur)] for i, dec in enumerate(y["deciles"])]])


def _advice(pdf: ReportPDF, d: dict[str, Any]) -> None:
    a = d["advice"]
    _heading(pdf, "5. Stopping advice")
    _para(pdf, a["reading"], reading=True)
    _sub(pdf, f"{a['decision'].upper()}: {a['headline']}")
    _table(pdf, [["Rule", "Verdict", "Why", "Numbers"],
                 *[[r["rule"], r["verdict"], r["detail"], r["numbers"]]
                   for r in a["rule_rows"]]], widths=(2, 2, 6, 6))
    text = a["next_batch_text"][:1].upper() + a["next_batch_text"][1:] + "."
    if a.get("plan_text"):
        text += " " + a["plan_text"][:1].upper() + a["plan_text"][1:] + "."
    _para(pdf, text, small=True)


def _ci(ci: list[float] | None) -> str:
    return f"{num(ci[0])} – {num(ci[1])}" if ci else "—"


def _agreement(pdf: ReportPDF, d: dict[str, Any]) -> None:
    ag = d["agreement"]["report"]
    why = ag["reasons"]
    ci = ag["alpha_ci95"]
    pci = ag["percent_agreement_ci95"]
    _heading(pdf, "6. Agreement between annotators")
    _para(pdf, d["agreement"]["reading"], reading=True)
    _table(pdf, [["Coefficient", "Value", "95% interval", "Note"],
                 [f"Krippendorff's α ({ag['level']})", num(ag["krippendorff_alpha"]),
                  f"{num(ci[0])} – {num(ci[1])}" if ci else "—", why["krippendorff_alpha"]],
                 ["Cohen's κ (mean over pairs)", num(ag["cohen_kappa_mean"]),
                  _ci(ag.get("cohen_kappa_mean_ci95")), why["cohen_kappa_mean"]],
                 ["Fleiss' κ", num(ag["fleiss_kappa"]), _ci(ag.get("fleiss_kappa_ci95")),
                  why["fleiss_kappa"]],
                 ["Gwet's AC1", num(ag["gwet_ac1"]), _ci(ag.get("gwet_ac1_ci95")),
                  why["gwet_ac1"]],
                 ["Percent agreement", share(ag["percent_agreement"]),
                  f"{share(pci[0])} – {share(pci[1])}" if pci else "—",
                  why["percent_agreement"]]], widths=(4, 2, 3, 5))
    _sub(pdf, "Per annotator pair")
    _table(pdf, [["Pair", "Items", "Cohen's κ", "Why undefined"],
                 *[[pair.replace("|", " · "), row["items"], num(row["kappa"]), row["reason"]]
                   for pair, row in ag["cohen_kappa_pairs"].items()]], widths=(4, 1, 2, 5))
    _sub(pdf, "Breakdowns (α per group)")
    _table(pdf, [["By", "Group", "Items", "α", "Agreement"],
                 *[[b["by"], b["group"].replace("|", " · "), b["items"], num(b["alpha"]),
                    share(b["percent_agreement"])] for b in ag["breakdowns"]]])
    _para(pdf, d["agreement"]["guideline_note"], small=True)


def _models(pdf: ReportPDF, d: dict[str, Any], charts: dict[str, Any]) -> None:
    mo, cur = d["models"], d["project"]["settings"]["currency"]
    gr, v = mo["gain_report"], mo["view"]
    _heading(pdf, "7. Model comparison")
    _para(pdf, mo["reading"], reading=True)
    _chart(pdf, charts.get("models_gain"))
    _table(pdf, [["Model", "Positives within budget", "Candidates within budget",
                  "Deciles to all positives", "Cost to all (whole deciles)", "Tied items"],
                 *[[name, num(m["positives_within_budget"], 1),
                    num(m["candidates_within_budget"]), num(m["deciles_to_all_positives"], 2),
                    money(m["cost_to_all_positives_whole_deciles"], cur), num(m["tied_items"])]
                   for name, m in gr["models"].items()]])
    if v.get("unavailable"):
        _para(pdf, f"Value and calibration: {v['unavailable']}", small=True)
    if "value" in charts:
        _sub(pdf, "Value with a reject option")
        _chart(pdf, charts["value"])
    if "calibration" in charts:
        _sub(pdf, "Calibration")
        _chart(pdf, charts["calibration"])
    if v.get("metrics"):
        names = list(next(iter(v["metrics"].values())))
        _sub(pdf, f"Classic metrics (threshold 0.5, {num(v['n'])} candidates)")
        _table(pdf, [["Model", *names],
                     *[[m, *[num(v["metrics"][m][k]) for k in names]] for m in v["models"]]])
    for warning in v.get("warnings") or []:
        _para(pdf, warning, small=True)


def _samples(pdf: ReportPDF, d: dict[str, Any]) -> None:
    sa = d["samples"]
    _heading(pdf, "8. Audit and certification samples")
    _para(pdf, sa["reading"], reading=True)
    cert = sa["certification"]
    if cert:
        _para(pdf, f"{cert['verdict']} — {cert['detail']}")
        for text in cert.get("texts", []):
            _para(pdf, text, small=True)
        if cert.get("record"):
            _para(pdf, f"Certification sample on record: {cert['record_text']}.", small=True)
    _table(pdf, [["Rank", "Key", "Text", "Label"],
                 *[[num(i["rank"]), i["key"], _cut(i["text"]), i["label"]]
                   for i in sa["audit"]["list"]]], widths=(1, 2, 6, 2))
    if sa["disagreements"]["count"]:
        _sub(pdf, f"Disagreements awaiting a ruling ({sa['disagreements']['count']})")
        _table(pdf, [["Rank", "Key", "Text", "Votes"],
                     *[[num(x["rank"]), x["key"], _cut(x["text"]),
                        "; ".join(f"{a}: {lab}" for a, lab in x["votes"].items())]
                       for x in sa["disagreements"]["list"]]], widths=(1, 2, 5, 4))
    if sa["notes"]:
        _sub(pdf, "Annotators' notes")
        _table(pdf, [["Key", "Annotator", "Label", "Note"],
                     *[[n["key"], n["annotator"], n["label"] or "skip", n["note"]]
                       for n in sa["notes"]]], widths=(2, 2, 2, 6))


def _cut(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


THUMB_MM = 24.0   # a thumbnail's box
CELL_MM = 30.0    # its column, caption included


def _thumb(pdf: ReportPDF, item: dict[str, Any], x: float, top: float) -> None:
    t = item["thumbnail"]
    if t["jpeg"]:
        scale = THUMB_MM / max(t["width"], t["height"], 1)
        pdf.image(BytesIO(base64.b64decode(t["jpeg"])), x=x, y=top, w=t["width"] * scale,
                  h=t["height"] * scale)
    else:   # a placeholder that says why
        pdf.set_draw_color(*MUTED)
        pdf.rect(x, top, THUMB_MM, THUMB_MM)
        pdf.set_xy(x + 1, top + 1)
        pdf.set_font("DejaVu", "", 5.5)
        pdf.set_text_color(*MUTED)
        pdf.multi_cell(THUMB_MM - 2, 2.6, _cut(f"cannot be shown: {t['reason']}", 100),
                       align="L")
        pdf.set_text_color(0, 0, 0)
    pdf.set_xy(x, top + THUMB_MM + 0.5)
    pdf.set_font("DejaVu", "", 6)
    pdf.multi_cell(CELL_MM - 2, 2.8, f"{_cut(item['key'], 24)}\n{_cut(item['labels'], 44)}",
                   align="L")


def _thumb_grid(pdf: ReportPDF, items: list[dict[str, Any]]) -> None:
    per_row = max(1, int(pdf.epw // CELL_MM))
    for start in range(0, len(items), per_row):
        if pdf.get_y() + THUMB_MM + 13 > pdf.h - 18:
            pdf.add_page()
        top = pdf.get_y()
        for n, item in enumerate(items[start:start + per_row]):
            _thumb(pdf, item, pdf.l_margin + n * CELL_MM, top)
        pdf.set_xy(pdf.l_margin, top + THUMB_MM + 12)
    pdf.ln(2)


def _pictures(pdf: ReportPDF, d: dict[str, Any]) -> None:
    pic = d.get("pictures")
    if not pic:
        return
    _heading(pdf, "9. Pictures of disagreements and positives")
    _para(pdf, pic["reading"], reading=True)
    if not pic["images"]:
        return
    for name, title in (("disagreements", "Disagreements"),
                        ("positives", "Positives, a random sample")):
        part = pic[name]
        if part["list"]:
            _sub(pdf, f"{title} ({num(part['shown'])} of {num(part['total'])})")
            _thumb_grid(pdf, part["list"])


def _provenance(pdf: ReportPDF, d: dict[str, Any]) -> None:
    pv = d["provenance"]
    _heading(pdf, f"{10 if d.get('pictures') else 9}. Data provenance")
    _para(pdf, pv["reading"], reading=True)
    rows = [[src["file"], src["imported_at"], f"{src['kind']}: {num(src['rows'])} rows; "
             + ", ".join(src["models"]), src["sha256"]] for src in pv["sources"]]
    if not rows:
        rows = [[pv["source_file"] or "unknown", "—", "pool", "not recorded"]]
    _table(pdf, [["File", "Imported", "What", "SHA-256"], *rows], widths=(4, 3, 3, 5))
    _table(pdf, [["Model", "Score column", "From", "Imported"],
                 *[[m["name"], m["column"], m["file"], m["imported_at"]] for m in pv["models"]]])
    _para(pdf, f"Project file created {pv['created_at']}; report by Triage "
               f"{pv['triage_version']}.", small=True)


# What :func:`begin_pdf` lays out: sections ready before the second process's are.
FIRST_SECTIONS = ("title", "generated_at", "project", "spend", "gain", "yield", "advice",
                  "provenance")


def begin_pdf(data: dict[str, Any], charts: dict[str, Any],
              document: ReportPDF | None = None) -> ReportPDF:
    """A new document with the title, project, spend, gain, yield and advice laid out.

    ``data`` needs only :data:`FIRST_SECTIONS`; ``charts``: the spend, gain and yield charts
    (see :func:`.charts.drawn_charts`); ``document``: a fresh ``ReportPDF`` made ahead."""
    pdf = document if document is not None else ReportPDF(data["title"])
    pdf.add_page()
    pdf.set_font("DejaVu", "B", 17)
    pdf.multi_cell(0, 9, data["title"], new_x="LMARGIN", new_y="NEXT")
    _para(pdf, f"Generated {data['generated_at']} by Triage "
               f"{data['provenance']['triage_version']} from {data['project']['file']}.",
          small=True)
    _project(pdf, data)
    _spend_gain_yield(pdf, data, charts)
    _advice(pdf, data)
    return pdf


def render_pdf(data: dict[str, Any], drawn: dict[str, Any] | None = None,
               begun: ReportPDF | None = None) -> bytes:
    """The whole report as PDF bytes, from :func:`build_report_data`.

    ``drawn``: charts already drawn (by name, see :func:`.charts.drawn_charts`); the
    others are drawn here. ``begun``: the document :func:`begin_pdf` laid out from the
    same data while other work went on (else it is laid out here)."""
    charts = drawn_charts(data, "pdf", drawn)
    pdf = begun if begun is not None else begin_pdf(data, charts)
    _agreement(pdf, data)
    _models(pdf, data, charts)
    _samples(pdf, data)
    _pictures(pdf, data)
    _provenance(pdf, data)
    return bytes(pdf.output())
