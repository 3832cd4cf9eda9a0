"""Radix sort kernels: the sort plans, key transforms, and the set functions (unique)."""
