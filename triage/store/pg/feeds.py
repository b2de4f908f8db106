"""The read side of a project on the server: what blind labelling lets each role see.

An annotator has no SELECT on gold, rankings, certifications or leases, and sees only
their own rows of ``labels`` and ``sessions`` (row-level security). What a desk needs
beyond that comes through these SECURITY DEFINER functions, which blank what the caller
may not read:

- ``label_feed(after_seq, only bigint[] = NULL)``: label rows changed after ``after_seq``
  (in change order), with ``seq``. Another annotator's label reaches an annotator only as
  "handled by someone": value, note, seconds and ``served_by`` blank, the retry key
  replaced, its times rounded down to the hour, the kind reduced to
  what serving needs (``audit`` and ``certify`` kept, everything else ``triage``), and
  the lead's adjudications left out.
- ``annotator_feed(after_seq = NULL)``: the annotators (changed after ``after_seq``), with
  ``seq``; another annotator's ``created_at`` only to the day (an annotator reads the
  table's id, name, rate and ``seq`` directly, not when the others joined).
- ``active_kinds(candidate) → (annotator, kind)``: the same reduction, for a claim's check.
- ``session_feed(after_seq)``: sessions; on others' sessions host and version blank and
  the start and end rounded down to the hour, like their labels' times (not their pace).
- ``ranking_feed()``: every model's ranking; the scores only for the lead (an annotator's
  client rebuilds a stand-in that keeps the order).
- ``cal_feed(after_id)``: cal snapshots after ``after_id``; the scores only for the lead
  (as for rankings, an annotator's client keeps the order with stand-in scores).
- ``certification_feed()``: certification samples; found, p-value and sample counts only
  for the lead.
- ``model_feed()``: the models; the file their scores came from only for the lead.
- ``live_leases()``: leases not expired by the server's clock (candidate, session); for
  an annotator others' sessions are 0 (which desk moves on when is their pace).
- ``candidate_feed(after)``: candidates with an id above ``after``; for an annotator the
  extra columns (``meta``) only as far as the lead made them public (the project fact
  ``server_public_fields``, a JSON list of column names, and the picture's columns), and
  no gold.
- ``project_feed()``: the project's facts; for an annotator without the lead's paths
  (``source_file``, ``sources``) and the server's own settings.
"""

from __future__ import annotations

from triage.store.pg.tables import pg_type, table
from triage.store.pg.url import ServerUrl

# Another annotator's label: no value, note, time or retry key; its moment only to the hour.
_MASKED = {"value": "NULL", "note": "NULL", "seconds": "0", "served_by": "NULL",
           "uid": "'seen-' || l.id", "created_at": "left(l.created_at, 13) || ':00:00+00:00'",
           "undone_at": "CASE WHEN l.undone_at IS NOT NULL "
                        "THEN left(l.undone_at, 13) || ':00:00+00:00' END",
           "kind": "CASE WHEN l.kind IN ('audit', 'certify') THEN l.kind ELSE 'triage' END"}
_CERT_MASKED = {"found": "0", "p_value": "NULL", "sample_n": "NULL", "sample_k": "NULL"}

