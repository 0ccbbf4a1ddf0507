"""Model layers and GGUF models (PYTHON_API.md sections 4 and 7): a binding of
the C++ model module through libk100_model.so (ctypes), on the same engine as
``Runtime`` (device pointers are shared).

    import numpy as np
    from k100lc_kernels import Runtime
    from k100lc_kernels.model import F32Linear, RMSNorm, Model
    rt = Runtime()
    lin = F32Linear(rt, 64, 256, np.random.rand(64, 256).astype(np.float32))
    y = lin.forward(np.ones((1, 256), np.float32))          # [1, 64]
    m = Model(rt, "model.gguf", context=128)
    m.forward(1, 0); logits = m.logits()                    # one sync

Every layer takes an optional ``ws`` (Workspace) and ``tag``; its buffers live
under keys derived from the tag. ``forward_device`` only enqueues (unless
``sync=True``); ``forward`` uploads, runs, syncs and downloads. Errors:
``ValueError`` for arguments a layer refuses (shapes, sizes, capacity),
``RuntimeError`` for a failure on the device; messages name the layer and the
argument. The library is ``$K100LC_MODEL``, the installed one beside the
engine, or ``<build>/libk100_model.so`` (``_paths.model_library``).
"""
from __future__ import annotations

import ctypes
import json
import os

import numpy as np

from . import _engine, _paths, gguf
from .w4_linear import Int4Linear, NVFP4Linear, RT4Linear

__all__ = ["Workspace", "F32Linear", "DotLinear", "GemvLinear", "FloatLinear", "RMSNorm", "SwiGLU", "MLP", "MoECombine",
           "MoEExperts", "KVCache", "Attention", "FlashAttention", "RoPE", "Sampler", "TransformerLayer",
           "run_sequence", "cdiv", "div_magic", "gemv_f32", "gemv_f32_acc", "Model", "generate", "QUANT_SPECS",
           "ROWS8_MAX_K", "SPLIT_SOFTMAX_MIN_PAD", "SPLITK_VTP", "RMSNORM_DEEP_MIN_DIM", "Int4Linear", "RT4Linear",
           "NVFP4Linear"]

ROWS8_MAX_K = 512
SPLIT_SOFTMAX_MIN_PAD = 2048
SPLITK_VTP = True
RMSNORM_DEEP_MIN_DIM = 2048

