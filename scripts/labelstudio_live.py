"""Drive a local Label Studio (a separate venv, never a Triage dependency) over its HTTP API.

Used by ``scripts/labelstudio_fixtures.py`` and ``scripts/labelstudio_image_fixtures.py``
(which wrote tests/data/labelstudio/, through :func:`write_fixtures`) and
``scripts/labelstudio_roundtrip.py``. Standard library only. Label Studio is started on
127.0.0.1 with a fixed legacy token, in a throw-away data directory, and stopped by its
process id when done.

Install it once, apart from the project:
    python3 -m venv /tmp/ls-venv && /tmp/ls-venv/bin/pip install label-studio==1.23.2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
TOKEN = "0123456789abcdef0123456789abcdef01234567"  # a local, throw-away instance's token
ADMIN = "admin@example.org"

SENTIMENT_CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single" showInLine="true">
    <Choice value="Positive"/>
    <Choice value="Negative"/>
    <Choice value="Neutral"/>
  </Choices>
</View>
"""


class LabelStudio:
    """A running Label Studio on 127.0.0.1:``port``, reached with the admin's token."""

    def __init__(self, port: int, data_dir: Path, venv: Path) -> None:
        self.url = f"http://{HOST}:{port}"
        env = dict(os.environ, LABEL_STUDIO_BASE_DATA_DIR=str(data_dir),
                   LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN="true")
        data_dir.mkdir(parents=True, exist_ok=True)
        self.log = open(data_dir / "server.log", "w")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [str(venv / "bin" / "label-studio"), "start", "--no-browser", "--host", HOST,
             "--internal-host", HOST, "--port", str(port), "--username", ADMIN,
             "--password", "triage-local-pw", "--user-token", TOKEN],
            env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self._wait()

    def _wait(self, limit: float = 240.0) -> None:
        start = time.monotonic()
        while time.monotonic() - start < limit:
            if self.process.poll() is not None:
                raise RuntimeError(f"Label Studio exited ({self.process.returncode})")
            try:
                self.get("/api/users/")
                return
            except (urllib.error.URLError, ConnectionError, RuntimeError):
                time.sleep(2)
        raise RuntimeError("Label Studio did not answer in time")

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One API call; JSON in and out (raw bytes for non-JSON answers)."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Token {TOKEN}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as answer:
                raw = answer.read()
                kind = answer.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"{method} {path}: HTTP {error.code}: "
                               f"{error.read()[:2000]!r}") from error
        return json.loads(raw) if "json" in kind and not path.endswith("download") else raw

    def get(self, path: str) -> Any:
        """GET ``path``."""
        return self.request("GET", path)

    def post(self, path: str, body: Any) -> Any:
        """POST ``body`` to ``path``."""
        return self.request("POST", path, body)

    def user(self, email: str, first: str, last: str) -> int:
        """Create a user of the organization; returns its id."""
        made = self.post("/api/users/", {"email": email, "username": email,
                                         "first_name": first, "last_name": last})
        return int(made["id"])

    def project(self, title: str, config: str) -> int:
        """Create a project with ``config``; returns its id."""
        return int(self.post("/api/projects/", {"title": title, "label_config": config})["id"])

    def import_tasks(self, project: int, tasks: list[dict[str, Any]]) -> dict[str, Any]:
        """Import tasks (with their predictions and annotations) into ``project``."""
        answer: dict[str, Any] = self.post(f"/api/projects/{project}/import", tasks)
        return answer

    def export(self, project: int, kind: str) -> bytes:
        """Every task of ``project`` as Label Studio's export ``kind`` (JSON, JSON_MIN, CSV)."""
        raw = self.request("GET", f"/api/projects/{project}/export?exportType={kind}"
                           "&download_all_tasks=true")
        return raw if isinstance(raw, bytes) else json.dumps(raw).encode("utf-8")

    def snapshot(self, project: int) -> bytes:
        """A JSON export snapshot with full prediction objects and annotators as objects."""
        made = self.post(f"/api/projects/{project}/exports/", {
            "title": "full", "serialization_options": {
                "predictions": {"only_id": False},
                "annotations__completed_by": {"only_id": False}}})
        pk = made["id"]
        for _ in range(60):
            if self.get(f"/api/projects/{project}/exports/{pk}")["status"] == "completed":
                break
            time.sleep(1)
        raw = self.request("GET", f"/api/projects/{project}/exports/{pk}/download"
                           "?exportType=JSON")
        return raw if isinstance(raw, bytes) else json.dumps(raw).encode("utf-8")

    def stop(self) -> None:
        """Stop this Label Studio (its own process only)."""
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def write_fixtures(description: str | None, annotators: tuple[str, ...],
                   build: Callable[[LabelStudio, list[int], Path, Path], None],
                   what: str) -> int:
    """The fixture scripts' whole run: read their options (--venv, --out, --port), start
    Label Studio in a throw-away data folder, make one user per annotator, let ``build(ls,
    user ids, output folder, data folder)`` make the projects and write their exports, stop
    it, and say where ``what`` went."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--venv", type=Path, default=Path("/tmp/ls-venv"))
    parser.add_argument("--out", type=Path, default=Path("tests/data/labelstudio"))
    parser.add_argument("--port", type=int, default=8089)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    data_dir = Path(tempfile.mkdtemp(prefix="ls-data-"))
    ls = LabelStudio(args.port, data_dir, args.venv)
    try:
        users = [ls.user(f"{n}@example.org", n.title(), "Tester") for n in annotators]
        build(ls, users, args.out, data_dir)
    finally:
        ls.stop()
    print(f"wrote {what} to {args.out}")
    return 0
