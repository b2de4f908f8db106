"""A Label Studio labelling config, and which result group (``from_name``) to import.

Triage imports one choice per annotation from one ``<Choices>`` group. A project often
has more: other choice groups, span labels, taxonomies, boxes. :func:`pick_from_name`
chooses the group (``--from-name``, else the only choice group) and refuses, saying
what the other results are and which option imports the choices, when the choice is not
clear. Nothing is skipped silently.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET  # noqa: S405 - the user's own config file, no entities
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from triage.base.errors import TriageError

# What Label Studio's result types are, in words a lead recognises.
KINDS = {
    "choices": "choices", "labels": "span labels (named entities)", "taxonomy": "taxonomy",
    "rectanglelabels": "image boxes", "polygonlabels": "image polygons",
    "keypointlabels": "image keypoints", "brushlabels": "image masks",
    "textarea": "free text", "rating": "ratings", "number": "numbers", "relation": "relations",
    "hypertextlabels": "HTML spans", "paragraphlabels": "dialogue spans",
    "timeserieslabels": "time-series spans", "datetime": "dates", "pairwise": "pairwise",
    "ranker": "rankings",
}


@dataclass
class LabelConfig:
    """The parts of a labelling config Triage reads: choice groups and text fields."""

    choices: dict[str, list[str]] = field(default_factory=dict)   # from_name -> values
    kinds: dict[str, str] = field(default_factory=dict)           # from_name -> result type
    to_names: dict[str, str] = field(default_factory=dict)        # from_name -> to_name
    text_fields: dict[str, str] = field(default_factory=dict)     # Text name -> data field
    image_fields: dict[str, str] = field(default_factory=dict)    # Image name -> data field

    def text_field(self, from_name: str) -> str | None:
        """The data field holding the text that ``from_name`` labels."""
        return self.text_fields.get(self.to_names.get(from_name, ""))

    def image_field(self, from_name: str) -> str | None:
        """The data field holding the picture ``from_name`` labels (or the only picture)."""
        named = self.image_fields.get(self.to_names.get(from_name, ""))
        if named is None and len(self.image_fields) == 1:
            return next(iter(self.image_fields.values()))
        return named


def read_config(path: Path) -> LabelConfig:
    """Parse a Label Studio labelling config (the project's XML)."""
    try:
        root = ET.fromstring(path.read_bytes())  # noqa: S314 - a local file the user names
    except OSError as error:
        raise TriageError(f"{path}: cannot be read ({error.strerror or error})") from error
    except ET.ParseError as error:
        raise TriageError(f"{path}: not a Label Studio labelling config: {error}") from error
    config = LabelConfig()
    for element in root.iter():
        name = element.get("name")
        if not name:
            continue
        tag = element.tag.lower()
        if tag in ("text", "image") and (element.get("value") or "").startswith("$"):
            fields = config.text_fields if tag == "text" else config.image_fields
            fields[name] = (element.get("value") or "$")[1:]
            continue
        if tag == "choices":
            config.choices[name] = [c.get("value") or c.get("alias") or "" for c in element
                                    if c.tag.lower() == "choice"]
        config.kinds[name] = tag
        config.to_names[name] = element.get("toName") or ""
    if not config.choices:
        raise TriageError(f"{path}: the config has no <Choices>: Triage imports text "
                          "and image classification (one choice per annotation) only")
    return config


def describe(counts: Counter[tuple[str, str]]) -> str:
    """'entities' (span labels (named entities), 3 results), …"""
    return ", ".join(f"{name!r} ({KINDS.get(kind, kind)}, {n} result{'s' * (n != 1)})"
                     for (name, kind), n in sorted(counts.items()))


def pick_from_name(path: Path, seen: Counter[tuple[str, str]], asked: str | None,
                   config: LabelConfig | None) -> str:
    """The ``from_name`` whose choices are imported; refuses when that is not clear."""
    groups = set(config.choices) if config else set()
    groups |= {name for name, kind in seen if kind == "choices"}
    if asked is not None:
        if asked not in groups:
            where = ", ".join(sorted(groups)) or "none"
            raise TriageError(f"{path}: --from-name {asked!r} is not a choice group of this "
                              f"export (choice groups: {where})")
        return asked
    others = Counter({k: n for k, n in seen.items() if k[1] != "choices"})
    if not groups and not others:
        return ""   # no results at all: tasks without labels or predictions
    if len(groups) == 1 and not others:
        return next(iter(groups))
    if not groups:
        raise TriageError(f"{path}: no choices to import: the results are {describe(others)}."
                          " Triage imports text classification (one choice per annotation); "
                          "these results cannot be imported")
    options = " or ".join(f"--from-name {g}" for g in sorted(groups))
    what = (f"results that are not choices: {describe(others)}" if others
            else f"{len(groups)} choice groups: {', '.join(sorted(groups))}")
    raise TriageError(f"{path}: the export holds {what}. Triage imports one choice group; "
                      f"give {options} to import that group's choices and leave the rest out")
