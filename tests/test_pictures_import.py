"""Pictures as candidates, without Qt: the image column at import, where cells resolve,
and ``--check-images`` (new, import, status) over crafted hostile files."""

from __future__ import annotations

import csv
import json
import sqlite3

import pytest

from tests.picture_files import bomb_png, picture_pool, png, rotated_jpeg, svg, truncated_png
from tests.test_cli_core import triage as triage_process
from triage.base.pictures import check_file, resolve, sniff
from triage.ingest.importer import ColumnMapping
from triage.project import create_project, open_project
from triage.project.pictures import check_pictures, picture_source
from triage.store.settings import Settings


@pytest.fixture
def triage(capsys):
    """The command line in this process (a fresh Python per call costs a second)."""
    from types import SimpleNamespace

    from triage.cli.program import main

    def run(*args):
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)
    return run


def test_new_with_only_an_image_column_from_the_command_line(tmp_path):
    pool = picture_pool(tmp_path / "data")
    out = triage_process("new", tmp_path / "p.triage", pool, "--image", "picture", "--score", "m=score",
                 "--check-images")
    assert out.returncode == 0, out.stderr
    assert "7 candidates" in out.stdout
    assert "could not be shown: 4" in out.stdout  # cut, gone, bomb, script
    with sqlite3.connect(tmp_path / "p.triage") as db:
        info = dict(db.execute("SELECT key, value FROM project WHERE key LIKE 'image_%'"))
        texts = [r[0] for r in db.execute("SELECT text FROM candidates ORDER BY id")]
    assert info == {"image_column": "picture", "image_caption": "",
                    "image_folder": str((tmp_path / "data").resolve())}
    assert texts[:2] == ["img/red.png", "img/blue.png"]  # stored as given


def test_status_counts_the_pictures_that_cannot_be_shown(tmp_path, triage):
    pool = picture_pool(tmp_path / "data")
    assert triage("new", tmp_path / "p.triage", pool, "--image", "picture",
                  "--score", "m=score").returncode == 0
    out = triage("status", tmp_path / "p.triage", "--check-images", "--json")
    assert out.returncode == 0, out.stderr
    pics = json.loads(out.stdout)["pictures"]
    assert pics["pictures"] == 7 and pics["not_shown"] == 4
    assert pics["reasons"] == {"the PNG file is cut short": 1, "the file does not exist": 1,
                               "too large to decode safely": 1,
                               "not a picture Triage shows": 1}
    text = triage("status", tmp_path / "p.triage", "--check-images").stdout
    assert "pictures: 7; could not be shown: 4" in text
    assert "img/gone.png: the file does not exist" in text


def test_status_check_images_refuses_a_text_pool(tmp_path, triage):
    src = tmp_path / "t.csv"
    src.write_text("text,score\nhello,0.5\n")
    assert triage("new", tmp_path / "p.triage", src, "--text", "text",
                  "--score", "m=score").returncode == 0
    out = triage("status", tmp_path / "p.triage", "--check-images")
    assert out.returncode == 2 and "has no pictures" in out.stderr


