"""Run every benchmark in turn (``make bench``); each prints its own figures and ratios.

    .venv/bin/python bench/run_all.py [--quick]

``--quick`` runs each on a tenth of the data, for a smoke test of the scripts.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = [
    ("end to end", "bench_e2e.py", ["--repeat", "3"], ["--rows", "100000", "--repeat", "1",
                                                      "--labels", "1000", "--no-write"]),
    ("import", "bench_import.py", ["--rows", "1000000"], ["--rows", "100000"]),
    ("label-and-next", "bench_label.py", ["--rows", "1000000"], ["--rows", "100000"]),
    ("agreement", "bench_agreement.py", [], []),
    ("desk", "bench_desk.py", [], ["--rows", "100000"]),
    ("cost guards", "bench_cheap.py", [], []),
]


def main() -> int:
    quick = "--quick" in sys.argv[1:]
    failed = []
    for name, script, full, small in BENCHES:
        if not (HERE / script).exists():
            continue
        print(f"\n=== {name}: {script} {' '.join(small if quick else full)}", flush=True)
        done = subprocess.run([sys.executable, str(HERE / script), *(small if quick else full)])
        if done.returncode:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
