"""The label-scheme and money fields shared by the new-project and settings dialogs."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QLineEdit, QWidget

from triage.views.new_project import form_changes

PRICE_MODELS = (("per item", "per_item"), ("per hour", "per_hour"))


def money_form(parent: QWidget) -> tuple[QFormLayout, dict[str, QWidget]]:
    """The label-scheme and money fields shared with the settings dialog."""
    form = QFormLayout()
    fields: dict[str, QWidget] = {
        "scheme": QLineEdit("positive:1,negative:2", parent),
        "positives": QLineEdit("positive", parent),
        "price_model": QComboBox(parent),
        "price": QLineEdit("0.04", parent),
        "hourly_rate": QLineEdit("", parent),
        "budget": QLineEdit("", parent),
        "currency": QLineEdit("USD", parent),
        "value": QLineEdit("", parent),
    }
    for text, data in PRICE_MODELS:
        fields["price_model"].addItem(text, data)
    fields["scheme"].setToolTip("label:key pairs, e.g. idiom:i,literal:l")
    fields["positives"].setToolTip("the label(s) that count as a find, comma-separated")
    fields["hourly_rate"].setPlaceholderText("per-hour pricing: default rate per annotator")
    fields["budget"].setPlaceholderText("empty: no budget")
    fields["value"].setPlaceholderText("optional")
    for caption, name in (("Label scheme", "scheme"), ("Positive label(s)", "positives"),
                          ("Price model", "price_model"), ("Price per item", "price"),
                          ("Hourly rate", "hourly_rate"), ("Budget", "budget"),
                          ("Currency", "currency"), ("Value per positive", "value")):
        form.addRow(caption, fields[name])
        fields[name].setObjectName(name)

    def per_hour(_index: int) -> None:  # only the field the price model uses is editable
        hourly = fields["price_model"].currentData() == "per_hour"
        fields["hourly_rate"].setEnabled(hourly)
        fields["price"].setEnabled(not hourly)

    fields["price_model"].currentIndexChanged.connect(per_hour)
    per_hour(0)
    return form, fields


def read_money_form(fields: dict[str, QWidget]) -> dict:
    """Settings changes from the shared fields (TriageError names the bad one)."""
    return form_changes(
        scheme=fields["scheme"].text(), positives=fields["positives"].text(),
        price_model=fields["price_model"].currentData(), price=fields["price"].text(),
        hourly_rate=fields["hourly_rate"].text(), budget=fields["budget"].text(),
        currency=fields["currency"].text(), value=fields["value"].text())
