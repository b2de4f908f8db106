"""Make the genuine Label Studio image exports under tests/data/labelstudio/ (run by hand).

Starts Label Studio from a separate venv on 127.0.0.1 (see ``labelstudio_live.py``), makes
an image classification project (Label Studio's template: ``<Image name="image"
value="$image"/>`` with ``<Choices toName="image">``), uploads three small PNG files (Label
Studio stores them under its ``media/upload/<project>/`` and the tasks point at
``/data/upload/<project>/<prefix>-<name>``), imports two more tasks whose ``image`` is a
base64 data URI and an http URL with a model's predictions, annotates through the API
(one skip), and writes what the export API returns, unchanged: JSON and JSON_MIN. The
uploaded files are copied beside them (``pets.media/upload/…``), so ``--image-root`` can
be tested against the real layout. Then the round trip: Triage makes a project of that
export, exports it for Label Studio with its pictures embedded (data URIs), a second Label
Studio project imports those tasks, and its JSON export is ``pets.roundtrip.json``.

    python scripts/labelstudio_image_fixtures.py --venv /tmp/ls-venv --out tests/data/labelstudio
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "data" / "prodigy"))
from derive_images import png  # noqa: E402
from labelstudio_live import TOKEN, LabelStudio, write_fixtures  # noqa: E402

PETS_CONFIG = """<View>
  <Image name="image" value="$image"/>
  <Choices name="choice" toName="image">
    <Choice value="Cat"/>
    <Choice value="Dog"/>
    <Choice value="Bird"/>
  </Choices>
</View>
"""

UPLOADS = {"cat1.png": (200, 40, 40), "dog1.png": (40, 40, 200), "cat2.png": (220, 90, 60)}


def upload(ls: LabelStudio, project: int, files: dict[str, bytes]) -> dict:
    """Upload picture files as new tasks (multipart, as the import dialog does)."""
    boundary = uuid.uuid4().hex
    body = b""
    for name, data in files.items():
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; "
                 f"filename=\"{name}\"\r\nContent-Type: image/png\r\n\r\n").encode() + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        f"{ls.url}/api/projects/{project}/import", data=body, method="POST",
        headers={"Authorization": f"Token {TOKEN}",
                 "Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def choice(value: str) -> dict:
    """One choices result about the picture."""
    return {"from_name": "choice", "to_name": "image", "type": "choices",
            "value": {"choices": [value]}}


def pets(ls: LabelStudio, users: list[int], out: Path, data_dir: Path) -> None:
    """The image project: uploads, a data URI and a URL task, annotations, exports."""
    project = ls.project("Pets (image classification)", PETS_CONFIG)
    upload(ls, project, {name: png(colour) for name, colour in UPLOADS.items()})
    bird = "data:image/png;base64," + base64.b64encode(png((30, 160, 30))).decode("ascii")
    ls.import_tasks(project, [
        {"data": {"image": bird}, "predictions": [
            {"model_version": "pets-v1", "score": 0.83, "result": [choice("Bird")]}]},
        {"data": {"image": "http://127.0.0.1:9/pets/dog2.jpg"}, "predictions": [
            {"model_version": "pets-v1", "score": 0.64, "result": [choice("Dog")]}]}])
    tasks = ls.get(f"/api/tasks/?project={project}&page_size=100")["tasks"]
    ids = [t["id"] for t in sorted(tasks, key=lambda t: t["id"])]
    plan = [(0, 0, "Cat", 2.1), (0, 1, "Cat", 3.4), (1, 0, "Dog", 1.7), (2, 1, "Cat", 2.2),
            (3, 0, "Bird", 4.0), (4, 1, None, 1.0)]
    for task, who, label, seconds in plan:
        ls.post(f"/api/tasks/{ids[task]}/annotations/", {
            "result": [] if label is None else [choice(label)], "completed_by": users[who],
            "lead_time": seconds, "was_cancelled": label is None})
    (out / "pets.json").write_bytes(ls.export(project, "JSON"))
    (out / "pets.min.json").write_bytes(ls.export(project, "JSON_MIN"))
    (out / "pets.snapshot.json").write_bytes(ls.snapshot(project))
    (out / "pets.config.xml").write_text(PETS_CONFIG, encoding="utf-8")
    media = out / "pets.media" / "upload"
    shutil.rmtree(media, ignore_errors=True)
    shutil.copytree(data_dir / "media" / "upload", media)


def triage(*args: str) -> str:
    """Run the triage command line of this venv; its output (fails loudly)."""
    done = subprocess.run([str(Path(sys.executable).with_name("triage")), *args],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"triage {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def roundtrip(ls: LabelStudio, out: Path, work: Path) -> None:
    """Triage -> Label Studio -> file: the pets project, exported by Triage with its
    pictures embedded, imported into a new Label Studio project and exported again."""
    project_file = work / "pets.triage"
    triage("new", str(project_file), str(out / "pets.snapshot.json"), "--from", "labelstudio",
           "--image-root", str(out / "pets.media" / "upload"))
    tasks = work / "for-labelstudio.json"
    triage("export", str(project_file), str(tasks), "--to", "labelstudio", "--embed-pictures",
           *[f"--annotator-email={n}@example.org={n}@example.org" for n in ("ada", "bo")])
    project = ls.project("Pets from Triage",
                         tasks.with_suffix(".config.xml").read_text(encoding="utf-8"))
    answer = ls.import_tasks(project, json.loads(tasks.read_text(encoding="utf-8")))
    print("Label Studio import:", {k: answer.get(k) for k in (
        "task_count", "annotation_count", "prediction_count")})
    (out / "pets.roundtrip.json").write_bytes(ls.export(project, "JSON"))
    (out / "pets.roundtrip.config.xml").write_bytes(tasks.with_suffix(".config.xml").read_bytes())


def pets_and_roundtrip(ls: LabelStudio, users: list[int], out: Path, data_dir: Path) -> None:
    """The pets project and its exports, then the round trip through Triage."""
    pets(ls, users, out, data_dir)
    roundtrip(ls, out, Path(tempfile.mkdtemp(prefix="ls-pets-")))


def main() -> int:
    """Start Label Studio, make the project, write its exports, stop it."""
    return write_fixtures(__doc__, ("ada", "bo"), pets_and_roundtrip,
                          "Label Studio image exports")


if __name__ == "__main__":
    raise SystemExit(main())
