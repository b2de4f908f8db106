"""What each start-up policy of ``triage.base.startup`` saves, timed as whole processes.

    python -m bench.bench_startup [--work DIR] [--rows 1000000] [--labels 10000] [--repeat 5]

For each command (``status``, ``advise`` and ``agree`` on the project ``bench/bench_report.py``
builds) and each policy, runs ``triage`` with every policy on and with that one off, taking
turns, and prints the median wall and CPU seconds of each and the median of the per-turn
ratios (off / on: above 1 means the policy saves time). CPU seconds are the process's own
(user + system), steadier than wall time on a loaded machine. The desk's collector policy
(freeze after the window is up) shows in ``bench/desk_probe.py``, not here.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ("status", "advise", "agree")
DRIVER = ("import sys; sys.path.insert(0, {root!r}); from triage.base import startup; "
          "startup.ENABLED.update({{k: False for k in {off!r}}}); import main; "
          "sys.argv = ['triage', *{argv!r}]; sys.exit(main.main())")


def run(argv: list[str], off: tuple[str, ...]) -> tuple[float, float]:
    """Wall and CPU seconds of one ``triage`` process with the policies ``off`` switched off."""
    code = DRIVER.format(root=str(ROOT), off=list(off), argv=argv)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def compare(argv: list[str], policy: str, repeat: int) -> dict[str, float]:
    """Medians of ``repeat`` alternating runs with all policies on and with ``policy`` off."""
    on: list[tuple[float, float]] = []
    off: list[tuple[float, float]] = []
    for turn in range(repeat):
        pair = [(on, ()), (off, (policy,))]
        for out, switched in pair if turn % 2 == 0 else pair[::-1]:
            out.append(run(argv, switched))
    return {"on_wall": statistics.median(w for w, _ in on),
            "off_wall": statistics.median(w for w, _ in off),
            "on_cpu": statistics.median(c for _, c in on),
            "off_cpu": statistics.median(c for _, c in off),
            "wall_ratio": statistics.median(b[0] / a[0] for a, b in zip(on, off)),
            "cpu_ratio": statistics.median(b[1] / a[1] for a, b in zip(on, off))}


def main() -> int:
    """Build (or reuse) the project, then compare every policy on every command."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "triage-bench")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--commands", nargs="*", default=list(COMMANDS))
    parser.add_argument("--policies", nargs="*", default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.bench_report import build
    from triage.base.startup import ENABLED

    project = build(args.work, args.rows, args.labels)
    print(f"{args.rows:,} rows, {args.labels:,} labels; median of {args.repeat} alternating "
          f"runs; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at start")
    print("| command | policy off | wall on | wall off | off/on | CPU on | CPU off | off/on |")
    print("|---|---|---|---|---|---|---|---|")
    for command in args.commands:
        for policy in args.policies or list(ENABLED):
            r = compare([command, str(project)], policy, args.repeat)
            print(f"| {command} | {policy} | {r['on_wall']:.2f} s | {r['off_wall']:.2f} s | "
                  f"{r['wall_ratio']:.2f}× | {r['on_cpu']:.2f} s | {r['off_cpu']:.2f} s | "
                  f"{r['cpu_ratio']:.2f}× |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
