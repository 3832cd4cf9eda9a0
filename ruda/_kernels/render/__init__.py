"""Renderers of the kernel IR: the C-like base, CUDA and WGSL, the narrow-type storage pass, and
NVRTC compilation to PTX without a GPU."""
