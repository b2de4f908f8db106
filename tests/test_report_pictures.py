"""The report of a picture pool: thumbnails of the disagreements and of a sample of positives
as JPEG data URIs (HTML) and embedded JPEGs (PDF); placeholders and a count for the pictures
that cannot be shown; none of it with --no-images; the page stays inert."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pytest

from tests.picture_projects import DISAGREEMENT_KEYS, POSITIVE_KEYS, SHOWN, labelled_picture_project
from tests.test_report import parse_html
from triage.cli.program import main as cli
from triage.project import open_project
from triage.project.adjudication import disagreements
from triage.project.certify import labelled_state

BOOT = "0"
JPEG_URI = re.compile(r'src="data:image/jpeg;base64,([A-Za-z0-9+/=]+)"')


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return labelled_picture_project(tmp_path_factory.mktemp("report-pictures"))


@pytest.fixture(scope="module")
def html(project) -> str:
    """The HTML report with pictures (written once for the tests that read it)."""
    return _report(project, project.parent / "r.html")




def _report(project: Path, out: Path, *extra: str) -> str:
    assert cli(["report", str(project), "-o", str(out), "--bootstrap", BOOT, *extra]) == 0
    return out.read_text(encoding="utf-8") if out.suffix == ".html" else ""


def test_html_has_one_jpeg_per_picture_that_can_be_shown(html):
    from PIL import Image

    text = html
    uris = JPEG_URI.findall(text)
    assert len(uris) == len(SHOWN) == text.count("data:image/jpeg;base64,")
    sizes = []
    for data in uris:
        image = Image.open(io.BytesIO(base64.b64decode(data)), formats=["JPEG"])
        image.load()
        assert image.format == "JPEG" and max(image.size) <= 96
        sizes.append(image.size)
    # The EXIF-rotated 60 x 20 picture comes out standing (20 x 60), red on top.
    standing = [data for data, size in zip(uris, sizes, strict=True) if size == (20, 60)]
    assert len(standing) == 1
    turned = Image.open(io.BytesIO(base64.b64decode(standing[0]))).convert("RGB")
    top, bottom = turned.getpixel((10, 10)), turned.getpixel((10, 50))
    assert top[0] > 200 > top[2] and bottom[2] > 200 > bottom[0]
    # The four that cannot be shown are placeholders that say why, and counted.
    reasons = re.findall(r"cannot be shown: ([^<]+)</div>", text)
    assert len(reasons) == 4
    assert any("does not exist" in r for r in reasons)
    assert any("truncated" in r for r in reasons)
    assert any("too large to decode safely" in r for r in reasons)
    assert "4 of these pictures could not be shown" in text
    # Every key is shown under its thumbnail, disagreements first.
    keys = re.findall(r'<figcaption><b>([^<]+)</b>', text)
    assert keys == DISAGREEMENT_KEYS + POSITIVE_KEYS


def test_html_with_pictures_stays_self_contained_and_inert(html):
    text = html
    parser = parse_html(text)
    assert "script" not in parser.tags and "link" not in parser.tags
    assert not [name for name, _ in parser.attrs if name.startswith("on")]
    sources = [value for name, value in parser.attrs if name == "src"]
    assert sources and all(v.startswith("data:image/jpeg;base64,") for v in sources)
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:|file:)?//", text)
    assert ("Content-Security-Policy" in text
            and "default-src 'none'; img-src data:" in text)


def test_no_images_leaves_every_picture_out(project, tmp_path):
    text = _report(project, tmp_path / "r.html", "--no-images")
    assert "data:image" not in text and "<img" not in text
    assert "cannot be shown" not in text
    assert "Pictures are left out of this report (--no-images)" in text
    assert '<section id="pictures">' in text   # the counts stay


def _jpegs(pdf: Path) -> int:
    from pypdf import PdfReader

    count = 0
    for page in PdfReader(pdf).pages:
        for image in page.images:
            count += image.name.lower().endswith((".jpg", ".jpeg"))
    return count


@pytest.mark.slow
def test_pdf_embeds_the_thumbnails_and_leaves_them_out_on_request(project, tmp_path):
    from pypdf import PdfReader

    _report(project, tmp_path / "r.pdf")
    assert _jpegs(tmp_path / "r.pdf") == len(SHOWN)
    text = " ".join(p.extract_text() for p in PdfReader(tmp_path / "r.pdf").pages)
    assert "Pictures of disagreements and positives" in text
    assert "cannot be shown" in text and "Data provenance" in text
    _report(project, tmp_path / "bare.pdf", "--no-images")
    assert _jpegs(tmp_path / "bare.pdf") == 0
    # The charts are there either way (vector drawings, their axis titles as text), only the
    # thumbnails go: no image at all is left.
    bare = PdfReader(tmp_path / "bare.pdf")
    assert sum(len(p.images) for p in bare.pages) == 0
    text = " ".join(p.extract_text() for p in bare.pages)
    assert "candidates annotated" in text and "score decile (1 = highest scores)" in text


def test_the_counts_are_the_programs_own(project, capsys):
    capsys.readouterr()
    assert cli(["report", str(project), "--json", "--bootstrap", BOOT]) == 0
    data = json.loads(capsys.readouterr().out)["pictures"]
    with open_project(project) as opened:
        found = labelled_state(opened.state)[1]
        pending = disagreements(opened)
    assert data["positives"]["total"] == found == len(POSITIVE_KEYS)
    assert data["disagreements"]["total"] == len(pending) == len(DISAGREEMENT_KEYS)
    assert [i["key"] for i in data["disagreements"]["list"]] == [d.key for d in pending]
    # The JSON keeps why a picture is missing, not the pictures' bytes.
    thumbs = [i["thumbnail"] for part in ("positives", "disagreements")
              for i in data[part]["list"]]
    assert all(t["jpeg"] is None for t in thumbs)
    assert sum(1 for t in thumbs if t["reason"]) == 4


def test_a_text_project_has_no_pictures_section(tmp_path):
    from tests.helpers import label_top, make_project

    project = make_project(tmp_path, n=30)
    label_top(project, "ada", 5)
    project.close()
    text = _report(tmp_path / "p.triage", tmp_path / "r.html")
    assert '<section id="pictures">' not in text and "data:image" not in text
    assert "9. Data provenance" in text