_H, _U64, _I64, _F32, _P = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int64, ctypes.c_float, ctypes.c_void_p
_PU64, _PI64 = ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_int64)
_CS = ctypes.c_char_p
_PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p)
_SIGNATURES = {
    "k100m_last_error": (ctypes.c_char_p, []),
    "k100m_free": (None, [_H]),
    "k100m_workspace_new": (_H, []),
    "k100m_workspace_buffer": (ctypes.c_int, [_H, _CS, ctypes.c_size_t, _PU64]),
    "k100m_workspace_size": (ctypes.c_int, [_H, _CS, ctypes.POINTER(ctypes.c_size_t)]),
    "k100m_workspace_clear": (ctypes.c_int, [_H]),
    "k100m_f32_linear_new": (_H, [_I64, _I64, _P, _H, _CS]),
    "k100m_float_linear_new": (_H, [_I64, _I64, ctypes.c_uint32, _P, ctypes.c_size_t, _I64, _H, _CS]),
    "k100m_dot_linear_new": (_H, [_I64, _I64, _CS, _P, ctypes.c_size_t, _PU64, ctypes.c_int, _H, _CS]),
    "k100m_gemv_linear_new": (_H, [_I64, _I64, _CS, _P, ctypes.c_size_t, _I64, _H, _CS]),
    "k100m_gemv_linear_fused": (ctypes.c_int, [_H, ctypes.c_int, _U64, _U64, _U64, _U64, _U64, _F32]),
    "k100m_linear_info": (ctypes.c_int, [_H, _PI64, _PI64, _PU64, ctypes.POINTER(ctypes.c_uint32)]),
    "k100m_linear_forward": (ctypes.c_int, [_H, _U64, _I64, _U64, ctypes.c_int, _PU64]),
    "k100m_linear_forward_selected": (ctypes.c_int, [_H, _U64, _U64, _I64, ctypes.c_int, _U64]),
    "k100m_dot_linear_forward_experts": (ctypes.c_int, [_H, _U64, _U64, ctypes.c_uint32, _I64, _I64, _U64, _PU64]),
    "k100m_quant_spec": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_CS), ctypes.POINTER(_CS),
                                        ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
                                        ctypes.POINTER(ctypes.c_int)]),
    "k100m_div_magic": (ctypes.c_int, [_I64, _I64, ctypes.POINTER(ctypes.c_uint32)]),
    "k100m_gemv_f32": (ctypes.c_int, [_U64, _U64, _U64, _I64, _I64, ctypes.c_int]),
    "k100m_rmsnorm_new": (_H, [_I64, _P, _F32, _H, _CS]),
    "k100m_rmsnorm_forward": (ctypes.c_int, [_H, _U64, _I64, _U64, _PU64]),
    "k100m_swiglu_new": (_H, [_H, _CS]),
    "k100m_swiglu_forward": (ctypes.c_int, [_H, _U64, _U64, _I64, _U64, _PU64]),
    "k100m_mlp_new": (_H, [_H, _H, _H, _H, _CS, _CS]),
    "k100m_mlp_forward": (ctypes.c_int, [_H, _U64, _I64, _PU64]),
    "k100m_moe_combine_new": (_H, [_I64, _I64, _I64, _H, _CS]),
    "k100m_moe_combine_slot": (ctypes.c_int, [_H, _I64, _PU64]),
    "k100m_moe_combine_forward": (ctypes.c_int, [_H, _U64, _PU64]),
    "k100m_moe_experts_new": (_H, [ctypes.POINTER(_H), ctypes.c_int, _I64, _I64, _I64, _I64, _H, _CS]),
    "k100m_moe_experts_route": (ctypes.c_int, [_H, _P, _P, _I64, _P, _PI64, _P, _P, _P, _P]),
    "k100m_moe_experts_forward": (ctypes.c_int, [_H, _U64, _I64, _P, _P, _PU64]),
    "k100m_kv_cache_new": (_H, [_I64, _I64, _H, _CS]),
    "k100m_kv_cache_append": (ctypes.c_int, [_H, _U64, _U64, _I64, ctypes.c_int]),
    "k100m_cache_info": (ctypes.c_int, [_H, _PU64, _PU64, _PI64]),
    "k100m_reset": (ctypes.c_int, [_H]),
    "k100m_attention_new": (_H, [_I64, _I64, _H, _CS, _I64]),
    "k100m_flash_attention_new": (_H, [_I64, _I64, _I64, _H, _CS, _I64]),
    "k100m_attention_append": (ctypes.c_int, [_H, _U64, _U64, _I64, ctypes.c_int]),
    "k100m_attention_forward": (ctypes.c_int, [_H, _U64, _I64, _U64, _PU64]),
    "k100m_flash_attention_plan": (ctypes.c_int, [_H, _I64, _PI64, _PI64, _PI64]),
    "k100m_rope_new": (_H, [_I64, _I64, ctypes.c_double, _H, _CS]),
    "k100m_rope_forward": (ctypes.c_int, [_H, _U64, _I64, _I64, _U64, ctypes.c_int, _PU64]),
    "k100m_transformer_layer_new": (_H, [_I64, _I64, _I64, _I64, _I64, _P, _P, _P, _P, _P, _P, _F32, _H, _CS]),
    "k100m_transformer_layer_forward": (ctypes.c_int, [_H, _U64, _I64, _PU64]),
    "k100m_argmax_device": (ctypes.c_int, [_H, _U64, _I64, _I64, _PU64]),
    "k100m_sample": (ctypes.c_int, [_P, _I64, _I64, _F32, ctypes.c_int32, _F32, _U64, _PI64]),
    "k100m_model_load": (_H, [_CS, _I64, _PROGRESS, _P]),
    "k100m_model_config": (ctypes.c_int, [_H, ctypes.c_char_p, ctypes.c_size_t]),
    "k100m_model_forward": (ctypes.c_int, [_H, ctypes.c_int32, _I64, _PU64]),
    "k100m_model_logits": (ctypes.c_int, [_H, _P, _I64]),
    "k100m_generate_main": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_CS)]),
}
_lib = None


def _library():
    global _lib
    if _lib is None:
        _engine.load()  # the engine first: the model library shares its device
        path = _paths.model_library()
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise RuntimeError(f"cannot load the model library {path}: {e} (build it, or set K100LC_MODEL)") from None
        for name, (res, args) in _SIGNATURES.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        _lib = lib
    return _lib


def _error() -> str:
    msg = _library().k100m_last_error()
    return msg.decode("utf-8", "replace") if msg else ""


def _check(rc, exc=RuntimeError):
    if rc < 0:
        raise exc(_error())
    return rc


def _new(fn, *args):
    h = getattr(_library(), fn)(*args)
    if not h:
        raise ValueError(_error())
    return h


def _tag(tag, default):
    return (tag if tag is not None else default).encode()


def _f32(a, what, shape=None) -> np.ndarray:
    arr = np.ascontiguousarray(np.asarray(a, dtype=np.float32))
    if shape is not None and arr.size != int(np.prod(shape)):
        raise ValueError(f"{what} has {arr.size} values, expected {int(np.prod(shape))} ({' x '.join(map(str, shape))})")
    return arr


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.c_void_p)


def _out():
    return ctypes.c_uint64()


class _Object:
    """Owns one library handle."""

    _h = None

    def __del__(self):
        if self._h and _lib is not None:
            _lib.k100m_free(self._h)
            self._h = None

    def _sync(self, sync):
        if sync:
            self.rt.sync()


# ---------------------------------------------------------------- helpers

