"""Linear layers over 4-bit weights (PYTHON_API.md 7.3 and 7.4, and NVFP4):
``Int4Linear`` (a compressed-tensors INT4 tensor; W4A16, W4A8 or W4A4),
``RT4Linear`` (RT4 weights already on the device) and ``NVFP4Linear`` (an
nvfp4-pack-quantized tensor with int8 activations per 16). Exported by
``k100lc_kernels.model`` beside the other layers.

    from k100lc_kernels import Runtime, quant
    from k100lc_kernels.model import Int4Linear, NVFP4Linear
    rt = Runtime()
    packed, scales = quant.pack_int4_group128(w)               # w f32 [n, k]
    lin = Int4Linear(rt, n, k, packed, scales, path="w4a8")
    y = lin.forward(x)                                          # x [rows, k] -> [rows, n]
    codes, e4m3, gs = quant.pack_nvfp4(w)
    y = NVFP4Linear(rt, n, k, codes, e4m3, gs).forward(x)

As every layer: ``forward_device(x_dev, rows, sync=False, out_dev=None)``
enqueues and returns the device pointer of y ([rows, n] f32; by default a
workspace buffer under the layer's tag, overwritten by the next call);
``forward(x)`` uploads, runs, syncs and downloads. The launches go through
a ``W4Runner`` (``runner=`` shares one, and its scratch, between layers), so
every one takes its geometry from the kernel's launch contract. Errors:
``ValueError`` naming the argument (shapes, byte counts, divisibility, a path
or prefill mode that does not exist).
"""
from __future__ import annotations

import math

import numpy as np

from . import quant
from .w4_runner import W4Runner, _count

__all__ = ["Int4Linear", "RT4Linear", "NVFP4Linear"]

_PATHS = ("w4a16", "w4a8", "w4a4")
_MAX_ROWS = 4


def _bytes(data, nbytes: int, what: str) -> np.ndarray:
    raw = quant._raw(data, what)
    if raw.size != nbytes:
        raise ValueError(f"{what} has {raw.size} bytes, expected {nbytes}")
    return raw


def _workspace(rt, ws):
    if ws is not None:
        return ws
    from .model import Workspace
    return Workspace(rt)


class _W4Layer:
    """What the three layers share: workspace, runner, the host forward."""

    def _setup(self, rt, n, k, ws, tag, runner, default_tag):
        self.rt, self.n, self.k = rt, _count(n, "n"), _count(k, "k")
        self.ws = _workspace(rt, ws)
        self.tag = tag if tag is not None else default_tag
        self.runner = runner if runner is not None else W4Runner(rt)

    def _out(self, rows: int, out_dev):
        return out_dev if out_dev is not None else self.ws.buffer(f"{self.tag}.out", rows * self.n * 4)

    def forward(self, x, sync: bool = True):
        """y = W x for host rows x [rows, k]: f32 [rows, n] (the device pointer of y when sync is False)."""
        x = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
        if x.ndim == 1:
            x = x.reshape(1, -1)
        if x.ndim != 2 or x.shape[1] != self.k:
            raise ValueError(f"{self.tag}: x must be [rows, k = {self.k}], got shape {x.shape}")
        y = self.forward_device(self.ws.upload(f"{self.tag}.x", x), x.shape[0])
        if not sync:
            return y
        return self.rt.download(y, x.shape[0] * self.n, np.float32).reshape(x.shape[0], self.n)


