"""Options shared by commands that create projects or import into them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from triage.base.errors import TriageError
from triage.cli.commands._common import parse_score_option
from triage.cli.commands._dialect import add_dialect_args, given_dialect
from triage.cli.commands._dialect import read_dialect as read_dialect
from triage.store.settings import scheme_from_text

if TYPE_CHECKING:
    from triage.ingest.exchange import ExchangeResult, ReadOptions
    from triage.ingest.importer import ColumnMapping


def add_mapping_args(parser: argparse.ArgumentParser, *, text_required: bool = True) -> None:
    """Options naming the input columns: --text, --key, --score, --gold, --sheet and more."""
    g = parser.add_argument_group("column mapping")
    g.add_argument("--text", required=text_required, metavar="COL",
                   help="column holding the candidate text (with --image: its caption)")
    g.add_argument("--image", metavar="COL",
                   help="column holding each candidate's picture: a path relative to FILE's "
                   "folder, an absolute path, a file:// URI or an http(s):// URL")
    g.add_argument("--check-images", action="store_true",
                   help="after the import, check that every local picture exists and looks "
                   "whole, and list those that do not")
    g.add_argument("--key", metavar="COL",
                   help="column holding a stable unique key (default: the row number)")
    g.add_argument("--score", action="append", type=parse_score_option, default=[],
                   metavar="NAME=COL", help="a model's score column (repeatable)")
    g.add_argument("--gold", metavar="COL", help="column holding a known (gold) label")
    g.add_argument("--sheet", metavar="NAME",
                   help="the sheet of a spreadsheet (.xlsx, .ods) to read (default: the first)")
    add_dialect_args(g)
    g.add_argument("--skip-invalid", action="store_true",
                   help="import the valid rows; write rejected rows with reasons beside the input")


def mapping_from_args(args: argparse.Namespace) -> ColumnMapping:
    """The column mapping the user gave (see :func:`add_mapping_args`)."""
    from triage.ingest.importer import ColumnMapping

    dialect = getattr(args, "dialect", None) or given_dialect(args)[0]
    return ColumnMapping(text=args.text or "", key=args.key, scores=tuple(args.score),
                         gold=args.gold, sheet=getattr(args, "sheet", None),
                         image=getattr(args, "image", None), dialect=dialect)


def report_pictures(project: Any, args: argparse.Namespace) -> None:
    """``--check-images``: check the pool's pictures and print what cannot be shown."""
    if not getattr(args, "check_images", False):
        return
    from triage.project.pictures import check_pictures, picture_source, render_check

    source = picture_source(project.db, project.location)
    if source is None:
        raise TriageError("--check-images: this pool has no image column (give --image COL)")
    print(render_check(check_pictures(project.db, source)))


def add_settings_args(parser: argparse.ArgumentParser) -> None:
    """Options for the project settings a lead can give on the command line."""
    g = parser.add_argument_group("project settings")
    g.add_argument("--labels", metavar="A:KEY,B:KEY",
                   help="label scheme, e.g. idiom:i,literal:l (keys default to 1, 2, ...)")
    g.add_argument("--positive", action="append", metavar="LABEL",
                   help="a label that counts as a positive (repeatable)")
    g.add_argument("--price", type=float, metavar="AMOUNT", help="price per annotation")
    g.add_argument("--price-model", choices=["per_item", "per_hour"])
    g.add_argument("--hourly-rate", type=float, metavar="AMOUNT",
                   help="default hourly rate of an annotator (per_hour price model)")
    g.add_argument("--budget", type=float, metavar="AMOUNT")
    g.add_argument("--currency", metavar="CODE")
    g.add_argument("--value-per-positive", type=float, metavar="AMOUNT")
    g.add_argument("--active-model", metavar="NAME", help="the model whose ranking the queue "
                   "follows; cal: the ranking learned from the labels")
    g.add_argument("--learn", choices=["yes", "no"],
                   help="learn the cal ranking from the labels: the queue becomes a bandit "
                   "over the imported models and cal unless --active-model cal follows it "
                   "alone (needs scikit-learn: pip install 'triage[learn]')")
    g.add_argument("--target-recall", type=float)
    g.add_argument("--confidence", type=float)
    g.add_argument("--overlap-rate", type=float)
    g.add_argument("--labels-per-overlap-item", type=int)
    g.add_argument("--retest-rate", type=float)
    g.add_argument("--audit-rate", type=float)


