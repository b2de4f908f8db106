"""Probe the desk on a pool of pictures: key → next picture on screen, with the prefetch.

Makes N distinct JPEGs of about WIDTH × HEIGHT (smooth gradients with noise, so they
compress like photographs), a pool of them (``triage new --image``), opens the real main
window offscreen, lets it settle for 3 s (the live panels load) and presses a label key every ``1/rate`` seconds. For each press it
records how long until the *next picture* is on screen (decoded and in the view, not a
placeholder), the longest gap of a 5 ms watchdog timer (a stall of the GUI thread), and
the resident memory at the end. Not a test: figures vary with the machine and its load.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/picture_probe.py [--n 300]
        [--size 1600x1200] [--rate 4] [--folder /tmp/picture-probe]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def make_pool(folder: Path, n: int, size: tuple[int, int]) -> Path:
    """N JPEGs and pool.csv in ``folder`` (kept between runs)."""
    from PIL import Image

    (folder / "img").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    w, h = size
    ramp = np.linspace(0, 200, w, dtype=np.float32)[None, :, None]
    with open(folder / "pool.csv", "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["picture", "score"])
        for i in range(n):
            path = folder / "img" / f"{i:05d}.jpg"
            if not path.exists():
                noise = rng.normal(0, 12, (h, w, 3)).astype(np.float32)
                tint = np.array([(i * 37) % 55, (i * 11) % 55, (i * 5) % 55], np.float32)
                pixels = np.clip(ramp + tint + noise, 0, 255).astype(np.uint8)
                Image.fromarray(pixels).save(path, quality=88)
            out.writerow([f"img/{i:05d}.jpg", f"{1 - i / n:.6f}"])
    return folder / "pool.csv"


def probe(project: Path, keys: int, rate: float) -> dict[str, float]:
    """Press ``keys`` label keys at ``rate`` per second; the figures."""
    import psutil
    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from ui.main_window import MainWindow
    from ui.prefs import Prefs

    app = QApplication.instance() or QApplication(sys.argv[:1])
    started = time.perf_counter()
    window = MainWindow(Prefs())
    window.open_project(project, "probe")
    window.resize(1366, 768)
    window.show()
    desk = window.desk
    gaps: list[float] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def tick() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    watchdog = QTimer()
    watchdog.setInterval(5)
    watchdog.timeout.connect(tick)
    watchdog.start()

    def on_screen() -> bool:
        view = desk.picture.view if desk.picture is not None else None
        return view is not None and view.image is not None

    while not on_screen():
        app.processEvents()
    first = time.perf_counter() - started
    warm_until = time.perf_counter() + 3.0  # the live panels load after the first candidate
    while time.perf_counter() < warm_until:
        app.processEvents()
    waits: list[float] = []
    gaps.clear()
    for _ in range(keys):
        pause_until = time.perf_counter() + 1 / rate
        while time.perf_counter() < pause_until:
            app.processEvents()
        t0 = time.perf_counter()
        QTest.keyClick(desk, "d")
        while not on_screen():
            app.processEvents()
        waits.append((time.perf_counter() - t0) * 1000)
    figures = {"first_picture_s": round(first, 3), "keys": keys, "rate_per_s": rate,
               "next_picture_ms_p50": round(float(np.percentile(waits, 50)), 1),
               "next_picture_ms_p99": round(float(np.percentile(waits, 99)), 1),
               "next_picture_ms_max": round(max(waits), 1),
               "longest_stall_ms": round(max(gaps[1:] or [0]), 1),
               "rss_mb": round(psutil.Process().memory_info().rss / 2**20)}
    window.close()
    return figures


def main() -> None:
    """Command line (see the module's docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--size", default="1600x1200")
    p.add_argument("--rate", type=float, default=4.0)
    p.add_argument("--folder", type=Path, default=Path("/tmp/picture-probe"))
    args = p.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    pool = make_pool(args.folder, args.n, (w, h))
    project = args.folder / "p.triage"
    for leftover in args.folder.glob("p.triage*"):
        leftover.unlink()
    subprocess.run([sys.executable, "-m", "triage.cli", "new", str(project), str(pool),
                    "--image", "picture", "--score", "m=score", "--labels", "defect:d,fine:f",
                    "--overlap-rate", "0", "--audit-rate", "0"], check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL)
    print(json.dumps(probe(project, min(args.n - 1, 200), args.rate), indent=1))


if __name__ == "__main__":
    main()
