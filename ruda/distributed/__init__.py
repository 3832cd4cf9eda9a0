"""ruda.distributed: collectives over MPI and NCCL (issue 8).

Not built yet: this package holds the place the layout reserves for it.
"""

__all__: list[str] = []
