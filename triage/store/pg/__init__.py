"""The PostgreSQL team store: a project on a server, with a SQLite replica on each client.

PostgreSQL holds the authoritative copy; every client works on an ordinary project file
kept in step by :func:`triage.store.pg.pull.pull_into`. Modules: :mod:`.url` (the
``postgresql://…?project=NAME`` address), :mod:`.connect` (psycopg connections and error
mapping), :mod:`.schema` (tables, roles, grants, row-level security), :mod:`.functions`
(the checking write functions: the server judges every write), :mod:`.feeds` (what each
role may read), :mod:`.copy` (push), :mod:`.pull` and :mod:`.follow` (pulls by change
number), :mod:`.quarantine` (rows a replica cannot use), :mod:`.ingest` (a pool straight
to the server with COPY), :mod:`.link` and :mod:`.channel` (a replica's writes).

``psycopg`` is imported inside functions only: a user without a server never loads it.
"""
