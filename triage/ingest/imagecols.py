"""The image column of a pool (``--image COLUMN``): how it maps onto candidates and where
the project records it. See :mod:`triage.base.pictures` for what a cell may hold."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

# The importer's ColumnMapping (not imported: the importer imports this module).
Mapping = TypeVar("Mapping", bound=Any)


def with_image(mapping: Mapping) -> Mapping:
    """The mapping to write: without text, the image column stands as the text too.

    With text, the image column is kept in each candidate's metadata (read there at
    display time). Nothing is done per row: a million paths import like a million texts.
    """
    if not mapping.image:
        return mapping
    if not mapping.text:
        return replace(mapping, text=mapping.image)
    if mapping.metadata is not None and mapping.image not in mapping.metadata:
        return replace(mapping, metadata=(*mapping.metadata, mapping.image))
    return mapping


def image_rows(mapping: Any, path: Path) -> list[tuple[str, str]]:
    """The ``project`` rows that say where the pictures are.

    Their column, the caption column ("" for none) and the pool file's folder, which
    relative paths resolve against.
    """
    if not mapping.image:
        return []
    caption = mapping.text if mapping.text != mapping.image else ""
    return [("image_column", mapping.image), ("image_caption", caption),
            ("image_folder", str(path.resolve().parent))]