class Int4Linear(_W4Layer):
    """A compressed-tensors INT4 (group 128) linear layer (PYTHON_API.md 7.3).

    ``Int4Linear(rt, n, k, packed, scales_bf16, path="w4a8", ws=None, tag=None, runner=None,
    prefill="gemm")``: `packed` the ``weight_packed`` bytes (u32 [n, k/8], offset-binary codes),
    `scales_bf16` the ``weight_scale`` bytes (bf16 [n, k/128]). `path`:

    * ``"w4a16"``: f32 activations against the raw bytes (``int4_gemv_k``, or ``int4_dot_k`` with
      ``reduce_blocks_k``); attributes ``w``, ``scale``;
    * ``"w4a8"`` / ``"w4a4"``: converted once to two's-complement nibbles and f16 scales
      (``quant.ct_int4_to_rt4``) plus the group-major f32 scales of the GEMM; attributes ``wq``,
      ``ws_f16``, ``wsc_gm``.

    ``forward_device``: rows % 128 == 0 and n % 64 == 0 with ``prefill="gemm"`` on a W4A8 / W4A4
    layer run the W4A4 GEMM (int4 activations whatever the path); otherwise the decode GEMV of the
    path, up to four rows per launch."""

    def __init__(self, rt, n, k, packed, scales_bf16, path="w4a8", ws=None, tag=None, runner=None, prefill="gemm"):
        if path not in _PATHS:
            raise ValueError(f"path {path!r} is not one of {', '.join(map(repr, _PATHS))}")
        if prefill not in ("gemm", "gemv"):
            raise ValueError(f"prefill {prefill!r} is not 'gemm' or 'gemv'")
        self._setup(rt, n, k, ws, tag, runner, "int4linear")
        if self.k % quant.GROUP:
            raise ValueError(f"{self.tag}: k = {self.k} is not a multiple of the INT4 group {quant.GROUP}")
        self.path, self.prefill = path, prefill
        q = _bytes(packed, self.n * self.k // 2, f"{self.tag}: packed")
        s = _bytes(scales_bf16, self.n * (self.k // quant.GROUP) * 2, f"{self.tag}: scales_bf16")
        if path == "w4a16":
            self.w = self.ws.upload(f"{self.tag}.w", q)
            self.scale = self.ws.upload(f"{self.tag}.scale", s)
        else:
            q4, s16 = quant.ct_int4_to_rt4(q, s)
            self.wq = self.ws.upload(f"{self.tag}.wq", q4)
            self.ws_f16 = self.ws.upload(f"{self.tag}.ws_f16", s16)
            self.wsc_gm = self.ws.upload(f"{self.tag}.wsc_gm", quant.int4_scale_group_first_f32(s, self.n, self.k))

    def _weights(self):
        return (self.w, self.scale) if self.path == "w4a16" else (self.wq, self.ws_f16)

    def forward_device(self, x_dev, rows, sync=False, out_dev=None) -> int:
        """Enqueues y [rows, n] = W x for `rows` f32 rows at x_dev; the device pointer of y."""
        rows = _count(rows, f"{self.tag}: rows")
        out = self._out(rows, out_dev)
        if (self.path != "w4a16" and self.prefill == "gemm" and rows % W4Runner.BM == 0
                and self.n % W4Runner.BN == 0):
            self.runner.gemm_device(self.wq, self.wsc_gm, None, self.n, self.k, x_dev=x_dev, m=rows, c_dev=out,
                                    sync=False)
        else:
            w, s = self._weights()
            for r0 in range(0, rows, _MAX_ROWS):
                m = min(_MAX_ROWS, rows - r0)
                self.runner.gemv_device(self.path, w, s, None, self.n, self.k, x_dev=x_dev + r0 * self.k * 4, m=m,
                                        y_dev=out + r0 * self.n * 4, sync=False)
        if sync:
            self.rt.sync()
        return out


class RT4Linear:
    """A linear layer over RT4 weights already on the device (PYTHON_API.md 7.4): `wq` the
    two's-complement codes, `ws_scale` the f16 scales [n, k/128] (``RT4File.upload_weight``), `path`
    ``"w4a8"`` or ``"w4a4"``; 1 to 4 rows a call. Without `out_dev` the output is the runner's
    scratch buffer ``"<tag>.y"`` of that size."""

    def __init__(self, rt, n, k, wq, ws_scale, path="w4a8", runner=None, tag=None):
        if path not in ("w4a8", "w4a4"):
            raise ValueError(f"path {path!r} is not 'w4a8' or 'w4a4'")
        self.rt, self.n, self.k = rt, _count(n, "n"), _count(k, "k")
        if self.k % quant.GROUP:
            raise ValueError(f"k = {self.k} is not a multiple of the INT4 group {quant.GROUP}")
        self.wq, self.ws_scale, self.path = wq, ws_scale, path
        self.runner = runner if runner is not None else W4Runner(rt)
        self.tag = tag if tag is not None else "rt4linear"

    def forward_device(self, x_dev, rows, sync=False, out_dev=None) -> int:
        """Enqueues y [rows, n] (rows = 1..4) for the f32 rows at x_dev; the device pointer of y."""
        rows = _count(rows, f"{self.tag}: rows")
        y = out_dev if out_dev is not None else self.runner.scratch(f"{self.tag}.y", rows * self.n * 4)
        return self.runner.gemv_device(self.path, self.wq, self.ws_scale, None, self.n, self.k, x_dev=x_dev, m=rows,
                                       y_dev=y, sync=sync)

    def forward(self, x) -> np.ndarray:
        """y = W x for host rows x [rows, k] (rows = 1..4): f32 [rows, n]."""
        x = np.asarray(x, dtype=np.float32)
        return self.runner.gemv(self.path, self.wq, self.ws_scale, x.reshape(1, -1) if x.ndim == 1 else x,
                                self.n, self.k)


class NVFP4Linear(_W4Layer):
    """An NVFP4 linear layer (nvfp4-pack-quantized; FORMATS.md 5): `packed_u8` the E2M1 codes
    ([n, k/2] bytes, even k in the low nibble), `scale_e4m3` the block scales ([n, k/16] bytes),
    `global_scale` the tensor's ``weight_global_scale`` (a divisor: w = E2M1 * E4M3 /
    global_scale). Activations are quantised per row and block of 16 to int8 (``nvfp4_quant_act``),
    then one GEMV takes up to four rows a launch with 1 / global_scale as its multiplier:
    ``nvfp4_gemv_fast_k`` when the package has it, k % 32 == 0 and ``use_fast`` (an attribute,
    True by default), else ``nvfp4_gemv<M,NROW>`` (``NROW``, weight rows per wave, a class
    attribute)."""

    NROW = 1
    FAST = "nvfp4_gemv_fast_k"

    def __init__(self, rt, n, k, packed_u8, scale_e4m3, global_scale, ws=None, tag=None, runner=None):
        self._setup(rt, n, k, ws, tag, runner, "nvfp4linear")
        if self.k % quant.NVFP4_BLOCK:
            raise ValueError(f"{self.tag}: k = {self.k} is not a multiple of the NVFP4 block {quant.NVFP4_BLOCK}")
        gs = float(global_scale)
        if not (math.isfinite(gs) and gs > 0):
            raise ValueError(f"{self.tag}: global_scale = {global_scale!r} is not a positive finite number")
        self.global_scale = gs
        self.inv_global_scale = float(np.float32(1) / np.float32(gs))
        self.wq = self.ws.upload(f"{self.tag}.wq", _bytes(packed_u8, self.n * self.k // 2, f"{self.tag}: packed_u8"))
        self.wscale = self.ws.upload(f"{self.tag}.wscale", _bytes(scale_e4m3, self.n * (self.k // quant.NVFP4_BLOCK),
                                                                  f"{self.tag}: scale_e4m3"))
        self.use_fast = True

    def kernel(self, m: int) -> str:
        """The GEMV for m activation rows (1..4)."""
        if self.use_fast and self.k % 32 == 0 and self.rt.has(self.FAST):
            return self.FAST
        return f"nvfp4_gemv<{m},{self.NROW}>"

    def forward_device(self, x_dev, rows, sync=False, out_dev=None) -> int:
        """Enqueues y [rows, n] = W x for `rows` f32 rows at x_dev (chunks of up to four rows); the
        device pointer of y."""
        rows = _count(rows, f"{self.tag}: rows")
        out = self._out(rows, out_dev)
        k, g = self.k, self.k // quant.NVFP4_BLOCK
        chunk = min(rows, _MAX_ROWS)
        a = self.ws.buffer(f"{self.tag}.act_even", chunk * k // 2)
        b = self.ws.buffer(f"{self.tag}.act_odd", chunk * k // 2)
        s = self.ws.buffer(f"{self.tag}.act_scale", chunk * g * 4)
        for r0 in range(0, rows, _MAX_ROWS):
            m = min(_MAX_ROWS, rows - r0)
            one = {"n": self.n, "N": self.n, "k": k, "K": k, "m": 1, "M": 1, "rows": 1}
            for r in range(m):
                self.runner.launch("nvfp4_quant_act", one, [x_dev + (r0 + r) * k * 4, a + r * k // 2, b + r * k // 2,
                                                            s + r * g * 4, 1, k])
            sizes = dict(one, m=m, M=m, rows=m)
            kernel = self.kernel(m)
            argv = [self.wq, self.wscale, a, b, s, out + r0 * self.n * 4, self.n, k, self.inv_global_scale]
            self.runner.launch(kernel, sizes, argv + [None] if kernel == self.FAST else argv)  # m: derived
        if sync:
            self.rt.sync()
        return out
