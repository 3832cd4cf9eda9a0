"""NumPy's ndarray methods and attributes, attached to Array over the namespace functions.

Each method is the namespace function with ``self`` first, so every backend serves them.
"""

from __future__ import annotations
