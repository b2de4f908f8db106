"""Text colours and the backgrounds they sit on, in one place so a test can hold every pair
to WCAG 2.1 AA (contrast ratio ≥ 4.5:1 for text), and the keyboard focus style."""

from __future__ import annotations

WINDOW_BG = "#EFEFEF"      # Qt's default window colour (Fusion and the offscreen platform)
BASE_BG = "#FFFFFF"        # text fields, tables, the candidate
SECONDARY = "#505050"      # position line, messages, captions
META = "#333333"           # the candidate's metadata
SCORE = "#7A4F00"          # the model's score (when shown)
ERROR = "#A1001C"          # form errors, a ruling that failed
CAPTION = "#595959"        # analysis captions and hints
HIGHLIGHT_BG = "#FFE08A"   # a lead's keyword in the candidate text
HIGHLIGHT_FG = "#1A1A1A"
FOCUS = "#0060A0"          # the ring around the widget with the keyboard focus
SELECTION_BG = "#1D5F8F"   # selected rows and text (white on it: 6.6:1)

# The state colours of the advice banner and the agreement reading: (background, text).
ROLE_TEXT = {
    "go": ("#E2F3EC", "#004D38"),
    "stop": ("#FBE5D9", "#6E2C00"),
    "pause": ("#FFF2CF", "#5C3D00"),
    "none": ("#F0F0F0", "#333333"),
}

# Every (name, text colour, background) pair drawn as text somewhere in the app.
TEXT_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("desk secondary", SECONDARY, WINDOW_BG),
    ("desk metadata", META, WINDOW_BG),
    ("desk score", SCORE, WINDOW_BG),
    ("candidate", "#000000", BASE_BG),
    ("keyword highlight", HIGHLIGHT_FG, HIGHLIGHT_BG),
    ("form error", ERROR, WINDOW_BG),
    ("caption", CAPTION, WINDOW_BG),
    ("caption on white", CAPTION, BASE_BG),
    *((f"banner {role}", fg, bg) for role, (bg, fg) in ROLE_TEXT.items()),
    ("selection", "#FFFFFF", SELECTION_BG),
)

# A visible focus ring on the fields and lists that take the keyboard focus (buttons, tabs
# and check boxes get the style's own focus frame; styling them would make them flat).
FOCUS_STYLE = (
    f"QAbstractItemView:focus, QLineEdit:focus, QPlainTextEdit:focus, QTextEdit:focus, "
    f"QAbstractSpinBox:focus {{ border: 2px solid {FOCUS}; }}"
    # Buttons, check boxes and tabs reached with Tab show it too (the style's own dotted
    # focus frame is faint or absent on several platforms).
    f"QPushButton:focus, QToolButton:focus, QCheckBox:focus, QRadioButton:focus "
    f"{{ outline: none; border: 2px solid {FOCUS}; border-radius: 3px; padding: 2px 6px; }}"
)


def relative_luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance of ``#RRGGBB``."""
    value = colour.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    channels = [int(value[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG 2.1 contrast ratio, from 1 (none) to 21 (black on white)."""
    a, b = relative_luminance(foreground), relative_luminance(background)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def apply_app_palette() -> None:
    """Selections dark enough for white text (the default light blue gives 3.7:1); every
    tooltip wraps (ui.tooltips)."""
    from PySide6.QtGui import QColor, QGuiApplication, QPalette

    from ui.tooltips import wrap_all_tooltips

    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        return
    palette = app.palette()
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        palette.setColor(group, QPalette.ColorRole.Highlight, QColor(SELECTION_BG))
        palette.setColor(group, QPalette.ColorRole.HighlightedText, QColor("#FFFFFF"))
    app.setPalette(palette)
    wrap_all_tooltips()


def no_tab_traps(root) -> None:
    """Tab moves on from every table and list under ``root`` (arrows move inside)."""
    from PySide6.QtWidgets import QAbstractItemView

    for view in root.findChildren(QAbstractItemView):
        view.setTabKeyNavigation(False)
