"""The kernel IR and its CUDA C++ and WGSL renderers (issues 3 and 4).

Not built yet: the first GPU backend creates the IR here; the NumPy backend needs none.
"""

__all__: list[str] = []