def test_text_and_image_the_text_is_the_caption(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    png(folder / "a.png", (255, 0, 0))
    with open(folder / "pool.csv", "w", newline="") as handle:
        csv.writer(handle).writerows([["id", "caption", "pic", "s"],
                                      ["k1", "a red square", "a.png", "0.9"],
                                      ["k2", "nothing", "", "0.1"]])
    project = create_project(tmp_path / "p.triage", Settings())
    project.import_file(folder / "pool.csv", ColumnMapping(
        text="caption", key="id", scores=(("m", "s"),), image="pic"))
    source = picture_source(project.db, project.location)
    assert source is not None and source.caption == "caption"
    first, second = project.upcoming(2)
    assert first.text == "a red square"
    ref = source.ref(first.text, first.meta)
    assert ref is not None and ref.path == folder.resolve() / "a.png"
    assert source.ref(second.text, second.meta) is None  # a blank cell: no picture
    check = check_pictures(project.db, source)
    assert (check.total, check.blank, check.not_shown) == (2, 1, 1)
    project.close()


def test_a_moved_pool_folder_resolves_beside_the_project(tmp_path):
    pool = picture_pool(tmp_path / "data", hostile=False)
    project = create_project(tmp_path / "data" / "p.triage", Settings())
    project.import_file(pool, ColumnMapping(text="", scores=(("m", "score"),), image="picture"))
    project.close()
    moved = tmp_path / "moved"
    (tmp_path / "data").rename(moved)
    with open_project(moved / "p.triage") as project:
        source = picture_source(project.db, project.location)
        assert source is not None and source.folder == moved.resolve()
        assert check_pictures(project.db, source).not_shown == 0


@pytest.mark.parametrize(("cell", "expect"), [
    ("img/a.png", ("path", "/pool/img/a.png")),
    ("/abs/b.jpg", ("path", "/abs/b.jpg")),
    ("file:///abs/with%20space.png", ("path", "/abs/with space.png")),
    ("https://example.org/c.png", ("url", "https://example.org/c.png")),
])
def test_cells_resolve(cell, expect):
    ref = resolve(cell, "/pool")
    got = ("url", ref.url) if ref.url else ("path", str(ref.path))
    assert got == expect and ref.given == cell


def test_formats_by_content_not_name(tmp_path):
    assert sniff(svg(tmp_path / "x.png").read_bytes()[:16]) is None
    assert check_file(tmp_path / "x.png").startswith("not a picture")
    assert check_file(rotated_jpeg(tmp_path / "r.jpg")) is None
    assert check_file(png(tmp_path / "p.gif", (1, 2, 3))) is None  # a PNG named .gif is a PNG
    assert "cut short" in check_file(truncated_png(tmp_path / "t.png"))
    assert "100,000 × 100,000" in check_file(bomb_png(tmp_path / "b.png"))
    assert check_file(tmp_path / "none.png") == "the file does not exist"
    assert check_file(tmp_path) == "a folder, not a file"


def test_import_never_touches_the_picture_files(tmp_path, monkeypatch):
    """Import speed: no per-row file check (a million paths import like a million texts)."""
    import triage.base.pictures as pictures

    def refuse(*_a, **_k):
        raise AssertionError("the import must not open picture files")

    monkeypatch.setattr(pictures, "check_file", refuse)
    src = tmp_path / "pool.csv"
    src.write_text("p,s\n" + "".join(f"nowhere/{i}.png,{i / 1000}\n" for i in range(1000)))
    project = create_project(tmp_path / "p.triage", Settings())
    result = project.import_file(src, ColumnMapping(text="", scores=(("m", "s"),), image="p"))
    assert result.rows_imported == 1000
    project.close()


def test_the_report_counts_the_pictures_that_cannot_be_shown(tmp_path, triage):
    pool = picture_pool(tmp_path / "data")
    assert triage("new", tmp_path / "p.triage", pool, "--image", "picture",
                  "--score", "m=score").returncode == 0
    out = triage("report", tmp_path / "p.triage", "--json", "--bootstrap", "10")
    assert out.returncode == 0, out.stderr
    provenance = json.loads(out.stdout)["provenance"]
    assert provenance["pictures"]["not_shown"] == 4
    assert "7 pictures; 4 could not be shown" in provenance["reading"]
    assert "1: the file does not exist" in provenance["reading"]
    html = tmp_path / "r.html"
    assert triage("report", tmp_path / "p.triage", "-o", html,
                  "--bootstrap", "10").returncode == 0
    assert "4 could not be shown" in html.read_text()


def test_import_into_an_empty_project_and_a_guessed_score(tmp_path, triage):
    pool = picture_pool(tmp_path / "data", hostile=False)
    out = triage("new", tmp_path / "g.triage", pool, "--image", "picture")
    assert out.returncode == 0, out.stderr
    assert "guessed: image=picture, key=(row number), scores=score" in out.stderr  # no text
    create_project(tmp_path / "e.triage", Settings()).close()
    out = triage("import", tmp_path / "e.triage", pool, "--image", "picture",
                 "--score", "m=score", "--check-images")
    assert out.returncode == 0, out.stderr
    assert "pictures: 2; could not be shown: 0" in out.stdout
    out = triage("import", tmp_path / "e.triage", pool, "--score", "m2=score")
    assert out.returncode == 2 and "--image" in out.stderr


def test_a_pool_beyond_the_limit_is_checked_where_annotators_have_been(tmp_path, monkeypatch,
                                                                        triage):
    """Past WHOLE_POOL_CHECK_LIMIT the report checks the handled pictures and says so."""
    from triage.project import report
    from triage.views.report.readings import pictures as reading

    monkeypatch.setattr(report, "WHOLE_POOL_CHECK_LIMIT", 3)
    pool = picture_pool(tmp_path / "data")
    assert triage("new", tmp_path / "p.triage", pool, "--image", "picture",
                  "--score", "m=score").returncode == 0
    with open_project(tmp_path / "p.triage") as project:
        session = project.start_session("ada")
        for _ in range(4):  # red, blue, the cut PNG, the missing file (best-ranked first)
            shown = project.next_candidate(session)
            assert shown is not None
            project.record_label(session, shown.candidate_id, "positive")
        check = report.project_provenance(project)["pictures"]
    assert (check["scope"], check["pool_size"], check["pictures"]) == ("handled", 7, 4)
    assert check["not_shown"] == 2
    assert check["reasons"] == {"the PNG file is cut short": 1, "the file does not exist": 1}
    text = reading(check)
    assert "Of the 4 pictures annotators have handled (the pool holds 7" in text
    assert "2 could not be shown" in text


def test_the_image_column_is_guessed_from_extensions_and_names(tmp_path):
    from triage.views.new_project import guess_mapping, profile

    def guess(header, rows):
        path = tmp_path / "g.csv"
        with open(path, "w", newline="") as handle:
            csv.writer(handle).writerows([header, *rows])
        return guess_mapping(profile(path))

    only = guess(["key", "image", "score"], [[f"k{i}", f"img/{i}.JPG", "0.5"] for i in range(9)])
    assert (only["image"], only["text"], only["key"]) == ("image", None, "key")
    assert only["scores"] == ["score"]
    # By the values, whatever the name; a named caption is kept as the text.
    captioned = guess(["where", "caption", "p"],
                      [[f"https://x.org/{i}.webp?s=2", f"a bird {i}", "0.1"] for i in range(5)])
    assert (captioned["image"], captioned["text"]) == ("where", "caption")
    # By the name: addresses without an extension.
    named = guess(["photo", "p"], [[f"https://x.org/id/{i}", "0.2"] for i in range(5)])
    assert named["image"] == "photo"
    # A text pool with a link column and an id named like a picture: no pictures.
    text = guess(["image_id", "url", "text", "p"],
                 [[f"n{i % 2}", f"https://x.org/{i}", "some words here", "0.3"]
                  for i in range(5)])
    assert (text["image"], text["text"]) == (None, "text")


def test_new_guesses_the_image_column_when_none_is_given(tmp_path, triage):
    pool = picture_pool(tmp_path / "data", hostile=False)
    out = triage("new", tmp_path / "g.triage", pool, "--score", "m=score")
    assert out.returncode == 0, out.stderr
    assert "guessed: image=picture" in out.stderr
    with sqlite3.connect(tmp_path / "g.triage") as db:
        info = dict(db.execute("SELECT key, value FROM project WHERE key LIKE 'image_%'"))
    assert info["image_column"] == "picture" and info["image_caption"] == ""
