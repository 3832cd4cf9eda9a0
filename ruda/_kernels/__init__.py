"""The kernel layer: the IR (ir.py) and its renderers (render/), the device math library (math/),
the kernel builders per family, and the autotuner (tune/)."""
