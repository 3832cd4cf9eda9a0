"""ruda.dataset: SQLite-backed dataset storage (issue 7).

Not built yet: this package holds the place the layout reserves for it.
"""

__all__: list[str] = []
