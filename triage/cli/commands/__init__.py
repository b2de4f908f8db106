"""Subcommands of the ``triage`` command line, one module each (see :mod:`triage.cli.program`).

A module named ``import_`` provides the ``import`` command (the trailing underscore only
avoids the Python keyword).
"""
