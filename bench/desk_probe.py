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

With ``--lead``, once the keys have stopped the lead window is opened (as Ctrl+L does) and
it also reports ``lead_shown_ms`` (the call that opens it), ``lead_tabs_s`` (opening ->
every tab showing its figures; the Models tab shows its metrics, curves and gain, its value
tables and permutation p-values may still be coming), ``lead_value_s`` (-> the value tables
and calibration shown too), ``lead_done_s`` (-> nothing left computing, p-values included,
if within ``--lead-wait``) and ``lead_stall_ms`` (the longest gap while the window fills).

``--trace-stalls MS`` prints where the GUI thread was whenever the event loop has been busy
for more than MS milliseconds (a sampling thread reads its stack), to find the cause.

The parent compiles the sources to bytecode first, as an installed copy has them (with
``PYTHONDONTWRITEBYTECODE`` set, every start would otherwise compile ~80 modules), and
the child loads Qt only when ``main`` does, so import order is the application's own.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/desk_probe.py PROJECT [--rate 30]
        [--seconds 10] [--lead] [--trace-stalls 30] [--profile out.prof] [--train]
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
# The Models tab's later steps: its first figures (metrics, curves, gain) fill the tab; the
# value tables and calibration, then the permutation tests, follow into it.
LATER = {"models-value", "models-pvalues"}


def process_start() -> float:
    """Wall-clock time at which this process was created (from /proc, else psutil).

    Read directly rather than through psutil, whose import (a few hundredths of a second)
    would otherwise be counted as the desk's start-up time."""
    try:
        with open("/proc/self/stat") as stat:
            after_name = stat.read().rsplit(")", 1)[1].split()
        ticks = int(after_name[19])  # field 22, starttime: clock ticks after boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
        return time.time() - age
    except (OSError, ValueError, IndexError, AttributeError):
        pass
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


def when_imported(module: str, then) -> None:
    """Call ``then(module)`` right after the application first imports ``module``."""
    import importlib.abc
    import importlib.util

    class Hook(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != module:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            run = spec.loader.exec_module

            def exec_module(mod):
                run(mod)
                then(mod)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, Hook())


def start_watchdog(tick):
    """A running 5 ms precise timer that calls ``tick``: a gap much longer is a stall."""
    from PySide6.QtCore import Qt, QTimer

    watchdog = QTimer()
    watchdog.setTimerType(Qt.TimerType.PreciseTimer)
    watchdog.timeout.connect(tick)
    watchdog.start(5)
    return watchdog


def stall_tracer(ticks: list[float], limit_ms: float):
    """A thread that prints the GUI thread's stack when the loop has not ticked for a while."""
    import threading
    import traceback

    main_id = threading.get_ident()
    reported: set[float] = set()
    names = {t.ident: t.name for t in threading.enumerate()}

    def watch() -> None:
        while True:
            time.sleep(limit_ms / 4000)
            if not ticks:
                continue
            last = ticks[-1]
            late = (time.time() - last) * 1000
            if late > limit_ms and last not in reported:
                reported.add(last)
                names.update({t.ident: t.name for t in threading.enumerate()})
                frames = sys._current_frames()
                frame = frames.get(main_id)
                stack = "".join(traceback.format_stack(frame, limit=12)) if frame else "?"
                # The GUI thread may be inside Qt waiting for the interpreter lock: say
                # where every other thread was too (the holder is among them).
                others = "".join(
                    f"  [{names.get(ident, ident)}] " + " < ".join(
                        f"{Path(f.filename).name}:{f.lineno} {f.name}"
                        for f in reversed(traceback.extract_stack(other, limit=int(os.environ.get("PROBE_DEPTH", "4"))))) + "\n"
                    for ident, other in frames.items()
                    if ident not in (main_id, threading.get_ident()))
                print(f"STALL {late:.0f} ms at t={last - ticks[0]:.2f} s:\n{stack}"
                      f" other threads:\n{others}", file=sys.stderr, flush=True)

    threading.Thread(target=watch, daemon=True, name="stall-tracer").start()


