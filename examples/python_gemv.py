#!/usr/bin/env python3
"""The quick start: y = W x with gemv_f32_warp_k, checked against NumPy.

    source env.sh
    python3 examples/python_gemv.py [--hsaco PACKAGE] [--n 256] [--k 640]

Runs on the DCU when there is one, else on the emulator (K100_BACKEND).
"""
import argparse
import os
import sys
from pathlib import Path

try:
    import numpy as np
except ImportError:
    # NumPy comes from Debian (python3-numpy); another python3 first on PATH may lack it.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    sys.exit("python_gemv.py: NumPy is missing; install python3-numpy (scripts/setup.sh does)")

# Use the package of this checkout when env.sh has not been sourced.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
from k100lc_kernels import Runtime  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hsaco", default=None, help="kernel package (default: the built k100lc_kernels.hsaco)")
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--k", type=int, default=640)
    a = ap.parse_args()

    rt = Runtime(a.hsaco) if a.hsaco else Runtime()
    n, k = a.n, a.k
    w = np.random.default_rng(0).standard_normal((n, k), dtype=np.float32)
    x = np.random.default_rng(1).standard_normal(k, dtype=np.float32)
    pw, px, py = rt.alloc(w.nbytes), rt.alloc(x.nbytes), rt.alloc(n * 4)
    rt.upload(pw, w)
    rt.upload(px, x)
    # the grid is the number of WORKGROUPS (one 64-wide workgroup per row), not of work-items
    start = rt.record_event()
    rt.launch("gemv_f32_warp_k", n, 64, [pw, px, py, n, k, 64])
    end = rt.record_event()
    rt.sync()
    y = rt.download(py, n, np.float32)
    ref = w.astype(np.float64) @ x.astype(np.float64)  # the reference in double precision
    err = float(np.abs(y - ref).max())
    print(f"backend {rt.backend}: gemv {n}x{k} max error {err:.3g} ({start.elapsed_ms(end):.3f} ms)")
    for p in (pw, px, py):
        rt.free(p)
    return 0 if err < 1e-4 * max(1.0, float(np.abs(ref).max()) / 100) else 1


if __name__ == "__main__":
    raise SystemExit(main())
