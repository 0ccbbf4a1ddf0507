"""k100lc_kernels: GPU kernels of the Hygon K100_LC (gfx926) from Python.

    import numpy as np
    from k100lc_kernels import Runtime, info
    rt = Runtime()                       # the built k100lc_kernels.hsaco
    ...
    rt.launch("gemv_f32_warp_k", n, 64, [pw, px, py, n, k, 64])   # grid = workgroups
    rt.sync()

Without a DCU (no /dev/kfd) the engine runs kernels on the emulator
(K100_BACKEND=auto|emu|hsa). See runtime.Runtime and catalog. The catalog
helpers and the command line need only the standard library; Runtime needs
NumPy (imported when Runtime is first used).

``kernel`` decorates a function written in the kernel language
(docs/DSL.md, "From Python"): compiled by k100-cc on its first call and
launched with NumPy arrays or device pointers (dsl_kernel.py); ``interpret``
runs such a kernel on NumPy with the same semantics (interpreter.py).
"""
from .catalog import info, kernels

__all__ = ["Runtime", "LaunchPlan", "Event", "kernels", "info", "kernel", "interpret", "InterpretError"]


def __getattr__(name):
    if name == "kernel":  # the kernel-language decorator (dsl_kernel.py)
        from .dsl_kernel import kernel

        return kernel
    if name in ("interpret", "InterpretError"):  # the NumPy interpreter of the language (interpreter.py)
        from . import interpreter

        return getattr(interpreter, name)
    if name in ("Runtime", "LaunchPlan", "Event", "runtime"):
        import importlib

        runtime = importlib.import_module(".runtime", __name__)
        return runtime if name == "runtime" else getattr(runtime, name)
    raise AttributeError(f"module 'k100lc_kernels' has no attribute {name!r}")