_FEEDS = r"""
CREATE OR REPLACE FUNCTION {s}.label_feed(p_after bigint, p_only bigint[] DEFAULT NULL)
  RETURNS TABLE({label_out}, seq bigint) LANGUAGE sql STABLE {head}
  WITH who AS MATERIALIZED (SELECT {is_lead} AS lead, {my_id} AS me)
  SELECT {label_select}, l.seq
  FROM labels l CROSS JOIN who
  CROSS JOIN LATERAL (SELECT NOT who.lead AND l.annotator_id IS DISTINCT FROM who.me) x(masked)
  WHERE l.seq > p_after AND (p_only IS NULL OR l.id = ANY(p_only))
    AND NOT (x.masked AND l.kind = 'adjudication')
  ORDER BY l.seq $fn$;

CREATE OR REPLACE FUNCTION {s}.annotator_feed(p_after bigint DEFAULT NULL)
  RETURNS TABLE({annotator_out}, seq bigint) LANGUAGE sql STABLE {head}
  WITH who AS MATERIALIZED (SELECT {is_lead} AS lead)
  SELECT {annotator_select}, a.seq FROM annotators a CROSS JOIN who
  WHERE p_after IS NULL OR a.seq > p_after ORDER BY a.seq $fn$;

CREATE OR REPLACE FUNCTION {s}.active_kinds(p_candidate bigint)
  RETURNS TABLE(annotator text, kind text) LANGUAGE sql STABLE {head}
  WITH who AS MATERIALIZED (SELECT {is_lead} AS lead)
  SELECT a.name, CASE WHEN who.lead OR a.name = session_user THEN l.kind
                      WHEN l.kind IN ('audit', 'certify') THEN l.kind ELSE 'triage' END
  FROM labels l JOIN annotators a ON a.id = l.annotator_id CROSS JOIN who
  WHERE l.candidate_id = p_candidate AND l.undone_at IS NULL
    AND (who.lead OR a.name = session_user OR l.kind <> 'adjudication') $fn$;

CREATE OR REPLACE FUNCTION {s}.session_feed(p_after bigint DEFAULT 0)
  RETURNS TABLE({session_out}, seq bigint) LANGUAGE sql STABLE {head}
  WITH who AS MATERIALIZED (SELECT {is_lead} AS lead, {my_id} AS me)
  SELECT {session_select}, t.seq FROM sessions t CROSS JOIN who
  WHERE t.seq > p_after ORDER BY t.seq $fn$;

CREATE OR REPLACE FUNCTION {s}.ranking_feed()
  RETURNS TABLE(model_id bigint, candidate_ids bytea, scores bytea) LANGUAGE sql STABLE {head}
  SELECT r.model_id, r.candidate_ids, CASE WHEN is_lead() THEN r.scores END
  FROM rankings r ORDER BY r.model_id $fn$;

CREATE OR REPLACE FUNCTION {s}.cal_feed(p_after bigint)
  RETURNS TABLE({cal_out}) LANGUAGE sql STABLE {head}
  SELECT {cal_select} FROM cal_snapshots c WHERE c.id > p_after ORDER BY c.id $fn$;

CREATE OR REPLACE FUNCTION {s}.certification_feed()
  RETURNS TABLE({cert_out}) LANGUAGE sql STABLE {head}
  WITH who AS MATERIALIZED (SELECT is_lead() AS lead)
  SELECT {cert_select} FROM certifications c CROSS JOIN who ORDER BY c.id $fn$;

CREATE OR REPLACE FUNCTION {s}.candidate_feed(p_after bigint)
  RETURNS TABLE(id bigint, key text, text text, meta text, gold text) LANGUAGE sql STABLE {head}
  WITH who AS MATERIALIZED (SELECT is_lead() AS lead),
  public AS (SELECT array_agg(name) AS names FROM (
    SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(value::jsonb) = 'array'
                                          THEN value::jsonb ELSE '[]' END) AS name
      FROM project WHERE key = 'server_public_fields' AND value ~ '^\s*\['
    UNION SELECT value FROM project WHERE key IN ('image_column', 'image_caption')) p)
  SELECT c.id, c.key, c.text,
    CASE WHEN who.lead OR c.meta IS NULL THEN c.meta
         ELSE (SELECT jsonb_object_agg(e.k, e.v)::text FROM jsonb_each(c.meta::jsonb) e(k, v)
               WHERE e.k = ANY(public.names)) END,
    CASE WHEN who.lead THEN c.gold END
  FROM candidates c CROSS JOIN who CROSS JOIN public WHERE c.id > p_after ORDER BY c.id $fn$;

CREATE OR REPLACE FUNCTION {s}.project_feed()
  RETURNS TABLE(key text, value text) LANGUAGE sql STABLE {head}
  SELECT p.key, p.value FROM project p
  WHERE p.key NOT LIKE 'server\_%' AND (is_lead() OR p.key NOT IN ('source_file', 'sources'))
  ORDER BY p.key $fn$;

CREATE OR REPLACE FUNCTION {s}.model_feed()
  RETURNS TABLE({model_out}) LANGUAGE sql STABLE {head}
  WITH who AS MATERIALIZED (SELECT is_lead() AS lead)
  SELECT {model_select} FROM models m CROSS JOIN who ORDER BY m.id $fn$;

CREATE OR REPLACE FUNCTION {s}.live_leases()
  RETURNS TABLE(candidate_id bigint, session_id bigint) LANGUAGE sql STABLE {head}
  WITH who AS MATERIALIZED (SELECT {is_lead} AS lead, {my_id} AS me)
  SELECT c.candidate_id, CASE WHEN who.lead OR t.annotator_id = who.me THEN c.session_id
                              ELSE 0 END
  FROM claims c JOIN sessions t ON t.id = c.session_id CROSS JOIN who
  WHERE c.expires_at > extract(epoch FROM clock_timestamp()) $fn$;
"""