def child(args: argparse.Namespace) -> int:  # long: one closure per probe phase
    """Run the real desk with the watchdog and the key sender; print one JSON line."""
    started = process_start()
    sys.path.insert(0, str(ROOT))
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    ticks: list[float] = []
    result: dict[str, object] = {}
    state: dict[str, object] = {"first": None, "presses": [], "key_ticks_from": None}
    qt: dict[str, object] = {}

    def find_window():
        for widget in qt["QApplication"].topLevelWidgets():
            if getattr(widget, "desk", None) is not None and widget.isVisible():
                return widget
        return None

    def find_desk():
        window = find_window()
        return window.desk if window is not None else None

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
                qt["QTimer"].singleShot(int(args.warmup * 1000), start_keys)
        lead = state.get("lead")
        if lead is not None:
            pending = lead.pending_tabs()
            filled = state.setdefault("lead_filled", {})
            seen = lead.schedule.filled | {f"{v} view" for v in lead.schedule.built}
            for tab in seen - set(filled):   # when each tab filled, each chart view built
                filled[tab] = round(now - state["lead_from"], 3)
            if not (pending - LATER) and "lead_tabs" not in state:
                state["lead_tabs"] = now
            if not (pending - {"models-pvalues"}) and "lead_value" not in state:
                state["lead_value"] = now
            if not pending and "lead_done" not in state:
                state["lead_done"] = now
                qt["QTimer"].singleShot(200, finish)

    def start_keys() -> None:
        from PySide6.QtCore import QElapsedTimer, Qt
        from PySide6.QtTest import QTest

        desk = find_desk()
        labels = [o.key for o in desk.project.settings.labels]
        state["key_ticks_from"] = time.time()
        interval = int(1000 / args.rate)
        count = {"n": 0}
        sender = qt["QTimer"]()
        sender.setTimerType(Qt.TimerType.PreciseTimer)
        timer_clock = QElapsedTimer()
        timer_clock.start()

        def press() -> None:
            n = count["n"]
            if time.time() - state["key_ticks_from"] >= args.seconds:
                sender.stop()
                state["keys_until"] = time.time()
                qt["QTimer"].singleShot(200, open_lead if args.lead else finish)
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

    def open_lead() -> None:
        window = find_window()
        state["lead_from"] = time.time()
        window.show_lead_view()
        state["lead_shown"] = time.time()
        state["lead"] = window.lead_view
        qt["QTimer"].singleShot(int(args.lead_wait * 1000), finish)

    def gaps(since: float, until: float | None = None) -> list[float]:
        return [(b - a) * 1000 for a, b in zip(ticks, ticks[1:])
                if a >= since and (until is None or a <= until)]

    def finish() -> None:
        import psutil

        if state.get("finished"):
            return
        state["finished"] = True
        first = state["first"]
        keys_from = state["key_ticks_from"] or time.time()
        gaps_start = [(b - a) * 1000 for a, b in zip(ticks, ticks[1:]) if a - ticks[0] <= 3.0]
        result.update({
            "loop_s": round(ticks[0] - started, 3),
            "first_candidate_s": round(first - started, 3) if first else None,
            "stall_start_ms": round(max(gaps_start, default=0.0), 1),
            "stall_keys_ms": round(max(gaps(keys_from, state.get("keys_until")),
                                       default=0.0), 1),
            "presses": len(state["presses"]),
            "press_ms": _percentiles(state["presses"]),
        })
        if "lead_from" in state:
            since = state["lead_from"]

            def after(key: str) -> float | None:
                return round(state[key] - since, 3) if key in state else None

            result.update({
                "lead_shown_ms": round((state["lead_shown"] - since) * 1000, 1),
                "lead_tabs_s": after("lead_tabs"), "lead_value_s": after("lead_value"),
                "lead_done_s": after("lead_done"),
                "lead_pending": sorted(state["lead"].pending_tabs()),
                "lead_filled_s": state.get("lead_filled", {}),
                "lead_stall_ms": round(max(gaps(since), default=0.0), 1),
            })
        result["rss_mb"] = round(psutil.Process().memory_info().rss / 2**20, 1)
        # Peak resident memory of this process: VmHWM (ru_maxrss would carry over the
        # parent's peak across fork and exec).
        try:
            with open("/proc/self/status") as status:
                hwm = [line.split()[1] for line in status if line.startswith("VmHWM:")]
            result["peak_rss_mb"] = round(int(hwm[0]) / 1024, 1)
        except (OSError, IndexError, ValueError):
            result["peak_rss_mb"] = None
        print("PROBE " + json.dumps(result), flush=True)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        from ui.advice_process import stop_helper

        for helper in ("advice", "lead"):  # os._exit skips multiprocessing's own clean-up
            try:
                stop_helper(helper)
            except Exception:  # noqa: BLE001 - an older tree has one helper only
                stop_helper()
        os._exit(0)  # skip the window's close-time work: it is not what we measure

    def patch(widgets) -> None:
        from PySide6.QtCore import QTimer

        qt["QApplication"], qt["QTimer"] = widgets.QApplication, QTimer
        original_exec = widgets.QApplication.exec

        def exec_with_probe(*a, **k):
            watchdog = start_watchdog(tick)  # noqa: F841 - kept alive while the loop runs
            QTimer.singleShot(0, tick)
            QTimer.singleShot(int((args.seconds + args.warmup + args.lead_wait + 30) * 1000),
                              finish)
            if args.trace_stalls:
                stall_tracer(ticks, args.trace_stalls)
            return original_exec()

        widgets.QApplication.exec = exec_with_probe

    # Qt is patched when the application imports it, not before: the probe must not change
    # the order in which the desk loads its modules.
    when_imported("PySide6.QtWidgets", patch)
    if profiler is not None:
        profiler.enable()
    import main

    return main.main([args.project, "--annotator", args.annotator])


