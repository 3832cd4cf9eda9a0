"""ruda.nn: attention, convolution, normalisation and activations.

Not built yet: this package holds the place the layout reserves for it.
"""

__all__: list[str] = []
