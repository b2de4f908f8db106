"""Dialogs: new project from a file, project settings."""
