"""Build hook for the C hot paths of ruda.Array; all metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("ruda._speedups", ["ruda/_speedups.c"], extra_compile_args=["-O2"])])
