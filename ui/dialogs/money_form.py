"""The label-scheme and money fields shared by the new-project and settings dialogs."""

from __future__ import annotations

from dataclasses import dataclass, fields

from PySide6.QtWidgets import QComboBox, QFormLayout, QLineEdit, QWidget

from triage.views.new_project import form_changes

PRICE_MODELS = (("per item", "per_item"), ("per hour", "per_hour"))
CAPTIONS = {"scheme": "Label scheme", "positives": "Positive label(s)",
            "price_model": "Price model", "price": "Price per item",
            "hourly_rate": "Hourly rate", "budget": "Budget", "currency": "Currency",
            "value": "Value per positive"}


@dataclass(frozen=True)
class MoneyFields:
    """The form's widgets, one per setting (in the form's order)."""

    scheme: QLineEdit
    positives: QLineEdit
    price_model: QComboBox
    price: QLineEdit
    hourly_rate: QLineEdit
    budget: QLineEdit
    currency: QLineEdit
    value: QLineEdit


def money_form(parent: QWidget) -> tuple[QFormLayout, MoneyFields]:
    """The label-scheme and money fields shared with the settings dialog."""
    form = QFormLayout()
    f = MoneyFields(
        scheme=QLineEdit("positive:1,negative:2", parent),
        positives=QLineEdit("positive", parent),
        price_model=QComboBox(parent),
        price=QLineEdit("0.04", parent),
        hourly_rate=QLineEdit("", parent),
        budget=QLineEdit("", parent),
        currency=QLineEdit("USD", parent),
        value=QLineEdit("", parent),
    )
    for text, data in PRICE_MODELS:
        f.price_model.addItem(text, data)
    f.scheme.setToolTip("label:key pairs, e.g. idiom:i,literal:l")
    f.positives.setToolTip("the label(s) that count as a find, comma-separated")
    f.hourly_rate.setPlaceholderText("per-hour pricing: default rate per annotator")
    f.budget.setPlaceholderText("empty: no budget")
    f.value.setPlaceholderText("optional")
    for field in fields(f):
        widget: QWidget = getattr(f, field.name)
        form.addRow(CAPTIONS[field.name], widget)
        widget.setObjectName(field.name)

    def per_hour(_index: int) -> None:  # only the field the price model uses is editable
        hourly = f.price_model.currentData() == "per_hour"
        f.hourly_rate.setEnabled(hourly)
        f.price.setEnabled(not hourly)

    f.price_model.currentIndexChanged.connect(per_hour)
    per_hour(0)
    return form, f


def read_money_form(f: MoneyFields) -> dict:
    """Settings changes from the shared fields (TriageError names the bad one)."""
    return form_changes(
        scheme=f.scheme.text(), positives=f.positives.text(),
        price_model=f.price_model.currentData(), price=f.price.text(),
        hourly_rate=f.hourly_rate.text(), budget=f.budget.text(),
        currency=f.currency.text(), value=f.value.text())
