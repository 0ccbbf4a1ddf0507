#!/usr/bin/env python3
"""The quick start: y = W x with gemv_f32_warp_k, checked against NumPy.

    source env.sh
    python3 examples/python_gemv.py [--hsaco PACKAGE] [--n 256] [--k 640]

Runs on the DCU when there is one, else on the emulator (K100_BACKEND).
"""
import argparse

import numpy as np

from k100lc_kernels import Runtime


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
    err = float(np.abs(y - w @ x).max())
    print(f"backend {rt.backend}: gemv {n}x{k} max |y - W x| = {err:.3g} ({start.elapsed_ms(end):.3f} ms)")
    for p in (pw, px, py):
        rt.free(p)
    return 0 if err < 1e-3 * max(1.0, float(np.abs(w @ x).max())) else 1


if __name__ == "__main__":
    raise SystemExit(main())
