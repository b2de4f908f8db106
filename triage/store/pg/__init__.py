"""The PostgreSQL team store: a project on a server, with a SQLite replica on each client.

PostgreSQL holds the authoritative copy; every client works on an ordinary project file
kept in step by :func:`triage.store.pg.copy.pull_into`. Modules: :mod:`.url` (the
``postgresql://…?project=NAME`` address), :mod:`.connect` (psycopg connections and error
mapping), :mod:`.schema` (tables, roles, row-level security and functions on the server),
:mod:`.copy` (push and pull), :mod:`.ingest` (a pool straight to the server with COPY).

``psycopg`` is imported inside functions only: a user without a server never loads it.
"""