def _outputs(table_name: str) -> str:
    return ", ".join(f"{c.name} {pg_type(c.type)}" for c in table(table_name).columns)


def _cast(column: str, expression: str, table_name: str) -> str:
    kind = pg_type(next(c.type for c in table(table_name).columns if c.name == column))
    return f"({expression})::{kind}"


def _session_column(column: str) -> str:
    """One column of ``session_feed``: others' host and version blank, their times coarse."""
    own = "who.lead OR t.annotator_id = who.me"
    if column in ("host", "app_version"):
        return f"CASE WHEN {own} THEN t.{column} END"
    if column in ("started_at", "ended_at"):
        return (f"CASE WHEN {own} OR t.{column} IS NULL THEN t.{column} "
                f"ELSE left(t.{column}, 13) || ':00:00+00:00' END")
    return f"t.{column}"


def feed_statements(url: ServerUrl) -> list[str]:
    """CREATE OR REPLACE statements for the feeds above."""
    from triage.store.pg.functions import render

    label_select = ", ".join(
        f"CASE WHEN x.masked THEN {_cast(c, _MASKED[c], 'labels')} ELSE l.{c} END"
        if c in _MASKED else f"l.{c}" for c in table("labels").names)
    session_select = ", ".join(_session_column(c) for c in table("sessions").names)
    cert_select = ", ".join(
        f"CASE WHEN who.lead THEN c.{c} ELSE {_cast(c, _CERT_MASKED[c], 'certifications')} END"
        if c in _CERT_MASKED else f"c.{c}" for c in table("certifications").names)
    cal_select = ", ".join(
        f"CASE WHEN is_lead() THEN c.{c} END" if c == "scores" else f"c.{c}"
        for c in table("cal_snapshots").names)
    model_select = ", ".join(
        f"CASE WHEN who.lead THEN m.{c} END" if c == "source_file" else f"m.{c}"
        for c in table("models").names)
    annotator_select = ", ".join(
        f"CASE WHEN who.lead OR a.name = session_user THEN a.{c} "
        f"ELSE left(a.{c}, 10) || 'T00:00:00+00:00' END" if c == "created_at" else f"a.{c}"
        for c in table("annotators").names)
    text = (_FEEDS.replace("{label_out}", _outputs("labels"))
            .replace("{annotator_out}", _outputs("annotators"))
            .replace("{annotator_select}", annotator_select)
            .replace("{model_out}", _outputs("models"))
            .replace("{model_select}", model_select)
            .replace("{cal_out}", _outputs("cal_snapshots"))
            .replace("{cal_select}", cal_select)
            .replace("{label_select}", label_select)
            .replace("{session_out}", _outputs("sessions"))
            .replace("{session_select}", session_select)
            .replace("{cert_out}", _outputs("certifications"))
            .replace("{cert_select}", cert_select))
    return render(text, url)


__all__ = ["feed_statements"]
