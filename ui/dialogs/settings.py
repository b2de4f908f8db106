"""Project settings after creation: label scheme, money and the model the queue follows.

``changes()`` returns only the Settings fields that differ; the main window applies them
with ``project.update_settings(**changes)`` and refreshes the panels at once.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from triage.errors import TriageError
from triage.settings import Settings
from triage.view_new_project import settings_changes
from ui.dialogs.new_project import money_form, read_money_form


def _amount(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


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
        f["scheme"].setText(",".join(f"{o.value}:{o.key}" for o in settings.labels))
        f["positives"].setText(", ".join(settings.positive_labels))
        f["price_model"].setCurrentIndex(max(0, f["price_model"].findData(settings.price_model)))
        f["price"].setText(_amount(settings.price_per_item))
        f["hourly_rate"].setText(_amount(settings.default_hourly_rate)
                                 if settings.default_hourly_rate else "")
        f["budget"].setText(_amount(settings.budget))
        f["currency"].setText(settings.currency)
        f["value"].setText(_amount(settings.value_per_positive))
        self.model_combo = QComboBox(self)
        self.model_combo.setObjectName("active_model")
        self.model_combo.addItems(models)
        active = settings.active_model or (models[0] if models else "")
        if active in models:
            self.model_combo.setCurrentText(active)
        form.addRow("Ranking followed", self.model_combo)
        self.error = QLabel("", self)
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #B00020;")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout = QVBoxLayout(self)
        layout.addWidget(money)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.setMinimumWidth(440)

    def changes(self) -> dict:
        """The changed Settings fields; raises TriageError if the form is invalid."""
        new = read_money_form(self.fields)
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
