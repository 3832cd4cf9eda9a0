"""ruda's C extensions, built by ``pip install -e .`` or ``scripts/build_ext.sh``.

``_speedups`` (the Array's C base and its hot operators), ``_cuda_fast`` (the cuda backend's
prepared launches) and ``_cpu_kernels`` (the cpu's random kernels). Each is optional: without it
the same Python code runs, only slower. They import nothing of ruda, so this package sits below
every layer (the modules that use them are wired up at run time: ``_speedups.init``,
``_cuda_fast.init``).
"""