def compile_sources() -> None:
    """Write the bytecode of the application's modules, as an installed copy has it."""
    import compileall

    for folder in ("triage", "ui"):
        compileall.compile_dir(ROOT / folder, quiet=1)
    compileall.compile_file(ROOT / "main.py", quiet=1)


def run_probe(project: str, *, rate: float = 30.0, seconds: float = 10.0,
              warmup: float = 3.0, lead: bool = False, lead_wait: float = 30.0,
              trace_stalls: float = 0.0, train: bool = False) -> dict:
    """Start the probe child on ``project`` and return its figures (``train``: see --train)."""
    compile_sources()
    trainer = subprocess.Popen([sys.executable, str(ROOT / "bench/bench_cal_trainer.py"), project],
                               stdout=subprocess.PIPE, text=True) if train else None
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    extra = ["--lead", "--lead-wait", str(lead_wait)] if lead else []
    if trace_stalls:
        extra += ["--trace-stalls", str(trace_stalls)]
    try:
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", project, "--rate", str(rate),
             "--seconds", str(seconds), "--warmup", str(warmup), *extra],
            capture_output=True, text=True, env=env, cwd=ROOT,
            timeout=180 + seconds + warmup + lead_wait)
    finally:
        if trainer is not None:
            trainer.terminate()
            fits = trainer.communicate()[0].count("fit:")
    if trace_stalls:
        print(out.stderr, file=sys.stderr)
    for line in out.stdout.splitlines():
        if line.startswith("PROBE "):
            return {**json.loads(line[6:]), **({"fits": fits} if trainer else {})}
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
    parser.add_argument("--lead", action="store_true",
                        help="after the keys, open the lead window and time its tabs")
    parser.add_argument("--lead-wait", type=float, default=30.0,
                        help="seconds to wait for the lead window to finish computing")
    parser.add_argument("--trace-stalls", type=float, default=0.0, metavar="MS",
                        help="print the GUI thread's stack when the loop is busy > MS ms")
    parser.add_argument("--train", action="store_true",
                        help="a cal trainer fits the project over and over meanwhile")
    args = parser.parse_args()
    if args.child or args.profile:
        return child(args)
    print(json.dumps(run_probe(args.project, rate=args.rate, seconds=args.seconds,
                               warmup=args.warmup, lead=args.lead, lead_wait=args.lead_wait,
                               trace_stalls=args.trace_stalls, train=args.train), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
