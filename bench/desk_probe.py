"""Probe the real desk as a user starts it: ``main.py PROJECT`` in a fresh process, offscreen.

The child process runs ``main.main([PROJECT, --annotator, NAME])`` unchanged, except that
``QApplication.exec`` is wrapped: when the event loop starts, a 5 ms ``QTimer`` watchdog
records every tick (a gap much longer than 5 ms is a stall: the loop was busy), and after
a warm-up key presses arrive with ``QTest.keyClick`` at a fixed rate. It reports

- ``loop_s``: process start -> the event loop's first tick;
- ``first_candidate_s``: process start -> the first tick with a candidate on the desk
  (the window has been shown and the candidate set; the next paint is that tick);
- ``stall_start_ms``: the longest gap between watchdog ticks in the first 3 s;
- ``stall_keys_ms``: the longest gap while keys arrive;
- ``press_ms``: key press -> next candidate on the desk, p50/p95/p99/max;
- ``rss_mb``: resident memory at the end.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/desk_probe.py PROJECT [--rate 30]
        [--seconds 10] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _process_start() -> float:
    """Wall-clock time at which this process was created (from /proc, else now)."""
    try:
        import psutil

        return psutil.Process().create_time()
    except Exception:  # pragma: no cover - psutil is a test dependency
        return time.time()


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None, "p99": None, "max": None}
    ordered = sorted(values)

    def pick(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"p50": pick(0.50), "p95": pick(0.95), "p99": pick(0.99),
            "max": round(ordered[-1], 2)}


def child(args: argparse.Namespace) -> int:
    """Run the real desk with the watchdog and the key sender; print one JSON line."""
    started = _process_start()
    sys.path.insert(0, str(ROOT))
    from PySide6.QtCore import QElapsedTimer, Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    ticks: list[float] = []
    result: dict[str, object] = {}
    state: dict[str, object] = {"first": None, "presses": [], "key_ticks_from": None}
    original_exec = QApplication.exec

    def find_desk():
        for widget in QApplication.topLevelWidgets():
            desk = getattr(widget, "desk", None)
            if desk is not None and widget.isVisible():
                return desk
        return None

    def current_id(desk) -> int | None:
        item = getattr(desk, "current", None)
        return getattr(item, "candidate_id", None)

    def tick() -> None:
        now = time.time()
        ticks.append(now)
        if state["first"] is None:
            desk = find_desk()
            if desk is not None and current_id(desk) is not None:
                state["first"] = now
                QTimer.singleShot(int(args.warmup * 1000), start_keys)

    def start_keys() -> None:
        desk = find_desk()
        labels = [o.key for o in desk.project.settings.labels]
        state["key_ticks_from"] = time.time()
        interval = int(1000 / args.rate)
        count = {"n": 0}
        sender = QTimer()
        sender.setTimerType(Qt.TimerType.PreciseTimer)
        timer_clock = QElapsedTimer()
        timer_clock.start()

        def press() -> None:
            n = count["n"]
            if time.time() - state["key_ticks_from"] >= args.seconds:
                sender.stop()
                QTimer.singleShot(200, finish)
                return
            before = current_id(desk)
            key = labels[n % len(labels)]
            t0 = time.perf_counter()
            QTest.keyClick(desk, key)
            elapsed = (time.perf_counter() - t0) * 1000
            if current_id(desk) != before:
                state["presses"].append(elapsed)
            count["n"] = n + 1

        sender.timeout.connect(press)
        sender.start(interval)
        state["sender"] = sender

    def finish() -> None:
        import psutil

        first = state["first"]
        keys_from = state["key_ticks_from"]
        gaps_start = [(b - a) * 1000 for a, b in zip(ticks, ticks[1:]) if a - ticks[0] <= 3.0]
        gaps_keys = [(b - a) * 1000 for a, b in zip(ticks, ticks[1:]) if a >= keys_from]
        result.update({
            "loop_s": round(ticks[0] - started, 3),
            "first_candidate_s": round(first - started, 3) if first else None,
            "stall_start_ms": round(max(gaps_start, default=0.0), 1),
            "stall_keys_ms": round(max(gaps_keys, default=0.0), 1),
            "presses": len(state["presses"]),
            "press_ms": _percentiles(state["presses"]),
            "rss_mb": round(psutil.Process().memory_info().rss / 2**20, 1),
        })
        print("PROBE " + json.dumps(result), flush=True)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        os._exit(0)  # skip the window's close-time work: it is not what we measure

    def exec_with_probe(*a, **k):
        watchdog = QTimer()
        watchdog.setTimerType(Qt.TimerType.PreciseTimer)
        watchdog.timeout.connect(tick)
        watchdog.start(5)
        QTimer.singleShot(0, tick)
        QTimer.singleShot(int((args.seconds + args.warmup + 30) * 1000), finish)
        return original_exec()

    QApplication.exec = exec_with_probe  # type: ignore[method-assign]
    if profiler is not None:
        profiler.enable()
    import main

    return main.main([args.project, "--annotator", args.annotator])


def run_probe(project: str, *, rate: float = 30.0, seconds: float = 10.0,
              warmup: float = 3.0) -> dict:
    """Start the probe child on ``project`` and return its figures."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", project, "--rate", str(rate),
         "--seconds", str(seconds), "--warmup", str(warmup)],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=180)
    for line in out.stdout.splitlines():
        if line.startswith("PROBE "):
            return json.loads(line[6:])
    raise RuntimeError(f"probe failed:\n{out.stdout}\n{out.stderr}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project")
    parser.add_argument("--rate", type=float, default=30.0, help="key presses per second")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long keys arrive")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds between the first candidate and the first key")
    parser.add_argument("--annotator", default="probe")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--profile", help="write a cProfile of the child to this file")
    args = parser.parse_args()
    if args.child or args.profile:
        return child(args)
    print(json.dumps(run_probe(args.project, rate=args.rate, seconds=args.seconds,
                               warmup=args.warmup), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
