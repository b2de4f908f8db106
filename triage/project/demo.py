"""The demo project: English verb-noun idiom candidates ranked by three models.

Created on first start (so the desk never opens empty) from ``resources/demo/idioms.csv``
(inside the package when installed from a wheel: :mod:`triage.base.resources`),
which carries a gold label per candidate; :func:`simulate` labels candidates with their
gold labels so the live panels have something to show in screenshots and benchmarks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from triage import store
from triage.base.resources import resource
from triage.project.core import Project
from triage.project.files import create_project
from triage.store.settings import LabelOption, Settings

DEMO_CSV = resource("demo", "idioms.csv")
DEMO_FILE_NAME = "demo.triage"
DEMO_SCORES = (("frequency", "m1_frequency"), ("association", "m2_association"),
               ("classifier", "m3_classifier"))
# Seconds a simulated label "took": a plausible desk pace (about 600 labels an hour).
SIMULATED_SECONDS = 6.0


def demo_settings() -> Settings:
    """Idiom/literal scheme, 4 cents a candidate, a $20 budget, a positive worth 50 cents."""
    return Settings().with_changes(
        labels=(LabelOption("idiom", "i"), LabelOption("literal", "l")),
        positive_labels=("idiom",), price_model="per_item", price_per_item=0.04,
        budget=20.0, currency="USD", value_per_positive=0.50, active_model="classifier",
    )


DEMO_GUIDELINES = """# Idiom or literal?

Each candidate is a verb with its object ("spill the beans", "post the package"), shown
with an example sentence. Decide what the phrase means **in that sentence**.

- **idiom** [i]: the whole phrase means something its words do not say one by one.
  "She spilled the beans about the party" (told a secret: no beans were spilled).
- **literal** [l]: the words mean what they say. "He spilled the beans on the floor";
  "Our neighbour posted the package on Sunday".
- A phrase that can be either: judge the example sentence, not the phrase alone.
- Not sure after reading it twice: **skip** [s] and say why in a **note** [n].
"""


def create_demo(path: str | Path, source: str | Path = DEMO_CSV) -> Project:
    """Create the demo project at ``path`` from ``source`` and return it open.

    A failed import leaves no file behind.
    """
    from triage.ingest.importer import ColumnMapping
    from triage.project.guidelines import save_guidelines

    path = Path(path)
    settings = demo_settings()
    # The active model is set after import: the settings check refuses unknown models.
    project = create_project(path, settings.with_changes(active_model=None))
    ok = False
    try:
        project.import_file(source, ColumnMapping(text="text", key="key", scores=DEMO_SCORES,
                                                  gold="gold"))
        project.update_settings(active_model=settings.active_model)
        save_guidelines(project, DEMO_GUIDELINES, "Triage demo")   # what idiom means here
        ok = True
    finally:
        if not ok:
            project.close()
            _remove_leftovers(path)
    return project


def _ensure(data_dir: str | Path, name: str, create: Callable[[Path], Project]) -> Path:
    """``data_dir / name``, made by ``create`` (with the folder) when missing."""
    folder = Path(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if not path.exists():
        create(path).close()
    return path


def _remove_leftovers(path: Path) -> None:
    """A demo that failed half-way leaves nothing behind (file, log, shared memory)."""
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)


def ensure_demo(data_dir: str | Path) -> Path:
    """The demo project's path in ``data_dir``, creating both when missing."""
    return _ensure(data_dir, DEMO_FILE_NAME, create_demo)


def simulate(project: Project, n: int, annotator: str = "demo",
             seconds: float = SIMULATED_SECONDS) -> int:
    """Label the next ``n`` candidates the desk would serve with their gold labels.

    Served exactly as at a desk (the ranked queue, with the project's audit items mixed
    in), in a session of its own. Candidates without a usable gold label (empty, or not in
    the scheme) are skipped. Returns the number of label events written.
    """
    if n <= 0:
        return 0
    values = {o.value for o in project.settings.labels}
    session = project.start_session(annotator)
    written = 0
    try:
        while written < n:
            item = project.next_candidate(session)
            if item is None:
                break
            gold = store.candidate_rows(project.db, [item.candidate_id])[item.candidate_id][3]
            value = gold if gold in values else None
            project.record_label(session, item.candidate_id, value, seconds=seconds,
                                 kind=item.kind)
            written += 1
    finally:
        project.end_session(session)
    return written


PICTURE_CSV = resource("demo_pictures", "digits.csv")
PICTURE_DEMO_FILE_NAME = "demo-pictures.triage"
PICTURE_SCORES = (("logistic", "logistic"), ("coarse", "coarse"))


def create_picture_demo(path: str | Path, source: str | Path = PICTURE_CSV) -> Project:
    """Create the picture demo (handwritten digits, "is it a 3?") at ``path``, open."""
    from triage.ingest.importer import ColumnMapping

    path = Path(path)
    settings = Settings().with_changes(
        labels=(LabelOption("three", "3"), LabelOption("other", "o")),
        positive_labels=("three",), price_per_item=0.02, budget=4.0, currency="USD",
        value_per_positive=0.25)
    project = create_project(path, settings)
    try:
        project.import_file(source, ColumnMapping(text="", key="key", scores=PICTURE_SCORES,
                                                  gold="gold", image="picture",
                                                  metadata=()))  # the digit would tell
        project.update_settings(active_model="logistic")
    except BaseException:
        project.close()
        _remove_leftovers(path)
        raise
    return project


def ensure_picture_demo(data_dir: str | Path) -> Path:
    """The picture demo's path in ``data_dir``, creating both when missing."""
    return _ensure(data_dir, PICTURE_DEMO_FILE_NAME, create_picture_demo)
