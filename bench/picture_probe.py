"""Probe the desk on a million-row pool of local JPEGs, against the same pool as text.

The parent makes ``--files`` distinct JPEGs of 1 to 4 megapixels (smooth gradients with
noise, so they compress like photographs; sizes cycle 1152×864, 1600×1200, 2048×1536,
2304×1728) and a pool of ``--rows`` rows (``key,image,score``: distinct keys, row *i*
points at file *i* mod ``--files``, scores fall with *i*, so the desk serves the rows in
file order and no file comes round twice within ``--files`` presses). The desk's picture
cache is keyed by the file, so with more presses than files a repeat would be a cache hit:
the probe stops at ``--files`` − 20 presses. The same rows as text (``key,text,score``)
give the text figures.

Each pool is imported with ``triage new`` (untimed) and copied fresh for every run. A
child process (offscreen) starts the real program on it, ``main.main([PROJECT,
--annotator, probe])``, as ``bench/desk_probe.py`` does: its own start-up (the project
opened on a thread while Qt loads) and interpreter settings. The child reports

- ``first_s``: process start → the first candidate *painted* (the picture, not the
  "Loading" placeholder; for text, the text);
- ``press_ms``: label key press → the next candidate painted (the end of the paint that
  first shows it), p50/p99/max, keys sent every ``1/--rate`` s after a 3 s warm-up; and
  ``in_key_handler_ms``, the part spent in the key's handler (the label's commit with its
  fsync, the next candidate looked up and set); ``gui_cpu_ms``, the GUI thread's own CPU
  time from the press to the paint (what the desk costs, whatever else runs on the
  machine: the rest of ``press_ms`` is waiting, for the disk, a core or the interpreter
  lock); ``slowest_presses`` lists the five slowest as (press, in the handler, GUI CPU);
- ``stall_ms``: the longest gap of a 5 ms watchdog timer while the keys arrive (the GUI
  thread was busy), and ``stall_start_ms`` over the first 3 s;
- ``rss_mb`` at the end and ``peak_rss_mb`` (VmHWM).

Not a test: figures vary with the machine and its load.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/picture_probe.py [--rows 1000000]
        [--files 300] [--rate 4] [--folder /tmp/picture-probe] [--only pictures|text]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from desk_probe import compile_sources, process_start, stall_tracer, start_watchdog, when_imported  # noqa: E402

SIZES = ((1152, 864), (1600, 1200), (2048, 1536), (2304, 1728))  # 1.0 to 4.0 megapixels


def make_files(folder: Path, files: int) -> None:
    """``files`` JPEGs in ``folder/img`` (kept between runs)."""
    from PIL import Image

    (folder / "img").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    for i in range(files):
        path = folder / "img" / f"{i:05d}.jpg"
        if path.exists():
            continue
        w, h = SIZES[i % len(SIZES)]
        ramp = np.linspace(0, 200, w, dtype=np.float32)[None, :, None]
        noise = rng.normal(0, 12, (h, w, 3)).astype(np.float32)
        tint = np.array([(i * 37) % 55, (i * 11) % 55, (i * 5) % 55], np.float32)
        Image.fromarray(np.clip(ramp + tint + noise, 0, 255).astype(np.uint8)).save(
            path, quality=88)


def make_pools(folder: Path, rows: int, files: int) -> dict[str, Path]:
    """pictures.csv and text.csv of ``rows`` rows (kept when already that long)."""
    pools = {"pictures": folder / f"pictures-{rows}-{files}.csv",
             "text": folder / f"text-{rows}.csv"}
    words = ("the", "crack", "near", "weld", "seam", "looks", "fine", "under", "glare")
    if not pools["pictures"].exists():
        with open(pools["pictures"], "w", newline="") as handle:
            out = csv.writer(handle)
            out.writerow(["key", "image", "score"])
            for i in range(rows):
                out.writerow([f"p{i}", f"img/{i % files:05d}.jpg", f"{1 - i / rows:.7f}"])
    if not pools["text"].exists():
        with open(pools["text"], "w", newline="") as handle:
            out = csv.writer(handle)
            out.writerow(["key", "text", "score"])
            for i in range(rows):
                text = " ".join(words[(i * k) % len(words)] for k in range(3, 15))
                out.writerow([f"p{i}", f"{i}: {text}", f"{1 - i / rows:.7f}"])
    return pools


def build(pool: Path, project: Path, kind: str) -> None:
    """``triage new`` of the pool (once; each run works on a fresh copy)."""
    if project.exists():
        return
    column = ["--image", "image"] if kind == "pictures" else ["--text", "text"]
    subprocess.run([sys.executable, "-m", "triage.cli", "new", str(project), str(pool),
                    *column, "--key", "key", "--score", "m=score",
                    "--labels", "defect:d,fine:f", "--overlap-rate", "0",
                    "--audit-rate", "0"], check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL)


def pct(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank), None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, max(0, int(np.ceil(q / 100 * len(ordered)))
                                                     - 1))], 1)


def child(project: Path, kind: str, keys: int, rate: float,  # long: the probe's phases
          trace_ms: float = 0.0) -> None:
    """Run the real desk (``main.main``) on ``project``, press ``keys`` label keys; print
    one PROBE line.

    As in ``desk_probe``, the application starts unchanged (its own start-up: the project
    opened on a thread while Qt loads, its interpreter settings): the probe patches the
    candidate's paint, the window's first ``show`` (to a 1366×768 window) and
    ``QApplication.exec`` (the watchdog and the key sender) as the application imports
    them, so its modules load in their own order."""
    started = process_start()
    sys.path.insert(0, str(ROOT))
    profiler = None
    if os.environ.get("PROBE_PROFILE"):  # where the key handler's time goes (cProfile)
        import cProfile

        profiler = cProfile.Profile()
    ticks: list[float] = []
    state: dict = {"first": None, "pending": None, "waits": [], "missed": 0, "sent": 0,
                   "sync": [], "cpu": [], "each": []}
    shown: dict = {}

    def painted(widget) -> None:
        desk = state.get("desk")
        if desk is None or desk.current is None:
            return
        if kind == "pictures" and getattr(widget, "image", None) is None:
            return
        now = time.perf_counter()
        if state["first"] is None:
            state["first"] = time.time()
            shown["QTimer"].singleShot(3000, start_keys)
        pending = state["pending"]
        if pending is not None and desk.current.candidate_id != pending[1]:
            state["waits"].append((now - pending[0]) * 1000)
            state["cpu"].append((time.thread_time() - pending[2]) * 1000)
            state["each"].append((round(state["waits"][-1], 1), round(state["sync"][-1], 1),
                                  round(state["cpu"][-1], 1)))
            state["pending"] = None

    def wrap_paint(cls) -> None:
        original = cls.paintEvent

        def paint(self, event):
            original(self, event)
            painted(self)
        cls.paintEvent = paint

    def wrap_show(module) -> None:
        original = module.MainWindow.show

        def show(self):
            if "window" not in shown:
                shown["window"] = self
                state["desk"] = self.desk
                self.resize(1366, 768)
            original(self)
        module.MainWindow.show = show

    def tick() -> None:
        ticks.append(time.time())

    def press() -> None:
        from PySide6.QtTest import QTest

        desk = state["desk"]
        if state["pending"] is not None:
            state["missed"] += 1  # not painted within the interval: counted as the interval
            state["waits"].append((time.perf_counter() - state["pending"][0]) * 1000)
            state["pending"] = None
        if state["sent"] >= keys or desk.current is None:
            shown["sender"].stop()
            finish()
            return
        state["sent"] += 1
        t0 = time.perf_counter()
        state["pending"] = (t0, desk.current.candidate_id, time.thread_time())
        if profiler is not None:
            profiler.enable()
        QTest.keyClick(desk, "d" if state["sent"] % 3 else "f")
        if profiler is not None:
            profiler.disable()
        state["sync"].append((time.perf_counter() - t0) * 1000)  # commit + next, in the key

    def start_keys() -> None:
        state["keys_from"] = time.time()
        shown["sender"].timeout.connect(press)
        shown["sender"].start(int(1000 / rate))

    def finish() -> None:
        import psutil

        since = state.get("keys_from", float("inf"))
        gaps = [(b - a) * 1000 for a, b in zip(ticks, ticks[1:]) if a >= since]
        start_gaps = [(b - a) * 1000 for a, b in zip(ticks, ticks[1:]) if a < since]
        with open("/proc/self/status") as status:
            hwm = [line.split()[1] for line in status if line.startswith("VmHWM:")]
        waits = state["waits"]
        result = {"kind": kind,
                  "first_s": round(state["first"] - started, 3) if state["first"] else None,
                  "presses": len(waits), "missed": state["missed"],
                  "press_ms": {"p50": pct(waits, 50), "p99": pct(waits, 99),
                               "max": round(max(waits), 1) if waits else None},
                  "in_key_handler_ms": {"p50": pct(state["sync"], 50),
                                        "p99": pct(state["sync"], 99)},
                  "gui_cpu_ms": {"p50": pct(state["cpu"], 50), "p99": pct(state["cpu"], 99)},
                  "slowest_presses": sorted(state["each"], reverse=True)[:5],
                  "stall_ms": round(max(gaps, default=0.0), 1),
                  "stall_start_ms": round(max(start_gaps, default=0.0), 1),
                  "rss_mb": round(psutil.Process().memory_info().rss / 2**20),
                  "peak_rss_mb": round(int(hwm[0]) / 1024)}
        print("PROBE " + json.dumps(result), flush=True)
        if profiler is not None:
            profiler.dump_stats(os.environ["PROBE_PROFILE"])
        from ui.advice_process import stop_helper

        for helper in ("advice", "lead", "models"):  # os._exit skips their clean-up
            stop_helper(helper)
        os._exit(0)  # the window's close-time work is not what is measured

    def patch_exec(widgets) -> None:
        from PySide6.QtCore import Qt, QTimer

        shown["QTimer"] = QTimer
        original_exec = widgets.QApplication.exec

        def exec_with_probe(*a, **k):
            shown["watchdog"] = start_watchdog(tick)
            sender = QTimer()
            sender.setTimerType(Qt.TimerType.PreciseTimer)
            shown["sender"] = sender
            QTimer.singleShot(120_000, finish)
            if trace_ms:
                stall_tracer(ticks, trace_ms)
            return original_exec()

        widgets.QApplication.exec = exec_with_probe

    view = ("ui.candidate_picture", "PictureView") if kind == "pictures" else (
        "ui.candidate_text", "CandidateText")
    when_imported(view[0], lambda module: wrap_paint(getattr(module, view[1])))
    when_imported("ui.main_window", wrap_show)
    when_imported("PySide6.QtWidgets", patch_exec)
    import main

    main.main([str(project), "--annotator", "probe"])


def run(project: Path, kind: str, keys: int, rate: float, trace_ms: float = 0.0) -> dict:
    """One child process on a fresh copy of ``project``."""
    copy = project.with_name(f"run-{project.name}")
    for leftover in project.parent.glob(f"run-{project.name}*"):
        leftover.unlink()
    shutil.copyfile(project, copy)
    out = subprocess.run([sys.executable, __file__, "--child", str(copy), "--kind", kind,
                          "--keys", str(keys), "--rate", str(rate),
                          "--trace-stalls", str(trace_ms)], capture_output=True,
                         text=True, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
                         check=False)
    lines = [line for line in out.stdout.splitlines() if line.startswith("PROBE ")]
    if not lines or trace_ms:
        print(out.stderr[-20000:], file=sys.stderr)
    if not lines:
        raise SystemExit("the probe failed")
    return json.loads(lines[-1][6:])


def main() -> None:
    """Command line (see the module's docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--files", type=int, default=300)
    p.add_argument("--rate", type=float, default=4.0)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--only", choices=("pictures", "text"))
    p.add_argument("--folder", type=Path, default=Path("/tmp/picture-probe"))
    p.add_argument("--child", type=Path)
    p.add_argument("--kind", default="pictures")
    p.add_argument("--keys", type=int, default=0)
    p.add_argument("--trace-stalls", type=float, default=0.0, metavar="MS",
                   help="print where the GUI thread was when it stalled longer than MS")
    args = p.parse_args()
    if args.child:
        child(args.child, args.kind, args.keys, args.rate, args.trace_stalls)
        return
    compile_sources()
    make_files(args.folder, args.files)
    pools = make_pools(args.folder, args.rows, args.files)
    keys = args.keys or max(1, args.files - 20)
    kinds = [k for k in ("pictures", "text") if not args.only or k == args.only]
    projects = {k: args.folder / f"{k}-{args.rows}-{args.files}.triage" for k in kinds}
    for kind in kinds:
        build(pools[kind], projects[kind], kind)
    for _ in range(args.repeat):  # the kinds in turn, so both see the same load
        for kind in kinds:
            print(json.dumps(run(projects[kind], kind, keys, args.rate, args.trace_stalls)),
                  flush=True)


if __name__ == "__main__":
    main()
