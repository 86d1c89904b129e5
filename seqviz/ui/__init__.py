"""Textual app and its widgets (the only package that imports textual)."""
