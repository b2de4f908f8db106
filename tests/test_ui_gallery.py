"""The lead window's Gallery tab and the pictures in Adjudication and History: the right
thumbnails, in the right order, with the right pixels; placeholders for the hostile files;
a click shows the item; a text project's gallery says it has no pictures."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from tests.picture_files import BLUE, RED
from tests.picture_projects import DISAGREEMENT_KEYS, POSITIVE_KEYS, labelled_picture_project
from triage.project import open_project
from triage.project.adjudication import disagreements
from triage.views.gallery import NO_PICTURES, gallery, gallery_at
from ui.analysis.adjudication_view import AdjudicationView
from ui.analysis.gallery_view import GalleryView


def rgb(image: QImage, fx: float, fy: float) -> tuple[int, int, int]:
    c = image.pixelColor(int(image.width() * fx), int(image.height() * fy))
    return c.red(), c.green(), c.blue()


def near(got, want, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(got, want, strict=True))


@pytest.fixture
def path(tmp_path):
    return labelled_picture_project(tmp_path)


@pytest.fixture
def project(path):
    opened = open_project(path)
    yield opened
    opened.close()


def test_gallery_shows_positives_and_disagreements_with_their_pixels(qtbot, path, project):
    view = GalleryView(project_of=lambda: project, compute=gallery_at)
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()   # shown: computed on a worker, thumbnails made on the loader's threads
    qtbot.waitUntil(lambda: view.data is not None and not view.pending(), timeout=15000)
    assert view.shown_keys("positives") == POSITIVE_KEYS
    assert view.shown_keys("disagreements") == DISAGREEMENT_KEYS
    assert view.captions["positives"].text() == "Positives found: 4"
    assert view.captions["disagreements"].text() == "Disagreements: 3"

    red, blue = view.thumbnail("positives", 0), view.thumbnail("disagreements", 0)
    assert isinstance(red, QImage) and near(rgb(red, 0.5, 0.5), RED)
    assert isinstance(blue, QImage) and near(rgb(blue, 0.5, 0.5), BLUE)
    turned = view.thumbnail("disagreements", 2)   # 60 x 20 with EXIF 6: stands, red on top
    assert isinstance(turned, QImage) and turned.height() == 3 * turned.width()
    assert near(rgb(turned, 0.5, 0.15), RED) and near(rgb(turned, 0.5, 0.85), BLUE)
    assert "does not exist" in view.thumbnail("disagreements", 1)
    reasons = [view.thumbnail("positives", row) for row in (1, 2, 3)]
    assert all(isinstance(r, str) for r in reasons)
    assert "cut short" in reasons[0] and "too large" in reasons[1]
    assert "not a picture" in reasons[2]

    # On screen: the red thumbnail is drawn at its item's place.
    positives = view.lists["positives"]
    rect = positives.visualItemRect(positives.item(0))
    shot = positives.viewport().grab().toImage()
    icon = positives.iconSize()
    for fx, fy in ((0.5, 0.5), (0.2, 0.4), (0.8, 0.6)):   # fitted into the square
        c = shot.pixelColor(rect.center().x() - icon.width() // 2 + int(icon.width() * fx),
                            rect.top() + 2 + int(icon.height() * fy))
        assert near((c.red(), c.green(), c.blue()), RED)

    # Clicking a thumbnail shows the item: key, labels, and its picture larger.
    disagree = view.lists["disagreements"]
    item = disagree.item(2)
    qtbot.mouseClick(disagree.viewport(), Qt.MouseButton.LeftButton,
                     pos=disagree.visualItemRect(item).center())
    assert view.selected is not None and view.selected.key == "6"
    assert "Disagreement: 6" in view.detail.text()
    assert "ada: defect; bea: fine (a tie)" in view.detail.text()
    qtbot.waitUntil(lambda: view.picture.view.image is not None, timeout=10000)
    large = view.picture.view.image
    assert large.height() > 2 * large.width() and near(rgb(large, 0.5, 0.1), RED)
    # Computed again (the tab shown again): the same item stays selected.
    view.show_gallery(gallery_at(path))
    assert view.selected is not None and view.selected.key == "6"
    assert view.lists["disagreements"].currentRow() == 2


def test_the_gallery_is_bounded_and_says_how_many_in_all(qtbot, project):
    view = GalleryView(project_of=lambda: project, compute=gallery_at)
    qtbot.addWidget(view)
    view.show_gallery(gallery(project, limit=2))
    assert view.shown_keys("positives") == POSITIVE_KEYS[:2]
    assert view.captions["positives"].text() == "Positives found: showing 2 of 4"
    assert view.captions["disagreements"].text() == "Disagreements: showing 2 of 3"


def test_a_text_project_gallery_says_there_are_no_pictures(qtbot, tmp_path):
    from tests.helpers import make_project

    project = make_project(tmp_path, n=20)
    try:
        session = project.start_session("ada")
        item = project.next_candidate(session)
        project.record_label(session, item.candidate_id, "idiom")
        view = GalleryView(project_of=lambda: project)
        qtbot.addWidget(view)
        view.show_gallery(gallery(project))
        assert view.message.text() == NO_PICTURES and not view.message.isHidden()
        assert view.shown_keys("positives") == [] and view.shown_keys("disagreements") == []
        assert view.picture.isHidden()
        assert view.sections.isHidden()   # no empty "none yet" sections beside the message
    finally:
        project.close()


def test_adjudication_shows_the_selected_candidates_picture(qtbot, project):
    view = AdjudicationView(project_of=lambda: project)
    qtbot.addWidget(view)
    view.show()
    view.show_items(disagreements(project), project.settings.labels)
    assert view.selected_candidate() is not None and not view.picture.isHidden()
    qtbot.waitUntil(lambda: view.picture.view.image is not None, timeout=10000)
    assert near(rgb(view.picture.view.image, 0.5, 0.5), BLUE)    # key 2: blue
    view.table.selectRow(1)                                       # key 4: the missing file
    assert "does not exist" in view.picture.reason or view.picture.reason.startswith("Loading")
    qtbot.waitUntil(lambda: "does not exist" in view.picture.reason, timeout=10000)


@pytest.mark.slow
def test_lead_window_gallery_and_history_show_the_pictures(qtbot, path):
    from tests.qt_helpers import open_main_window

    window = open_main_window(qtbot, path, "ada")
    try:
        window.show_lead_view()
        lead = window.lead_view
        assert lead.tabs.tabText(lead.tabs.indexOf(lead.gallery)) == "Gallery"
        lead.tabs.setCurrentWidget(lead.gallery)   # computed in the lead's helper process
        qtbot.waitUntil(lambda: lead.gallery.data is not None and not lead.gallery.pending(),
                        timeout=60000)
        assert lead.gallery.shown_keys("disagreements") == DISAGREEMENT_KEYS
        assert near(rgb(lead.gallery.thumbnail("positives", 0), 0.5, 0.5), RED)
        lead.close()

        # The desk's History: the selected decision's picture beside its text.
        window.drawer.show()
        window.drawer.setCurrentWidget(window.drawer.history)
        window.reading.refresh_drawer(force=True)
        history = window.drawer.history
        keys = [d.key for d in history.decisions]
        history.table.selectRow(keys.index("2"))    # blue
        qtbot.waitUntil(lambda: history.picture.view.image is not None, timeout=10000)
        assert not history.picture.isHidden()
        assert near(rgb(history.picture.view.image, 0.5, 0.5), BLUE)
    finally:
        window.close()


def test_the_lead_helper_knows_the_gallery():
    """The Gallery tab asks the lead's helper process for ``gallery`` (see the slow test for
    the whole round trip)."""
    from triage.views.tasks import GALLERY

    assert GALLERY.resolve() is gallery_at and GALLERY.helper == "lead"
