"""k100lc_kernels: GPU kernels of the Hygon K100_LC (gfx926) from Python.

    import numpy as np
    from k100lc_kernels import Runtime, info
    rt = Runtime()                       # the built k100lc_kernels.hsaco
    ...
    rt.launch("gemv_f32_warp_k", n, 64, [pw, px, py, n, k, 64])   # grid = workgroups
    rt.sync()

Without a DCU (no /dev/kfd) the engine runs kernels on the emulator
(K100_BACKEND=auto|emu|hsa). See runtime.Runtime and catalog.
"""
from .catalog import info, kernels
from .runtime import Event, LaunchPlan, Runtime

__all__ = ["Runtime", "LaunchPlan", "Event", "kernels", "info"]
