"""Placeholder: filled in by its chapter."""

__all__: list[str] = []
