"""Build hook for ruda's C hot paths (the Array type, the cuda backend's small-op launches, the CPU
random kernels); metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "ruda._native._speedups", ["ruda/_native/_speedups.c"], extra_compile_args=["-O2"]
        ),
        # No CUDA headers or libraries: the driver's functions come as addresses at run time.
        Extension(
            "ruda._native._cuda_fast",
            ["ruda/_native/_cuda_fast.c"],
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        ),
        # -O3 vectorises the Philox rounds; no FP contraction keeps the float steps exact.
        Extension(
            "ruda._native._cpu_kernels",
            ["ruda/_native/_cpu_kernels.c"],
            extra_compile_args=["-O3", "-Wall", "-Wextra", "-ffp-contract=off"],
        ),
    ]
)
