"""Characters of notes per annotator, kept by triggers on ``labels`` for the note quota.

The pace check (:mod:`.judge`) refuses a note that would take an annotator's notes past
``server_note_quota``. Summing her notes at every label grew with her labels (a millisecond
and more at ten thousand noted labels), so ``note_chars`` keeps the sum: row triggers on
``labels`` add a new note's length, move an edited one's and take away a deleted one's
(whoever writes: the judge's functions or the lead's repairs), a TRUNCATE empties it, and
``server init`` counts it afresh under the order lock every label write holds.
"""

from __future__ import annotations

from triage.store.pg.url import ServerUrl

INTERNAL = ("count_note_chars", "forget_note_chars")

_NOTES = r"""
CREATE TABLE IF NOT EXISTS {s}.note_chars (annotator_id bigint PRIMARY KEY,
  chars bigint NOT NULL);

CREATE OR REPLACE FUNCTION {s}.count_note_chars() RETURNS trigger LANGUAGE plpgsql {head}
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.note IS NOT NULL THEN
    UPDATE note_chars SET chars = chars - length(OLD.note) WHERE annotator_id = OLD.annotator_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.note IS NOT NULL THEN
    INSERT INTO note_chars (annotator_id, chars) VALUES (NEW.annotator_id, length(NEW.note))
      ON CONFLICT (annotator_id) DO UPDATE SET chars = note_chars.chars + excluded.chars;
  END IF;
  RETURN NULL;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.forget_note_chars() RETURNS trigger LANGUAGE plpgsql {head}
BEGIN
  DELETE FROM note_chars;
  RETURN NULL;
END $fn$;

CREATE OR REPLACE TRIGGER labels_note_added AFTER INSERT ON {s}.labels
  FOR EACH ROW WHEN (NEW.note IS NOT NULL) EXECUTE FUNCTION {s}.count_note_chars();

CREATE OR REPLACE TRIGGER labels_note_changed AFTER UPDATE OF note, annotator_id ON {s}.labels
  FOR EACH ROW WHEN (OLD.note IS DISTINCT FROM NEW.note
                     OR OLD.annotator_id IS DISTINCT FROM NEW.annotator_id)
  EXECUTE FUNCTION {s}.count_note_chars();

CREATE OR REPLACE TRIGGER labels_note_deleted AFTER DELETE ON {s}.labels
  FOR EACH ROW WHEN (OLD.note IS NOT NULL) EXECUTE FUNCTION {s}.count_note_chars();

CREATE OR REPLACE TRIGGER labels_note_truncated AFTER TRUNCATE ON {s}.labels
  FOR EACH STATEMENT EXECUTE FUNCTION {s}.forget_note_chars();

DO $do$
BEGIN
  -- Run by server init: count every annotator's notes once (a project set up before the
  -- triggers, or repaired without them), while no label is written.
  PERFORM {s}.order_lock();
  DELETE FROM {s}.note_chars;
  INSERT INTO {s}.note_chars (annotator_id, chars)
    SELECT annotator_id, sum(length(note)) FROM {s}.labels WHERE note IS NOT NULL
    GROUP BY annotator_id;
END $do$
"""


def notes_template(url: ServerUrl) -> str:
    """The table, triggers and count above (the project's names are filled later)."""
    del url   # the same for every project
    return _NOTES


__all__ = ["INTERNAL", "notes_template"]
