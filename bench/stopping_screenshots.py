"""Render the advice banner, the Advice tab and the gain chart with its recall band at three
points of the demo project (early, mid-way, end of pool) for docs/numbers/stopping.md.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/stopping_screenshots.py docs/numbers/img
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from triage.project.advice import advice_state
from triage.project.demo import create_demo, simulate
from triage.views.advice import recall_band
from triage.views.panels import PanelInfo

POINTS = (("early", 120), ("midway", 600), ("end", 2000))


def shoot(app: QApplication, out: Path, name: str, labels: int) -> str:
    """Build the demo at ``labels`` labels and save the three pictures; returns a summary."""
    from ui.analysis import AdviceBanner
    from ui.lead_window import AdviceTab
    from ui.panels import GainPanel

    path = Path(f"/tmp/stopping_shot_{name}.triage")
    for f in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        f.unlink(missing_ok=True)
    p = create_demo(path)
    p.update_settings(audit_rate=0.05, budget=100.0)
    simulate(p, labels)
    state = advice_state(p)
    banner = AdviceBanner()
    banner.resize(1100, 60)
    banner.show_advice(state)
    banner.grab().save(str(out / f"banner-{name}.png"))
    tab = AdviceTab()
    tab.resize(1100, 560)
    tab.show_advice(state)
    tab.show()
    app.processEvents()
    tab.grab().save(str(out / f"advice-tab-{name}.png"))
    gain = GainPanel(large=True)
    gain.resize(900, 520)
    gain.show()
    app.processEvents()
    s = p.settings
    info = PanelInfo(pool=p.pool, currency=s.currency, budget=s.budget,
                     value_per_positive=s.value_per_positive, price_per_item=s.price_per_item,
                     offline_curves=p.offline_curves(), active_model=p.active_model().name)
    band = recall_band(state)
    gain.show_estimate(band)
    gain.show_state(p.snapshot(), info)
    app.processEvents()
    gain.flush()
    gain.grab().save(str(out / f"gain-band-{name}.png"))
    p.close()
    return f"{name}: {state.labels_at} labels | {state.headline} | {band.label if band else '-'}"


def main(out: str) -> int:
    """Save every picture into ``out``."""
    app = QApplication.instance() or QApplication([])
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, labels in POINTS:
        print(shoot(app, folder, name, labels))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/numbers/img"))