_SETTING_NAMES = {
    "price": "price_per_item", "price_model": "price_model", "hourly_rate": "default_hourly_rate",
    "budget": "budget", "currency": "currency", "value_per_positive": "value_per_positive",
    "active_model": "active_model", "target_recall": "target_recall", "confidence": "confidence",
    "overlap_rate": "overlap_rate", "labels_per_overlap_item": "labels_per_overlap_item",
    "retest_rate": "retest_rate", "audit_rate": "audit_rate",
}


def settings_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the user gave on the command line, as Settings field changes."""
    changes: dict[str, Any] = {}
    if getattr(args, "labels", None):
        changes["labels"] = scheme_from_text(args.labels)
        if not getattr(args, "positive", None):
            changes["positive_labels"] = (changes["labels"][0].value,)
    if getattr(args, "positive", None):
        changes["positive_labels"] = tuple(args.positive)
    if getattr(args, "learn", None):
        changes["learn"] = args.learn == "yes"
        if changes["learn"] and getattr(args, "active_model", None) != "cal":
            # Learning that nothing serves would be labels spent for nothing: cal joins
            # the bandit (a project already in the pets mode keeps it; see config).
            changes["queue_mode"] = "bandit"
    for arg, field in _SETTING_NAMES.items():
        value = getattr(args, arg, None)
        if value is not None:
            changes[field] = value
    return changes


def add_interchange_args(parser: argparse.ArgumentParser) -> None:
    """``--from prodigy|labelstudio`` and the options of reading another tool's export."""
    g = parser.add_argument_group("from another annotation tool")
    g.add_argument("--from", dest="source_format", choices=["prodigy", "labelstudio"],
                   help="FILE is a Prodigy JSONL export or a Label Studio JSON, JSON_MIN or "
                   "CSV export: candidates, scores and labels with their annotators (see the "
                   "formats page). --text/--key/--score/--image then name fields: data.FIELD, "
                   "meta.FIELD, predictions[MODEL].score")
    g.add_argument("--reject-label", metavar="LABEL",
                   help="Prodigy: the label a rejected binary task gets (default: the "
                   "scheme's other label)")
    g.add_argument("--annotator", metavar="NAME", default="prodigy",
                   help="Prodigy: annotator of lines without _annotator_id/_session_id "
                   "(default: prodigy)")
    g.add_argument("--ls-config", type=Path, metavar="FILE",
                   help="Label Studio: the project's labelling config (XML): its choices "
                   "and their order become the label scheme")
    g.add_argument("--from-name", metavar="NAME",
                   help="Label Studio: the <Choices> group (from_name) to import when the "
                   "export has several, or other results besides choices")
    g.add_argument("--image-root", type=Path, metavar="DIR",
                   help="Label Studio: the folder its server paths map to: /data/upload/P/F "
                   "becomes DIR/P/F (DIR: Label Studio's media/upload folder) and "
                   "/data/local-files/?d=F becomes DIR/F")


def read_options(args: argparse.Namespace) -> ReadOptions:
    """How to read a ``--from`` file, from the command line; refuses options it cannot use."""
    from triage.ingest.exchange import ReadOptions

    for name in ("gold", "skip_invalid", "add_scores"):
        if getattr(args, name, None):
            raise TriageError(f"--{name.replace('_', '-')} is not used with --from")
    if args.source_format != "labelstudio" and (args.ls_config or args.from_name):
        raise TriageError("--ls-config and --from-name are for --from labelstudio")
    if args.image_root is not None and not args.image_root.is_dir():
        raise TriageError(f"--image-root {args.image_root}: no such folder")
    return ReadOptions(text=args.text, key=args.key, scores=tuple(args.score),
                       from_name=args.from_name, config=args.ls_config,
                       default_annotator=args.annotator, image=args.image,
                       image_root=args.image_root)


def interchange_summary(target: object, result: ExchangeResult) -> str:
    """What an interchange import did: counts, then one line per note."""
    from triage.views.formatting import plural

    text = (f"{target}: {plural(result.candidates, 'candidate')}, "
            f"{plural(result.labels, 'label event')}"
            + (f"; models {', '.join(result.models)}" if result.models else ""))
    if result.already_present:
        text += f"; {result.already_present:,} already present, not added again"
    return text + "".join(f"\n  note: {n}" for n in result.notes)
