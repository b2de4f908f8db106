"""Project settings after creation: label scheme, money and the model the queue follows.

``changes()`` returns only the Settings fields that differ; the main window applies them
with ``project.update_settings(**changes)`` and refreshes the panels at once.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from triage.base.errors import TriageError
from triage.views.formatting import format_number
from triage.views.new_project import Settings, settings_changes
from ui.dialogs.money_form import money_form, read_money_form
from ui.window_state import scrolling_dialog


def _amount(value: float | None) -> str:
    return format_number(value)


class SettingsDialog(QDialog):
    """Edit a project's settings; OK stays disabled-in-effect until the form is valid."""

    def __init__(self, settings: Settings, models: list[str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Project settings")
        self.settings = settings
        money = QGroupBox("Labels and money", self)
        form, self.fields = money_form(self)
        money.setLayout(form)
        f = self.fields
        f.scheme.setText(",".join(f"{o.value}:{o.key}" for o in settings.labels))
        f.positives.setText(", ".join(settings.positive_labels))
        f.price_model.setCurrentIndex(max(0, f.price_model.findData(settings.price_model)))
        f.price.setText(_amount(settings.price_per_item))
        f.hourly_rate.setText(_amount(settings.default_hourly_rate)
                                 if settings.default_hourly_rate else "")
        f.budget.setText(_amount(settings.budget))
        f.currency.setText(settings.currency)
        f.value.setText(_amount(settings.value_per_positive))
        self.model_combo = QComboBox(self)
        self.model_combo.setObjectName("active_model")
        self.model_combo.addItems(models)
        if models and "cal" not in models:   # the ranking learned from the labels
            self.model_combo.addItem("cal")
            self.model_combo.setItemData(self.model_combo.count() - 1,
                                         "the ranking learned from the labels (needs "
                                         "scikit-learn)", Qt.ItemDataRole.ToolTipRole)
        active = settings.active_model or (models[0] if models else "")
        if active in [*models, "cal"]:
            self.model_combo.setCurrentText(active)
        form.addRow("Ranking followed", self.model_combo)
        quality = QGroupBox("Agreement, audit and stopping", self)
        quality.setLayout(self._quality_form(settings))
        self.error = QLabel("", self)
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #B00020;")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout = QVBoxLayout()
        layout.addWidget(money)
        layout.addWidget(quality)
        layout.addWidget(self.error)
        self.setMinimumWidth(440)
        scrolling_dialog(self, layout, buttons)   # never taller than the screen

    def _quality_form(self, settings: Settings) -> QFormLayout:
        """Rates as percentages, the recall target, and how the queue picks its ranking."""
        form = QFormLayout()
        self.rates: dict[str, QDoubleSpinBox] = {}
        for name, label, hint in (
                ("overlap_rate", "Overlap", "share of items labeled by more than one person"),
                ("retest_rate", "Re-test", "share of an annotator's items shown again later"),
                ("audit_rate", "Audit", "share of effort on uniformly random items")):
            box = QDoubleSpinBox(self)
            box.setObjectName(name)
            box.setRange(0.0, 50.0)
            box.setDecimals(1)
            box.setSuffix(" %")
            box.setValue(100 * getattr(settings, name))
            box.setToolTip(hint)
            self.rates[name] = box
            form.addRow(label, box)
        self.per_item = QSpinBox(self)
        self.per_item.setObjectName("labels_per_overlap_item")
        self.per_item.setRange(2, 20)
        self.per_item.setValue(settings.labels_per_overlap_item)
        form.addRow("Labels per overlap item", self.per_item)
        self.target = QDoubleSpinBox(self)
        self.target.setObjectName("target_recall")
        self.target.setRange(1.0, 100.0)
        self.target.setSuffix(" %")
        self.target.setValue(100 * settings.target_recall)
        form.addRow("Target recall", self.target)
        self.confidence = QDoubleSpinBox(self)
        self.confidence.setObjectName("confidence")
        self.confidence.setRange(50.0, 99.9)
        self.confidence.setDecimals(1)
        self.confidence.setSuffix(" %")
        self.confidence.setValue(100 * settings.confidence)
        form.addRow("Confidence", self.confidence)
        self.queue_mode = QComboBox(self)
        self.queue_mode.setObjectName("queue_mode")
        for mode, text in (("follow", "follow the chosen ranking"),
                           ("bandit", "learn the best ranking (Thompson sampling)"),
                           ("pets", "learn the best ranking (pure exploration, PETS)")):
            self.queue_mode.addItem(text, mode)
        self.queue_mode.setCurrentIndex(max(0, self.queue_mode.findData(settings.queue_mode)))
        form.addRow("Queue", self.queue_mode)
        self.learn = QCheckBox("also learn a ranking from the labels (cal)", self)
        self.learn.setObjectName("learn")
        self.learn.setToolTip("refit on the labels every 50 labels, in a helper process; the "
                              "bandit then chooses among the models and cal")
        self.learn.setChecked(settings.learn)
        form.addRow("Learning", self.learn)
        return form

    def _quality_values(self) -> dict:
        values = {name: round(box.value() / 100, 4) for name, box in self.rates.items()}
        values["labels_per_overlap_item"] = self.per_item.value()
        values["target_recall"] = round(self.target.value() / 100, 4)
        values["confidence"] = round(self.confidence.value() / 100, 4)
        values["queue_mode"] = self.queue_mode.currentData()
        values["learn"] = self.learn.isChecked()
        return values

    def changes(self) -> dict:
        """The changed Settings fields; raises TriageError if the form is invalid."""
        new = {**read_money_form(self.fields), **self._quality_values()}
        model = self.model_combo.currentText()
        if model and model != (self.settings.active_model or self.model_combo.itemText(0)):
            new["active_model"] = model
        return settings_changes(self.settings, new)

    def accept(self) -> None:
        """Close only with a valid form; otherwise say what is wrong."""
        try:
            self.changes()
        except TriageError as error:
            self.error.setText(str(error))
            return
        super().accept()
