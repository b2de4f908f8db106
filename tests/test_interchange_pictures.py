"""Pictures through Prodigy and Label Studio: image projects out and back in (paths and
base64 data URIs), Label Studio server paths, and hostile embedded pictures refused."""

from __future__ import annotations

import base64
import csv
import hashlib
import json
from pathlib import Path

import pytest

from tests.picture_files import bomb_png, png, truncated_png
from triage.cli.program import main as cli
from triage.ingest.exchange_pictures import pictures_folder
from triage.project import open_project
from triage.project.pictures import picture_source
from triage.store import exchange

COLOURS = {"k1": (255, 0, 0), "k2": (0, 0, 255), "k3": (0, 160, 0), "k4": (250, 200, 0),
           "k5": (90, 0, 90), "k6": (0, 0, 0)}


def picture_project(tmp_path: Path, *, captions: bool = False) -> Path:
    """An image pool (6 PNGs, relative paths) with labels by two annotators, one skip.

    With captions the last candidate has no picture (a caption only)."""
    folder = tmp_path / "pool"
    (folder / "img").mkdir(parents=True)
    rows = []
    for n, (key, colour) in enumerate(COLOURS.items()):
        png(folder / "img" / f"{key}.png", colour, (12 + n, 10))
        blank = captions and key == "k6"
        rows.append({"key": key, "picture": "" if blank else f"img/{key}.png",
                     "score": 0.9 - n / 10,
                     **({"caption": f"photo «{key}»"} if captions else {})})
    with open(folder / "pool.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    out = tmp_path / "pics.triage"
    args = ["new", str(out), str(folder / "pool.csv"), "--image", "picture", "--key", "key",
            "--score", "m=score", "--labels", "cat:c,dog:d", "--positive", "cat"]
    assert cli(args + (["--text", "caption"] if captions else [])) == 0
    with open_project(out) as project:
        for who, plan in (("ada", ["cat", "dog", None, "cat"]), ("bo", ["cat", "dog"])):
            session = project.start_session(who)
            for value in plan:
                item = project.next_candidate(session)
                project.record_label(session, item.candidate_id, value, seconds=2.5)
            project.end_session(session)
    return out


def snapshot(path: Path) -> dict[str, tuple]:
    """Key -> (SHA-256 of the picture's bytes or its URL, caption, its labels as
    (annotator, value, seconds))."""
    out: dict[str, tuple] = {}
    labels: dict[str, list] = {}
    for key, _text, who, _s, value, _kind, _when, seconds, *_rest in \
            exchange.label_events_with_keys(open_project(path).db):
        labels.setdefault(key, []).append((who, value, seconds))
    with open_project(path) as project:
        source = picture_source(project.db, project.location)
        assert source is not None
        metas = exchange.candidate_metas(project.db)
        for cid, key, text in exchange.candidates_in_id_order(project.db):
            ref = source.ref(text, json.loads(metas.get(cid) or "{}"))
            digest = None if ref is None else (
                ref.url or hashlib.sha256(Path(str(ref.path)).read_bytes()).hexdigest())
            out[key] = (digest, source.caption_of(text), sorted(labels.get(key, [])))
    return out


@pytest.mark.parametrize("fmt, suffix", [("labelstudio", "json"), ("prodigy", "jsonl")])
@pytest.mark.parametrize("embed", [False, True])
@pytest.mark.parametrize("captions", [False, True])
def test_image_project_round_trips(tmp_path, fmt, suffix, embed, captions):
    original = picture_project(tmp_path, captions=captions)
    exported = tmp_path / f"out.{suffix}"
    assert cli(["export", str(original), str(exported), "--to", fmt]
               + (["--embed-pictures"] if embed else [])) == 0
    text = exported.read_text(encoding="utf-8")
    if embed:
        assert text.count("data:image/png;base64,") >= (5 if fmt == "labelstudio" else 4)
        assert str(tmp_path / "pool") not in text
    else:
        assert str((tmp_path / "pool" / "img" / "k1.png").resolve()) in text
    back = tmp_path / "back.triage"
    assert cli(["new", str(back), str(exported), "--from", fmt, "--labels", "cat:c,dog:d",
                "--positive", "cat"]) == 0
    want = snapshot(original)
    got = snapshot(back)
    if fmt == "prodigy":   # Prodigy gets label events: only labelled candidates travel
        want = {k: v for k, v in want.items() if v[2]}
    assert got == want
    written = sorted(p.name for p in pictures_folder(back).glob("*")) if embed else []
    assert len(written) == (len([v for v in want.values() if v[0]]) if embed else 0)
    assert not pictures_folder(back).exists() or embed


def test_label_studio_export_of_pictures_is_its_image_template(tmp_path):
    original = picture_project(tmp_path, captions=True)
    exported = tmp_path / "ls.json"
    assert cli(["export", str(original), str(exported), "--to", "labelstudio"]) == 0
    tasks = json.loads(exported.read_text(encoding="utf-8"))
    first = next(t for t in tasks if t["data"]["key"] == "k1")
    assert first["data"]["image"] == str((tmp_path / "pool/img/k1.png").resolve())
    assert first["data"]["text"] == "photo «k1»"
    results = [r for t in tasks for a in t["annotations"] + t["predictions"] for r in a["result"]]
    assert results and {r["to_name"] for r in results} == {"image"}
    blank = next(t for t in tasks if t["data"]["key"] == "k6")
    assert "image" not in blank["data"] and blank["data"]["text"] == "photo «k6»"
    config = (tmp_path / "ls.config.xml").read_text(encoding="utf-8")
    assert '<Image name="image" value="$image"/>' in config
    assert 'toName="image"' in config and '<Text name="text" value="$text"/>' in config
    back = tmp_path / "back.triage"
    assert cli(["new", str(back), str(exported), "--from", "labelstudio",
                "--ls-config", str(tmp_path / "ls.config.xml")]) == 0
    want = snapshot(original)
    assert want["k6"][0] is None and snapshot(back) == want


def test_embedded_pictures_are_written_once_beside_the_project(tmp_path, capsys):
    original = picture_project(tmp_path)
    exported = tmp_path / "p.jsonl"
    assert cli(["export", str(original), str(exported), "--to", "prodigy",
                "--embed-pictures"]) == 0
    back = tmp_path / "back.triage"
    capsys.readouterr()
    assert cli(["new", str(back), str(exported), "--from", "prodigy"]) == 0
    assert "pictures were embedded (base64 data URIs)" in capsys.readouterr().out
    folder = pictures_folder(back)
    names = sorted(p.name for p in folder.iterdir())
    assert all(n.endswith(".png") and len(n) == 64 + 4 for n in names)
    for name in names:   # named by the SHA-256 of the bytes
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == name[:64]
    with open_project(back) as project:
        cells = [t for _c, _k, t in exchange.candidates_in_id_order(project.db)]
    assert all(c.startswith("back.triage.pictures/") for c in cells)   # relative: movable


def _prodigy_line(image: object, **extra) -> str:
    return json.dumps({"image": image, "label": "cat", "answer": "accept",
                       "_annotator_id": "ada", **extra})


def _uri(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


SVG = (b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script>'
       b'<rect width="9" height="9"/></svg>')


def _hostile(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """Name -> (the image value, what the refusal says)."""
    truncated = truncated_png(tmp_path / "cut.png").read_bytes()
    bomb = bomb_png(tmp_path / "bomb.png").read_bytes()
    return {
        "bad base64": ("data:image/png;base64,iVBORw0K!!!notbase64", "base64 data is damaged"),
        "not a picture": (_uri(b"MZ\x90\x00 this is an executable, not a picture"),
                          "not a picture Triage shows"),
        "huge": ("data:image/png;base64," + "A" * (23 << 20), "too large"),
        "svg with script": (_uri(SVG, "image/svg+xml"), "SVG can carry script"),
        "svg claimed png": (_uri(SVG), "not a picture Triage shows"),
        "truncated": (_uri(truncated), "cut short"),
        "bomb": (_uri(bomb), "too large to decode safely"),
        "not base64": ("data:image/png,rawbytes", "not base64"),
        "not a string": (12, "12 is not a picture (a path, a URL or a data URI)"),
    }


@pytest.mark.parametrize("case", ["bad base64", "not a picture", "huge", "svg with script",
                                  "svg claimed png", "truncated", "bomb", "not base64",
                                  "not a string"])
def test_hostile_embedded_pictures_are_refused_with_their_line(tmp_path, capsys, case):
    image, reason = _hostile(tmp_path)[case]
    src = tmp_path / "in.jsonl"
    good = _uri(png(tmp_path / "ok.png", (1, 2, 3)).read_bytes())
    src.write_text("\n".join([_prodigy_line(good), _prodigy_line(image)]) + "\n",
                   encoding="utf-8")
    out = tmp_path / "new.triage"
    capsys.readouterr()
    assert cli(["new", str(out), str(src), "--from", "prodigy"]) == 2
    err = capsys.readouterr().err
    assert f"{src}:2: image: " in err and reason in err, err
    assert "Traceback" not in err
    assert not out.exists() and not pictures_folder(out).exists()


def test_hostile_label_studio_picture_changes_nothing(tmp_path, capsys):
    original = picture_project(tmp_path)
    exported = tmp_path / "ls.json"
    assert cli(["export", str(original), str(exported), "--to", "labelstudio",
                "--embed-pictures"]) == 0
    tasks = json.loads(exported.read_text(encoding="utf-8"))
    tasks[3]["data"]["image"] = _uri(SVG, "image/svg+xml")
    exported.write_text(json.dumps(tasks), encoding="utf-8")
    before = snapshot(original)
    capsys.readouterr()
    assert cli(["import", str(original), str(exported), "--from", "labelstudio"]) == 2
    err = capsys.readouterr().err
    assert f"{exported}: [3]: data.image: an SVG picture" in err
    assert snapshot(original) == before
    back = tmp_path / "back.triage"
    assert cli(["new", str(back), str(exported), "--from", "labelstudio"]) == 2
    assert not back.exists() and not pictures_folder(back).exists()


def _ls_task(n: int, image: str, choice: str | None) -> dict:
    result = [] if choice is None else [{"from_name": "choice", "to_name": "image",
                                         "type": "choices", "value": {"choices": [choice]}}]
    return {"id": n, "data": {"image": image}, "annotations": [
        {"id": 100 + n, "completed_by": 1, "result": result, "was_cancelled": choice is None,
         "lead_time": 1.5}], "predictions": []}


def _ls_export(folder: Path, tasks: list[dict]) -> Path:
    """A Label Studio JSON export of ``tasks`` in ``folder``."""
    src = folder / "export.json"
    src.write_text(json.dumps(tasks), encoding="utf-8")
    return src


def test_label_studio_server_paths_need_the_image_root(tmp_path, capsys):
    media = tmp_path / "ls-media" / "upload"
    (media / "1").mkdir(parents=True)
    png(media / "1" / "8f2a-cat.png", (200, 10, 10))
    png(media / "1" / "c01d-dog.png", (10, 10, 200))
    tasks = [_ls_task(1, "/data/upload/1/8f2a-cat.png", "Cat"),
             _ls_task(2, "/data/upload/1/c01d-dog.png", "Dog"),
             _ls_task(3, "/data/local-files/?d=1/8f2a-cat.png", "Cat")]
    src = _ls_export(tmp_path, tasks)
    plain = tmp_path / "plain.triage"
    capsys.readouterr()
    assert cli(["new", str(plain), str(src), "--from", "labelstudio"]) == 0
    said = capsys.readouterr().out
    assert "3 pictures are Label Studio server paths" in said and "--image-root DIR" in said
    with open_project(plain) as project:   # stored as given: the desk says it is missing
        cells = [t for _c, _k, t in exchange.candidates_in_id_order(project.db)]
    assert cells[0] == "/data/upload/1/8f2a-cat.png"
    mapped = tmp_path / "mapped.triage"
    assert cli(["new", str(mapped), str(src), "--from", "labelstudio",
                "--image-root", str(media), "--check-images"]) == 0
    said = capsys.readouterr().out
    assert "could not be shown: 0" in said and "server paths" not in said
    with open_project(mapped) as project:
        cells = [t for _c, _k, t in exchange.candidates_in_id_order(project.db)]
    assert cells == [str((media / "1/8f2a-cat.png").resolve()),
                     str((media / "1/c01d-dog.png").resolve()),
                     str((media / "1/8f2a-cat.png").resolve())]


def test_image_root_does_not_reach_outside_its_folder(tmp_path, capsys):
    (tmp_path / "root").mkdir()
    src = _ls_export(tmp_path, [_ls_task(1, "/data/upload/../../etc/passwd", "Cat")])
    capsys.readouterr()
    assert cli(["new", str(tmp_path / "x.triage"), str(src), "--from", "labelstudio",
                "--image-root", str(tmp_path / "root")]) == 2
    err = capsys.readouterr().err
    assert "[0]: data.image: '/data/upload/../../etc/passwd' points outside " \
           "--image-root" in err


def test_urls_and_cloud_uris_are_kept_as_given(tmp_path, capsys):
    tasks = [_ls_task(1, "https://example.org/a.jpg", "Cat"),
             _ls_task(2, "s3://bucket/b.jpg", "Dog")]
    src = _ls_export(tmp_path, tasks)
    out = tmp_path / "u.triage"
    capsys.readouterr()
    assert cli(["new", str(out), str(src), "--from", "labelstudio"]) == 0
    assert "1 pictures are cloud-storage URIs" in capsys.readouterr().out
    with open_project(out) as project:
        cells = [t for _c, _k, t in exchange.candidates_in_id_order(project.db)]
        source = picture_source(project.db, project.location)
    assert cells == ["https://example.org/a.jpg", "s3://bucket/b.jpg"]
    assert source is not None and source.ref(cells[0], {}).url == cells[0]


PRODIGY_DATA = Path(__file__).parent / "data" / "prodigy"


def _cells(path: Path) -> dict[str, str]:
    with open_project(path) as project:
        return {k: t for _c, k, t in exchange.candidates_in_id_order(project.db)}


def test_prodigy_image_recipe_output_becomes_a_picture_project(tmp_path, capsys):
    src = PRODIGY_DATA / "images_binary.jsonl"
    out = tmp_path / "pets.triage"
    capsys.readouterr()
    assert cli(["new", str(out), str(src), "--from", "prodigy", "--check-images"]) == 0
    said = capsys.readouterr().out
    assert "4 candidates, 6 label events" in said and "could not be shown: 0" in said
    lines = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    cells = _cells(out)
    for line in lines:   # each picture is the decoded bytes of its data URI
        data = base64.b64decode(line["image"].split(",", 1)[1])
        stored = out.parent / cells[str(line["_input_hash"])]
        assert stored.read_bytes() == data
        assert stored.name == hashlib.sha256(data).hexdigest() + ".png"
    got = {(k, who, v) for k, _t, who, _s, v, *_r in
           exchange.label_events_with_keys(open_project(out).db)}
    cat1, cat2, dog1, bird1 = "-1402913155", "611852043", "1988374620", "-733402911"
    assert got == {(cat1, "pets-ada", "CAT"), (dog1, "pets-ada", "not CAT"),
                   (cat2, "pets-ada", "CAT"), (bird1, "pets-ada", None),
                   (cat1, "pets-bo", "CAT"), (dog1, "pets-bo", "not CAT")}


def test_prodigy_choice_tasks_with_a_path_a_url_and_a_data_uri(tmp_path, capsys):
    src = PRODIGY_DATA / "images_choice.jsonl"
    out = tmp_path / "choice.triage"
    assert cli(["new", str(out), str(src), "--from", "prodigy"]) == 0
    cells = _cells(out)
    assert cells["5100"] == str((PRODIGY_DATA / "images" / "dog.png").resolve())
    assert cells["5101"] == "https://example.org/pets/cat.jpg"
    assert cells["5102"].startswith("choice.triage.pictures/")
    with open_project(out) as project:
        assert [o.value for o in project.settings.labels] == ["CAT", "DOG", "BIRD"]
    exported = tmp_path / "again.jsonl"
    assert cli(["export", str(out), str(exported), "--to", "prodigy"]) == 0
    images = [json.loads(line)["image"] for line in exported.read_text().splitlines()]
    assert images == [cells["5100"], "https://example.org/pets/cat.jpg",
                      str((out.parent / cells["5102"]).resolve())]


LS_DATA = Path(__file__).parent / "data" / "labelstudio"
UPLOADS = LS_DATA / "pets.media" / "upload"


def test_genuine_label_studio_image_export_needs_its_upload_folder(tmp_path, capsys):
    out = tmp_path / "pets.triage"
    capsys.readouterr()
    assert cli(["new", str(out), str(LS_DATA / "pets.json"), "--from", "labelstudio"]) == 0
    said = capsys.readouterr().out
    assert "5 candidates, 6 label events" in said
    assert "3 pictures are Label Studio server paths" in said and "--image-root" in said
    assert "1 pictures were embedded" in said
    assert _cells(out)["1"] == "/data/upload/1/9f18796e-cat1.png"


@pytest.mark.parametrize("export", ["pets.json", "pets.snapshot.json", "pets.min.json"])
def test_genuine_label_studio_image_exports_with_the_image_root(tmp_path, capsys, export):
    out = tmp_path / "pets.triage"
    capsys.readouterr()
    assert cli(["new", str(out), str(LS_DATA / export), "--from", "labelstudio",
                "--image-root", str(UPLOADS), "--ls-config", str(LS_DATA / "pets.config.xml"),
                "--check-images"]) == 0
    said = capsys.readouterr().out
    assert "could not be shown: 0; 1 URLs" in said or export == "pets.min.json", said
    cells = _cells(out)
    assert cells["1"] == str((UPLOADS / "1" / "9f18796e-cat1.png").resolve())
    assert cells["3"] == str((UPLOADS / "1" / "f9fabb71-cat2.png").resolve())
    assert cells["4"].startswith("pets.triage.pictures/")
    with open_project(out) as project:
        assert [o.value for o in project.settings.labels] == ["Cat", "Dog", "Bird"]
    got = snapshot(out)
    assert got["2"][0] == hashlib.sha256(
        (UPLOADS / "1" / "fbd79195-dog1.png").read_bytes()).hexdigest()
    values = {k: sorted(v for _w, v, _s in labels) for k, (_p, _c, labels) in got.items()}
    want = {"1": ["Cat", "Cat"], "2": ["Dog"], "3": ["Cat"], "4": ["Bird"], "5": [None]}
    if export == "pets.min.json":   # JSON_MIN leaves skips and the skip-only task out
        want.pop("5")
    assert values == want


def test_triage_pictures_through_a_real_label_studio_and_back(tmp_path):
    """pets.roundtrip.json: Label Studio's export of the tasks Triage exported (pictures
    embedded) from pets.snapshot.json; imported back it is the same project."""
    first = tmp_path / "first.triage"
    assert cli(["new", str(first), str(LS_DATA / "pets.snapshot.json"), "--from",
                "labelstudio", "--image-root", str(UPLOADS)]) == 0
    again = tmp_path / "again.triage"
    assert cli(["new", str(again), str(LS_DATA / "pets.roundtrip.json"), "--from",
                "labelstudio"]) == 0
    assert snapshot(again) == snapshot(first)
    assert len(list(pictures_folder(again).iterdir())) == 4


def test_a_failed_import_leaves_no_pictures_behind(tmp_path, monkeypatch, capsys):
    from triage.base.errors import TriageError
    from triage.ingest import exchange as ingest_exchange

    src = PRODIGY_DATA / "images_binary.jsonl"

    def broken(*_args, **_kwargs):
        raise TriageError("the disk is full")

    monkeypatch.setattr(ingest_exchange, "write_labels", broken)
    out = tmp_path / "pets.triage"
    assert cli(["new", str(out), str(src), "--from", "prodigy"]) == 2
    assert "the disk is full" in capsys.readouterr().err
    assert not out.exists() and not pictures_folder(out).exists()


def test_prodigy_image_manual_boxes_are_refused_in_words(tmp_path, capsys):
    image = _uri(png(tmp_path / "ok.png", (1, 2, 3)).read_bytes())
    box = {"image": image, "answer": "accept", "width": 64, "height": 48, "spans": [
        {"label": "CAT", "points": [[1, 1], [1, 9], [9, 9], [9, 1]], "type": "rect"}]}
    src = tmp_path / "boxes.jsonl"
    src.write_text(json.dumps(box) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert cli(["new", str(tmp_path / "b.triage"), str(src), "--from", "prodigy"]) == 2
    err = capsys.readouterr().err
    assert f"{src}:1: a task with spans and no label or accept (image.manual boxes" in err
