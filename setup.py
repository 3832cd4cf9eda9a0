"""Build hook for ruda's C hot paths (the Array type, the CPU random kernels); metadata lives in
pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("ruda._speedups", ["ruda/_speedups.c"], extra_compile_args=["-O2"]),
        # -O3 vectorises the Philox rounds; no FP contraction keeps the float steps exact.
        Extension(
            "ruda._cpu_kernels",
            ["ruda/_cpu_kernels.c"],
            extra_compile_args=["-O3", "-Wall", "-Wextra", "-ffp-contract=off"],
        ),
    ]
)