def cdiv(a: int, b: int) -> int:
    """Ceiling of a / b for positive b."""
    return -(-a // b)


def div_magic(d: int, max_i: int) -> int:
    """M with (i*M) >> 32 == i // d for every 0 <= i < max_i (ValueError when none)."""
    m = ctypes.c_uint32()
    _check(_library().k100m_div_magic(d, max_i, ctypes.byref(m)), ValueError)
    return m.value


def gemv_f32(rt, w, x, y, nrows, k):
    """y = W x (rows8 or one wave per row, as PYTHON_API.md 4.2)."""
    _check(_library().k100m_gemv_f32(w, x, y, nrows, k, 0))


def gemv_f32_acc(rt, w, x, y, nrows, k):
    """y += W x."""
    _check(_library().k100m_gemv_f32(w, x, y, nrows, k, 1))


def _quant_specs():
    out = {}
    i = 0
    kind, kernel, elems, nbytes, tables = _CS(), _CS(), ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_int()
    while _library().k100m_quant_spec(i, *(ctypes.byref(v) for v in (kind, kernel, elems, nbytes, tables))) == 0:
        out[kind.value.decode()] = (kernel.value.decode(), elems.value, nbytes.value, tables.value)
        i += 1
    return out


_spec_cache = None


def _specs():
    global _spec_cache
    if _spec_cache is None:
        _spec_cache = _quant_specs()
    return _spec_cache


def __getattr__(name):
    # QUANT_SPECS: kind -> (dot kernel, elements per block, bytes per block, number of tables), read from the library
    if name == "QUANT_SPECS":
        return dict(_specs())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------- Workspace

class Workspace(_Object):
    """Keyed device buffers reused across tokens and layers (PYTHON_API.md 4.1)."""

    def __init__(self, rt):
        self.rt = rt
        self._h = _new("k100m_workspace_new")

    def buffer(self, key: str, nbytes: int) -> int:
        """The device pointer of buffer `key`, (re)allocated to at least nbytes."""
        p = _out()
        _check(_library().k100m_workspace_buffer(self._h, key.encode(), int(nbytes), ctypes.byref(p)), ValueError)
        return p.value

    def upload(self, key: str, data) -> int:
        """Copies a NumPy array or bytes into buffer `key` (grown to fit); its device pointer."""
        arr = data if isinstance(data, np.ndarray) else np.frombuffer(memoryview(data).cast("B"), np.uint8)
        p = self.buffer(key, arr.nbytes)
        self.rt.upload(p, arr)
        return p

    def size(self, key: str) -> int:
        """The size in bytes of buffer `key` (ValueError for an unknown key)."""
        n = ctypes.c_size_t()
        _check(_library().k100m_workspace_size(self._h, key.encode(), ctypes.byref(n)))
        return n.value

    def free(self):
        """Frees every buffer of the workspace."""
        _check(_library().k100m_workspace_clear(self._h))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()


def _ws(rt, ws):
    return ws if ws is not None else Workspace(rt)


# ---------------------------------------------------------------- linear layers

class _Linear(_Object):
    def _info(self):
        n, k, w, t = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_uint64(), ctypes.c_uint32()
        _check(_library().k100m_linear_info(self._h, ctypes.byref(n), ctypes.byref(k), ctypes.byref(w), ctypes.byref(t)))
        self.n, self.k, self.w = n.value, k.value, w.value

    def forward_device(self, x_dev: int, rows: int, sync: bool = False, out_dev: int | None = None,
                       accumulate: bool = False) -> int:
        """Enqueues y = W x for `rows` rows of x at x_dev (y += W x with accumulate); the pointer of y."""
        y = _out()
        _check(_library().k100m_linear_forward(self._h, x_dev, rows, out_dev or 0, int(accumulate), ctypes.byref(y)),
               ValueError)
        self._sync(sync)
        return y.value

    def forward(self, x, sync: bool = True):
        """y = W x for a host array x of rows of k values; [rows, n] float32 (a device pointer when sync is False)."""
        x = _f32(x, "x")
        if x.size % self.k:
            raise ValueError(f"{self.tag}: x has {x.size} values, not rows of k = {self.k}")
        rows = x.size // self.k
        y = self.forward_device(self.ws.upload(f"{self.tag}.x", x), rows)
        if not sync:
            return y
        return self.rt.download(y, rows * self.n, np.float32).reshape(rows, self.n)

    def forward_selected(self, x_dev, ids_dev, count, x_per_group, out_dev):
        """out[s] = W_{ids[s]} x_s for s < count (groups of the weight; MoE experts)."""
        _check(_library().k100m_linear_forward_selected(self._h, x_dev, ids_dev, count, int(x_per_group), out_dev),
               ValueError)


class F32Linear(_Linear):
    """f32 weights [n, k] uploaded once (PYTHON_API.md 7.1)."""

    def __init__(self, rt, n, k, weight, ws=None, tag=None):
        self.rt, self.ws, self.tag = rt, _ws(rt, ws), tag if tag is not None else "f32linear"
        self._weight = _f32(weight, f"{self.tag}: weight", (n, k))
        self._h = _new("k100m_f32_linear_new", n, k, _ptr(self._weight), self.ws._h, self.tag.encode())
        self._info()


class FloatLinear(_Linear):
    """f16 / bf16 weights (raw bytes), optionally `groups` groups of n rows."""

    def __init__(self, rt, n, k, dtype, weight_bytes, ws=None, tag=None, groups=1):
        types = {"f32": 0, "f16": 1, "bf16": 30}
        if dtype not in types:
            raise ValueError(f"dtype must be one of {sorted(types)}, not {dtype!r}")
        self.rt, self.ws, self.tag = rt, _ws(rt, ws), tag if tag is not None else "floatlinear"
        raw = np.frombuffer(memoryview(weight_bytes).cast("B"), np.uint8)
        self._h = _new("k100m_float_linear_new", n, k, types[dtype], _ptr(raw), raw.nbytes, groups, self.ws._h,
                       self.tag.encode())
        self._info()


class DotLinear(_Linear):
    """GGUF block weights decoded inside the dot product (PYTHON_API.md 7.2)."""

    def __init__(self, rt, n, k, kind, weight_bytes, tables=(), ws=None, tag=None):
        if kind not in _specs() and isinstance(kind, str) and gguf.kernel_prefix_of(kind) in _specs():
            kind = gguf.kernel_prefix_of(kind)      # a format's ggml name ("q4_K") -> its spec ("q4k")
        if kind not in _specs():
            raise ValueError(f"kind {kind!r} is not one of {sorted(_specs())}")
        _, elems, _, ntables = _specs()[kind]
        if k % elems:
            raise ValueError(f"k = {k} is not a multiple of the {kind} block ({elems})")
        if tables and len(tables) != ntables:
            raise ValueError(f"{kind} takes {ntables} tables, got {len(tables)}")
        self.rt, self.ws, self.tag, self.kind = rt, _ws(rt, ws), tag if tag is not None else "dotlinear", kind
        raw = np.frombuffer(memoryview(weight_bytes).cast("B"), np.uint8)
        tab = (ctypes.c_uint64 * max(1, len(tables)))(*[int(t) for t in tables])
        self._h = _new("k100m_dot_linear_new", n, k, kind.encode(), _ptr(raw), raw.nbytes, tab, len(tables),
                       self.ws._h, self.tag.encode())
        self._info()

    def forward_experts(self, x_dev, rows, ids_dev, stride_bytes, rows_per_exp, rows_per_w, out_dev=None, sync=False):
        """Enqueues the grouped product: row groups of rows_per_w rows read expert ids[g] at stride_bytes, rows_per_exp rows per activation row; the pointer of y."""
        y = _out()
        _check(_library().k100m_dot_linear_forward_experts(self._h, x_dev, ids_dev, stride_bytes, rows_per_exp,
                                                           rows_per_w, out_dev or 0, ctypes.byref(y)), ValueError)
        self._sync(sync)
        return y.value


class GemvLinear(_Linear):
    """GGUF block weights repacked once into the GEMV layout (``gguf.repack_for_gemv``) and run on
    the fast decode GEMVs (``gguf.gemv_kernel(kind)``; docs/MODEL.md): the dense projections of
    ``Model``. ``kind`` is the format's name (``"q4_K"``, ``"q8_0"``, ``"iq2_xxs"``, ...: one of
    ``gguf.GEMV_TYPES``; the short names of ``QUANT_SPECS``, ``"q4k"``, are accepted with a
    ``FutureWarning``), weight_bytes the GGUF blocks of ``groups`` matrices of [n, k]. ``forward`` and
    ``forward_device`` as for every linear layer (up to four rows per launch); the fused forms below
    take one row and device pointers only."""

    def __init__(self, rt, n, k, kind, weight_bytes, ws=None, tag=None, groups=1):
        try:
            kind = gguf.format_name(kind)
        except ValueError:
            pass
        if kind not in gguf.GEMV_TYPES:
            raise ValueError(f"kind {kind!r} is not one of {sorted(gguf.GEMV_TYPES)}")
        self.rt, self.ws, self.tag, self.kind = rt, _ws(rt, ws), tag if tag is not None else "gemvlinear", kind
        raw = np.frombuffer(memoryview(weight_bytes).cast("B"), np.uint8)
        self._h = _new("k100m_gemv_linear_new", n, k, kind.encode(), _ptr(raw), raw.nbytes, groups, self.ws._h,
                       self.tag.encode())
        self._info()

    def _fused(self, form, x_dev, y_dev, a, b, c, eps, sync):
        _check(_library().k100m_gemv_linear_fused(self._h, form, x_dev, y_dev, a, b, c, eps), ValueError)
        self._sync(sync)

    def accumulate_scaled(self, x_dev, y_dev, scale_dev=0, y_scaled_dev=0, ss_dev=0, sync=False):
        """Enqueues y += W x for one row (``<type>_gemv_acc_k``); with scale_dev and y_scaled_dev
        also y_scaled = y * scale (n floats each), with ss_dev the sums of the new y^2 over each
        64 rows (ceil(n / 64) floats): the residual add and the next norm's inputs."""
        self._fused(0, x_dev, y_dev, scale_dev, y_scaled_dev, ss_dev, 0.0, sync)

    def rms_scaled(self, x_dev, ss_dev, eps, y_dev, sync=False):
        """Enqueues y = r W x for one row (``<type>_gemv_rms_k``), r = 1 / sqrt(sum(ss) / k + eps)
        over the ceil(k / 64) partial sums of squares at ss_dev (r = 1 when ss_dev is 0)."""
        self._fused(1, x_dev, y_dev, ss_dev, 0, 0, float(eps), sync)

    def swiglu(self, x_dev, ss_dev, eps, y_dev, sync=False):
        """Enqueues y = silu(r G x) * (r U x) for one row (``<type>_gemv_swiglu_k``): the layer's
        rows are G (the first n / 2) then U; r as in rms_scaled; y holds n / 2 floats."""
        self._fused(2, x_dev, y_dev, ss_dev, 0, 0, float(eps), sync)


# ---------------------------------------------------------------- norm, activation, MLP

class RMSNorm(_Object):
    """y = x / sqrt(mean(x^2) + eps) * w per row of dim (PYTHON_API.md 7.5)."""

    def __init__(self, rt, dim, weight, eps=1e-6, ws=None, tag=None):
        self.rt, self.ws, self.tag, self.dim, self.eps = rt, _ws(rt, ws), tag if tag is not None else "rmsnorm", dim, eps
        w = _f32(weight, f"{self.tag}: weight", (dim,))
        self._h = _new("k100m_rmsnorm_new", dim, _ptr(w), eps, self.ws._h, self.tag.encode())

    def forward_device(self, x_dev, rows, sync=False, out_dev=None):
        """Enqueues the norm of `rows` rows at x_dev; the pointer of the result."""
        y = _out()
        _check(_library().k100m_rmsnorm_forward(self._h, x_dev, rows, out_dev or 0, ctypes.byref(y)), ValueError)
        self._sync(sync)
        return y.value

    def forward(self, x):
        """The norm of a host array of rows of dim values; [rows, dim] float32."""
        x = _f32(x, "x")
        rows = x.size // self.dim
        y = self.forward_device(self.ws.upload(f"{self.tag}.x", x), rows)
        return self.rt.download(y, rows * self.dim, np.float32).reshape(rows, self.dim)


class SwiGLU(_Object):
    """out = silu(gate) * up over n elements (PYTHON_API.md 7.6)."""

    def __init__(self, rt, ws=None, tag="swiglu"):
        self.rt, self.ws, self.tag = rt, _ws(rt, ws), tag
        self._h = _new("k100m_swiglu_new", self.ws._h, tag.encode())

    def forward_device(self, gate_dev, up_dev, n, out_dev=None, sync=False):
        """Enqueues silu(gate) * up over n elements; the pointer of the result."""
        y = _out()
        _check(_library().k100m_swiglu_forward(self._h, gate_dev, up_dev, n, out_dev or 0, ctypes.byref(y)), ValueError)
        self._sync(sync)
        return y.value


class MLP(_Object):
    """down(silu(gate(x)) * up(x)) (PYTHON_API.md 7.7); the layers are bound linear layers."""

    def __init__(self, rt, gate, up, down, ws=None, tag="mlp", act="silu"):
        if act != "silu":
            raise ValueError(f"activation {act!r} is not supported (only 'silu')")
        self.rt, self.ws, self.tag = rt, _ws(rt, ws), tag
        self._layers = (gate, up, down)
        self.n = down.n
        self._h = _new("k100m_mlp_new", gate._h, up._h, down._h, self.ws._h, tag.encode(), act.encode())

    def forward_device(self, x_dev, rows, sync=False):
        """Enqueues the MLP over `rows` rows at x_dev; the pointer of the result."""
        y = _out()
        _check(_library().k100m_mlp_forward(self._h, x_dev, rows, ctypes.byref(y)), ValueError)
        self._sync(sync)
        return y.value

    def forward(self, x):
        """The MLP of a host array of rows; [rows, n] float32."""
        k = self._layers[0].k
        x = _f32(x, "x")
        rows = x.size // k
        y = self.forward_device(self.ws.upload(f"{self.tag}.x", x), rows)
        return self.rt.download(y, rows * self.n, np.float32).reshape(rows, self.n)


# ---------------------------------------------------------------- MoE

class MoECombine(_Object):
    """y[r] = sum_e weights[r, e] exp_out[e, r] (PYTHON_API.md 7.8)."""

    def __init__(self, rt, rows, dim, n_exp, ws=None, tag="moe"):
        self.rt, self.ws, self.tag, self.rows, self.dim, self.n_exp = rt, _ws(rt, ws), tag, rows, dim, n_exp
        self._h = _new("k100m_moe_combine_new", rows, dim, n_exp, self.ws._h, tag.encode())

    def slot(self, e):
        """The device pointer of expert e's output slab [rows, dim], where its layer writes."""
        p = _out()
        _check(_library().k100m_moe_combine_slot(self._h, e, ctypes.byref(p)), ValueError)
        return p.value

    def forward_device(self, weights_dev=None, sync=False):
        """Enqueues the weighted sum over the slots (weights [rows, n_exp] at weights_dev); the pointer of y."""
        y = _out()
        _check(_library().k100m_moe_combine_forward(self._h, weights_dev or 0, ctypes.byref(y)))
        self._sync(sync)
        return y.value

    def forward(self, exp_out, weights):
        """The weighted sum of host expert outputs [n_exp, rows, dim] by weights [rows, n_exp]; [rows, dim] float32."""
        e = _f32(exp_out, "exp_out", (self.n_exp, self.rows, self.dim))
        w = _f32(weights, "weights", (self.rows, self.n_exp))
        self.rt.upload(self.slot(0), e)
        wp = self.ws.upload(f"{self.tag}.weights_in", w)
        y = self.forward_device(wp)
        return self.rt.download(y, self.rows * self.dim, np.float32).reshape(self.rows, self.dim)


class MoEExperts(_Object):
    """Token -> expert bucketed MoE over bound expert layers (PYTHON_API.md 7.9)."""

    def __init__(self, rt, experts, rows, dim, out_dim, topk, ws=None, tag="moe_experts"):
        self.rt, self.ws, self.tag, self.topk, self.out_dim, self.dim = rt, _ws(rt, ws), tag, topk, out_dim, dim
        self._experts = list(experts)
        hs = (ctypes.c_void_p * max(1, len(self._experts)))(*[e._h for e in self._experts])
        self._h = _new("k100m_moe_experts_new", hs, len(self._experts), rows, dim, out_dim, topk, self.ws._h,
                       tag.encode())

    def _assignments(self, ids, weights):
        ids = np.ascontiguousarray(np.asarray(ids, dtype=np.int32))
        w = np.ascontiguousarray(np.asarray(weights, dtype=np.float32))
        if ids.shape != w.shape or ids.ndim != 2 or ids.shape[1] != self.topk:
            raise ValueError(f"ids and weights must both be [rows, {self.topk}], got {ids.shape} and {w.shape}")
        return ids, w

    def route(self, ids, weights):
        """(bucket_rows, pos, weights, offsets, valid) of the assignments."""
        ids, w = self._assignments(ids, weights)
        rows, n = ids.shape[0], ids.size
        bucket = np.zeros(max(n, 1), np.int32)
        total = ctypes.c_int64()
        pos, wo, valid = np.zeros(ids.shape, np.int32), np.zeros(ids.shape, np.float32), np.zeros(ids.shape, np.uint8)
        offsets = np.zeros(len(self._experts) + 1, np.int32)
        _check(_library().k100m_moe_experts_route(self._h, _ptr(ids), _ptr(w), rows, _ptr(bucket), ctypes.byref(total),
                                                  _ptr(pos), _ptr(wo), _ptr(offsets), _ptr(valid)), ValueError)
        return bucket[:total.value], pos, wo, offsets, valid.astype(bool)

    def forward_device(self, x_dev, rows, ids, weights, sync=False):
        """Enqueues the bucketed experts for `rows` rows at x_dev with host ids/weights [rows, topk]; the pointer of y."""
        ids, w = self._assignments(ids, weights)
        y = _out()
        _check(_library().k100m_moe_experts_forward(self._h, x_dev, rows, _ptr(ids), _ptr(w), ctypes.byref(y)),
               ValueError)
        self._sync(sync)
        return y.value

    def forward(self, x, ids, weights):
        """The bucketed experts of a host array of rows; [rows, out_dim] float32."""
        x = _f32(x, "x")
        rows = x.size // self.dim
        y = self.forward_device(self.ws.upload(f"{self.tag}.x_in", x), rows, ids, weights)
        return self.rt.download(y, rows * self.out_dim, np.float32).reshape(rows, self.out_dim)


# ---------------------------------------------------------------- caches, attention, RoPE

class _Cache(_Object):
    def _info(self):
        a, b, n = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_int64()
        _check(_library().k100m_cache_info(self._h, ctypes.byref(a), ctypes.byref(b), ctypes.byref(n)))
        return a.value, b.value, n.value

    @property
    def length(self):
        return self._info()[2]

    def reset(self):
        """Empties the cache (length 0); the buffers stay allocated."""
        _check(_library().k100m_reset(self._h))


class KVCache(_Cache):
    """Plain f32 K and V [max_len, dim] (PYTHON_API.md 7.10)."""

    def __init__(self, rt, dim, max_len, ws=None, tag="kv"):
        self.rt, self.ws, self.tag, self.dim = rt, _ws(rt, ws), tag, dim
        self._h = _new("k100m_kv_cache_new", dim, max_len, self.ws._h, tag.encode())
        self.k, self.v, _ = self._info()

    def append_device(self, k_dev, v_dev, rows, sync=False):
        """Enqueues the append of `rows` K and V rows from device pointers."""
        _check(_library().k100m_kv_cache_append(self._h, k_dev, v_dev, rows, 1), ValueError)
        self._sync(sync)

    def append(self, k, v):
        """Appends host K and V rows of dim values."""
        k, v = _f32(k, "k"), _f32(v, "v")
        _check(_library().k100m_kv_cache_append(self._h, k.ctypes.data, v.ctypes.data, k.size // self.dim, 0),
               ValueError)


class _Attention(_Cache):
    def append_device(self, k_dev, v_dev, rows):
        """Enqueues the append of `rows` K and V rows from device pointers to the caches."""
        _check(_library().k100m_attention_append(self._h, k_dev, v_dev, rows, 1), ValueError)

    def append(self, k, v):
        """Appends host K and V rows to the caches."""
        k, v = _f32(k, "k"), _f32(v, "v")
        _check(_library().k100m_attention_append(self._h, k.ctypes.data, v.ctypes.data, k.size // self._kv_dim, 0),
               ValueError)

    def forward_device(self, q_dev, n_kv=None, sync=False, out_dev=None):
        """Enqueues attention of q at q_dev over the first n_kv cached rows (all when None); the pointer of the output."""
        y = _out()
        _check(_library().k100m_attention_forward(self._h, q_dev, n_kv or 0, out_dev or 0, ctypes.byref(y)), ValueError)
        self._sync(sync)
        return y.value

    def forward(self, q, n_kv=None, sync=True):
        """Attention of a host q over the cache; dim float32 values (a device pointer when sync is False)."""
        q = _f32(q, "q")
        if q.size != self.dim:
            raise ValueError(f"{self.tag}: q has {q.size} values, dim is {self.dim}")
        y = self.forward_device(self.ws.upload(f"{self.tag}.q_in", q), n_kv)
        if not sync:
            return y
        return self.rt.download(y, self.dim, np.float32)


class Attention(_Attention):
    """Single-head decode attention, caches K [max_len, dim] and V^T [dim, max_len] (PYTHON_API.md 7.11)."""

    def __init__(self, rt, dim, max_len, ws=None, tag="attn", n_split=128):
        self.rt, self.ws, self.tag, self.dim, self._kv_dim = rt, _ws(rt, ws), tag, dim, dim
        self._h = _new("k100m_attention_new", dim, max_len, self.ws._h, tag.encode(), n_split)


class FlashAttention(_Attention):
    """Multi-head decode attention in two launches (PYTHON_API.md 7.12); n_kv_heads < n_heads: grouped-query."""

    def __init__(self, rt, n_heads, head_dim, max_len, ws=None, tag="fmha", n_kv_heads=None):
        self.rt, self.ws, self.tag = rt, _ws(rt, ws), tag
        self.n_heads, self.head_dim = n_heads, head_dim
        self.dim = n_heads * head_dim
        self._kv_dim = (n_kv_heads or n_heads) * head_dim
        self._h = _new("k100m_flash_attention_new", n_heads, head_dim, max_len, self.ws._h, tag.encode(),
                       n_kv_heads or 0)

    def plan(self, n_kv=None):
        """(pad, splits, rows per split) the two launches use for n_kv keys: the key rows the splits cover together, their number and each one's share."""
        p, s, r = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
        _check(_library().k100m_flash_attention_plan(self._h, n_kv or 0, ctypes.byref(p), ctypes.byref(s),
                                                     ctypes.byref(r)), ValueError)
        return p.value, s.value, r.value


class RoPE(_Object):
    """Rotate-half rotary embedding with float64 tables (PYTHON_API.md 7.13)."""

    def __init__(self, rt, dim, max_len, base=10000.0, ws=None, tag="rope"):
        self.rt, self.ws, self.tag, self.dim = rt, _ws(rt, ws), tag, dim
        self._h = _new("k100m_rope_new", dim, max_len, float(base), self.ws._h, tag.encode())

    def forward_device(self, x_dev, rows, pos=0, sync=False, out_dev=None, tsh=0):
        """Enqueues the rotation of `rows` rows at x_dev at positions pos, pos + 1, ...; the pointer of the result."""
        y = _out()
        _check(_library().k100m_rope_forward(self._h, x_dev, rows, pos, out_dev or 0, tsh, ctypes.byref(y)), ValueError)
        self._sync(sync)
        return y.value

    def forward(self, x, pos=0, sync=True):
        """The rotation of a host array of rows at positions from pos; same shape, float32."""
        x = _f32(x, "x")
        shape = np.shape(x)
        y = self.forward_device(self.ws.upload(f"{self.tag}.x_in", x), x.size // self.dim, pos)
        if not sync:
            return y
        return self.rt.download(y, x.size, np.float32).reshape(shape)


class Sampler(_Object):
    """The device argmax and the host sampler (PYTHON_API.md 7.14)."""

    def __init__(self, rt, ws=None, tag="sample"):
        self.rt, self.ws, self.tag = rt, _ws(rt, ws), tag

    def argmax_device(self, logits_dev, rows, cols):
        """The index of the largest of `cols` logits at logits_dev (first of equals), computed on the device."""
        idx = _out()
        _check(_library().k100m_argmax_device(self.ws._h, logits_dev, rows, cols, ctypes.byref(idx)), ValueError)
        return idx.value

    @staticmethod
    def greedy(logits):
        """The argmax of each row of logits (temperature 0)."""
        return Sampler.sample(logits, temperature=0.0)

    @staticmethod
    def sample(logits, temperature=1.0, top_k=0, top_p=1.0, rng=None):
        """One token id per row of logits: temperature, top-k, top-p; greedy at temperature 0."""
        rows = np.ascontiguousarray(np.atleast_2d(np.asarray(logits, dtype=np.float32)))
        if rng is None:
            rng = np.random.default_rng()
        seed = int(rng.integers(0, 2 ** 63)) if temperature > 0 else 0
        out = np.zeros(rows.shape[0], np.int64)
        _check(_library().k100m_sample(_ptr(rows), rows.shape[0], rows.shape[1], float(temperature), int(top_k),
                                       float(top_p), seed, out.ctypes.data_as(_PI64)), ValueError)
        return out


class TransformerLayer(_Object):
    """One decoder layer's decode step on f32 weights (PYTHON_API.md 7.15)."""

    def __init__(self, rt, dim, n_heads, head_dim, ffn, max_len, w_qkv, w_o, w_gate_up, w_down, w_norm1, w_norm2,
                 eps=1e-6, ws=None, tag="layer"):
        self.rt, self.ws, self.tag, self.dim = rt, _ws(rt, ws), tag, dim
        ws_ = [_f32(w_qkv, "w_qkv", (3 * dim, dim)), _f32(w_o, "w_o", (dim, dim)),
               _f32(w_gate_up, "w_gate_up", (2 * ffn, dim)), _f32(w_down, "w_down", (dim, ffn)),
               _f32(w_norm1, "w_norm1", (dim,)), _f32(w_norm2, "w_norm2", (dim,))]
        self._h = _new("k100m_transformer_layer_new", dim, n_heads, head_dim, ffn, max_len, *[_ptr(w) for w in ws_],
                       eps, self.ws._h, tag.encode())

    def forward_device(self, x_dev, pos, sync=False):
        """Enqueues the layer for the token at x_dev at position pos (appends to its cache); the pointer of the output."""
        y = _out()
        _check(_library().k100m_transformer_layer_forward(self._h, x_dev, pos, ctypes.byref(y)), ValueError)
        self._sync(sync)
        return y.value

    def forward(self, x, pos, sync=True):
        """The layer for a host token vector at position pos; dim float32 values."""
        x = _f32(x, "x", (self.dim,))
        y = self.forward_device(self.ws.upload(f"{self.tag}.x_in", x), pos)
        if not sync:
            return y
        return self.rt.download(y, self.dim, np.float32)

    def reset(self):
        """Empties the layer's KV cache."""
        _check(_library().k100m_reset(self._h))


def run_sequence(rt, ops, x_dev, sync=True):
    """x_dev = op(x_dev) for each op, then one sync when `sync`; the final pointer."""
    for op in ops:
        x_dev = op(x_dev)
    if sync:
        rt.sync()
    return x_dev


# ---------------------------------------------------------------- GGUF models

class Model(_Object):
    """A GGUF decoder model on the device: forward(token, pos) enqueues one pass; logits() syncs once."""

    def __init__(self, rt, path, context=0, progress=None):
        self.rt, self.path = rt, str(path)
        cb = _PROGRESS((lambda d, t, u: progress(d, t)) if progress else (lambda d, t, u: None))
        self._h = _new("k100m_model_load", self.path.encode(), int(context), cb, None)
        n = _library().k100m_model_config(self._h, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        _library().k100m_model_config(self._h, buf, n + 1)
        self.config = json.loads(buf.value.decode())
        self.n_vocab = self.config["n_vocab"]

    def forward(self, token: int, pos: int) -> int:
        """Enqueues one forward pass for token at position pos; the device pointer of the logits."""
        p = _out()
        _check(_library().k100m_model_forward(self._h, int(token), int(pos), ctypes.byref(p)), ValueError)
        return p.value

    def logits(self) -> np.ndarray:
        """Waits for the queued pass and returns its logits, n_vocab float32 values."""
        out = np.empty(self.n_vocab, np.float32)
        _check(_library().k100m_model_logits(self._h, _ptr(out), self.n_vocab))
        return out

    def reset(self):
        """Empties the model's KV caches."""
        _check(_library().k100m_reset(self._h))


def generate(args) -> int:
    """`python3 -m k100lc_kernels generate` with k100-generate's flags (the same command, in the model
    library); the exit status. Ctrl-C stops the generation at the next token (exit status 130)."""
    import sys
    from .runtime import Runtime

    prog = "python3 -m k100lc_kernels generate"
    if not any(a in ("--help", "-help", "--version", "-version", "--write-random-model") or
               a.startswith("--write-random-model=") for a in args):
        Runtime()  # opens the engine the model library runs on (and says which device)
    lib = _library()
    sys.stdout.flush()
    sys.stderr.flush()
    argv = [prog.encode()] + [os.fsencode(a) for a in args]
    arr = (_CS * len(argv))(*argv)
    return lib.k100m_generate_main(len(argv), arr)
