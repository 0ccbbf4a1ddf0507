"""GGUF files from Python: metadata, the tensor list, and tensors decoded by
k100lc's host codecs (the C++ reader and codecs through libk100_quant.so; no
second implementation in Python).

    from k100lc_kernels import gguf
    with gguf.open("model.gguf") as f:
        f.version, f.alignment                # 3, 32
        f.metadata["general.architecture"]    # 'llama'
        for t in f.tensors:                   # TensorInfo records, file order
            print(t.name, t.type, t.shape, t.nbytes)
        w = f.read("blk.0.attn_q.weight")     # float32 ndarray, NumPy shape
        rows = f.read_rows("token_embd.weight", 10, 2)   # rows 10..11, [2, row]
        raw = f.raw("blk.0.attn_q.weight")    # the stored block bytes (uint8 copy)
        d = f.read_on_device("blk.0.attn_q.weight")      # decoded by the device's kernels

Shapes: ``TensorInfo.dims`` is the GGUF order (elements per row first);
``TensorInfo.shape`` and every array returned are in NumPy order (the dims
reversed, rows first). Metadata values become ``int``, ``float``, ``bool``,
``str`` (UTF-8, undecodable bytes kept as surrogate escapes), NumPy arrays
for numeric arrays, lists of ``str`` for string arrays and lists for arrays of
arrays.

``read``/``read_rows`` decode with the host reference codecs, which are
bit-exact with ggml. ``read_on_device`` and ``dequantize_on_device`` decode
on the runtime's device (``runtime.Runtime``: the emulator without a DCU,
``K100_BACKEND`` chooses) with the kernel catalog's decoders
(``q4_0_dequant_k`` ..., ``q4k_dequant``, ``f16_to_f32_k`` /
``bf16_to_f32_k``; ``DEVICE_DECODERS``), which are bit-exact with them too.
The library is ``$K100LC_QUANT``, else ``<build>/libk100_quant.so`` (see
``_paths.build_dir``), else the loader's search path.

Errors: ``GGUFError`` (a ``RuntimeError``) for files that cannot be read and
tensors that cannot be decoded, with the message naming the file, key or
tensor and the byte offset; ``KeyError`` for a name that is not there;
``ValueError`` for bad arguments.
"""
from __future__ import annotations

import ctypes
import os
import threading
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import _paths

__all__ = ["open", "GGUFFile", "TensorInfo", "GGUFError", "dequantize", "quantize", "type_info",
           "type_id", "iq_table", "IQ_TABLES", "library_path", "dequantize_on_device", "DEVICE_DECODERS",
           "format_name", "kernel_prefix", "kernel_prefix_of", "repack_for_gemv", "gemv_kernel", "GEMV_TYPES"]

IQ_TABLES = ("iq2s_grid", "iq3s_grid", "iq3xxs_grid", "ksigns_iq2xs", "kmask_iq2xs", "kvalues_iq4nl",
             "iq2xxs_grid", "iq2xs_grid", "iq1s_grid", "kvalues_mxfp4")
_TABLE_DTYPES = {"iq2s_grid": "<u8", "iq3s_grid": "<u4", "iq3xxs_grid": "<u4", "ksigns_iq2xs": "u1",
                 "kmask_iq2xs": "u1", "kvalues_iq4nl": "i1", "iq2xxs_grid": "<u8", "iq2xs_grid": "<u8",
                 "iq1s_grid": "<u8", "kvalues_mxfp4": "i1"}

# GGUF metadata value type codes and NumPy dtypes of the fixed-size ones
_U8, _I8, _U16, _I16, _U32, _I32, _F32, _BOOL, _STRING, _ARRAY, _U64, _I64, _F64 = range(13)
_DTYPES = {_U8: "u1", _I8: "i1", _U16: "<u2", _I16: "<i2", _U32: "<u4", _I32: "<i4", _F32: "<f4",
           _BOOL: "?", _U64: "<u8", _I64: "<i8", _F64: "<f8"}


class GGUFError(RuntimeError):
    """A GGUF file that cannot be read, or a tensor that cannot be decoded."""


class _TensorInfoC(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_uint32), ("n_dims", ctypes.c_uint32),
                ("dims", ctypes.c_uint64 * 4), ("offset", ctypes.c_uint64), ("file_offset", ctypes.c_uint64),
                ("size", ctypes.c_uint64), ("elements", ctypes.c_uint64)]


_P, _I64 = ctypes.c_void_p, ctypes.c_int64
_SIGNATURES = {
    "k100q_last_error": (ctypes.c_char_p, []),
    "k100q_type_info": (ctypes.c_int, [ctypes.c_uint32, ctypes.POINTER(ctypes.c_char_p),
                                       ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
                                       ctypes.POINTER(ctypes.c_int)]),
    "k100q_type_from_name": (ctypes.c_int, [ctypes.c_char_p]),
    "k100q_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    "k100q_close": (None, [_P]),
    "k100q_version": (ctypes.c_uint32, [_P]),
    "k100q_alignment": (ctypes.c_uint32, [_P]),
    "k100q_data_offset": (ctypes.c_uint64, [_P]),
    "k100q_file_size": (ctypes.c_uint64, [_P]),
    "k100q_kv_count": (_I64, [_P]),
    "k100q_kv": (_P, [_P, _I64, ctypes.POINTER(ctypes.c_char_p)]),
    "k100q_value_type": (ctypes.c_int, [_P]),
    "k100q_value_scalar": (ctypes.c_int, [_P, _P, ctypes.c_size_t]),
    "k100q_value_string": (ctypes.c_int, [_P, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_uint64)]),
    "k100q_value_array": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_uint64)]),
    "k100q_value_array_data": (ctypes.c_int, [_P, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_uint64)]),
    "k100q_value_array_string": (ctypes.c_int, [_P, ctypes.c_uint64, ctypes.POINTER(_P),
                                                ctypes.POINTER(ctypes.c_uint64)]),
    "k100q_value_array_item": (_P, [_P, ctypes.c_uint64]),
    "k100q_tensor_count": (_I64, [_P]),
    "k100q_tensor_info_at": (ctypes.c_int, [_P, _I64, ctypes.POINTER(_TensorInfoC)]),
    "k100q_tensor_data": (ctypes.c_int, [_P, _I64, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_uint64)]),
    "k100q_tensor_dequantize_rows": (ctypes.c_int, [_P, _I64, ctypes.c_uint64, ctypes.c_uint64, _P,
                                                    ctypes.c_uint64]),
    "k100q_dequantize": (ctypes.c_int, [ctypes.c_uint32, _P, ctypes.c_uint64, _P, _I64]),
    "k100q_quantize": (ctypes.c_int, [ctypes.c_uint32, _P, _I64, _P, ctypes.c_uint64]),
    "k100q_row_bytes": (_I64, [ctypes.c_uint32, _I64]),
    "k100q_table": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_uint64)]),
    "k100q_gemv_layout_bytes": (_I64, [ctypes.c_uint32, _I64, _I64]),
    "k100q_repack_for_gemv": (ctypes.c_int, [ctypes.c_uint32, _I64, _I64, _P, ctypes.c_uint64, _P, ctypes.c_uint64]),
}

_lock = threading.Lock()
_lib = None


def library_path() -> str:
    """The library to load: K100LC_QUANT, the installed or <build>/libk100_quant.so, else the loader's search."""
    env = os.environ.get("K100LC_QUANT")
    if env:
        return env
    p = _paths.quant_library()
    return str(p) if p else "libk100_quant.so"


def _load():
    global _lib
    with _lock:
        if _lib is None:
            path = library_path()
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                raise GGUFError(f"cannot load {path}: {e} (build the tree, `source env.sh`, "
                                "or set K100LC_QUANT)") from None
            for name, (res, args) in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.restype = res
                fn.argtypes = args
            _lib = lib
        return _lib


def _error(lib) -> str:
    msg = lib.k100q_last_error()
    return msg.decode("utf-8", "replace") if msg else "unknown error"


def _check(lib, rc: int) -> int:
    if rc < 0:
        raise GGUFError(_error(lib))
    return rc


def _text(ptr, length) -> str:
    return ctypes.string_at(ptr, length).decode("utf-8", "surrogateescape") if length else ""


# ---------------------------------------------------------------------------------------------- types

def type_info(t: int | str) -> dict:
    """``{"id", "name", "block_elems", "block_bytes", "host_codec"}`` of a type id or name."""
    lib = _load()
    tid = type_id(t)
    name = ctypes.c_char_p()
    elems, nbytes, codec = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_int()
    if lib.k100q_type_info(tid, ctypes.byref(name), ctypes.byref(elems), ctypes.byref(nbytes),
                           ctypes.byref(codec)) < 0:
        raise ValueError(_error(lib))
    return {"id": tid, "name": name.value.decode(), "block_elems": elems.value, "block_bytes": nbytes.value,
            "host_codec": bool(codec.value)}


def type_id(t: int | str) -> int:
    """The ggml type id of a name ("q4_K", case-insensitive) or an id."""
    if isinstance(t, (int, np.integer)) and not isinstance(t, bool):
        return int(t)
    if not isinstance(t, str):
        raise ValueError(f"a tensor type is a name or an id, not {type(t).__name__}")
    lib = _load()
    rc = lib.k100q_type_from_name(t.encode())
    if rc < 0:
        raise ValueError(_error(lib))
    return rc


def format_name(t: int | str) -> str:
    """A format's one name, ggml's spelling ("q4_K", "iq3_xxs"), from a type id, a ggml name in any case,
    or the short name the kernel lookups and ``model.QUANT_SPECS`` use ("q4k", "iq3xxs": accepted, with
    a ``FutureWarning`` naming the format's name)."""
    if isinstance(t, str):
        short = _BY_PREFIX.get(t)
        if short is not None and short != t:
            warnings.warn(f"'{t}' is the kernels' short name of the format; its name is '{short}'", FutureWarning,
                          stacklevel=2)
            return short
    return type_info(t)["name"]


def kernel_prefix_of(name: str):
    """The kernel prefix of a ggml format name ("q4_K" -> "q4k", any case), or None for a name that is
    not a format with device kernels (no warning, no error: for lookups that try several spellings)."""
    lib = _load()
    tid = lib.k100q_type_from_name(name.encode()) if isinstance(name, str) else -1
    if tid < 0:
        return None
    return _BY_FORMAT.get(type_info(tid)["name"])


def kernel_prefix(t: int | str) -> str:
    """The prefix of a format's kernel lookup names: "q4k" for q4_K (``q4k_dequant``, ``q4k_gemv_k``),
    "q4_0" for q4_0. ``ValueError`` for a format without device kernels."""
    name = format_name(t)
    if name not in _BY_FORMAT:
        raise ValueError(f"no device kernels for type {name}; formats: {', '.join(_BY_FORMAT)}")
    return _BY_FORMAT[name]


def dequantize(t: int | str, data, n: int | None = None) -> np.ndarray:
    """Decodes ``n`` elements (all of them by default) of type ``t`` from the bytes of ``data``
    (bytes, bytearray, memoryview or an array) with the host codecs; returns a 1-D float32 array."""
    lib = _load()
    info = type_info(t)
    if isinstance(data, np.ndarray):  # its bytes, whatever the dtype
        buf = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    else:
        buf = np.frombuffer(data, dtype=np.uint8)
    if n is None:
        if buf.size % info["block_bytes"]:
            raise ValueError(f"{buf.size} bytes are not a whole number of {info['block_bytes']}-byte "
                             f"{info['name']} blocks")
        n = buf.size // info["block_bytes"] * info["block_elems"]
    out = np.empty(int(n), dtype=np.float32)
    rc = lib.k100q_dequantize(info["id"], buf.ctypes.data, buf.size, out.ctypes.data, int(n))
    if rc < 0:
        raise ValueError(_error(lib))
    return out


def quantize(t: int | str, values) -> bytes:
    """Encodes float values (their count a multiple of the block size) into blocks of type ``t``."""
    lib = _load()
    tid = type_id(t)
    x = np.ascontiguousarray(np.asarray(values, dtype=np.float32).reshape(-1))
    nbytes = lib.k100q_row_bytes(tid, x.size)
    if nbytes < 0:
        raise ValueError(_error(lib))
    out = np.empty(nbytes, dtype=np.uint8)
    if lib.k100q_quantize(tid, x.ctypes.data, x.size, out.ctypes.data, out.size) < 0:
        raise ValueError(_error(lib))
    return out.tobytes()


def iq_table(name: str) -> np.ndarray:
    """One of the i-quant tables (``IQ_TABLES``) as a NumPy array, e.g. for a device upload."""
    lib = _load()
    if name not in _TABLE_DTYPES:
        raise KeyError(f"no table {name!r}; tables: {', '.join(IQ_TABLES)}")
    ptr, size = _P(), ctypes.c_uint64()
    _check(lib, lib.k100q_table(name.encode(), ctypes.byref(ptr), ctypes.byref(size)))
    return np.frombuffer(ctypes.string_at(ptr, size.value), dtype=_TABLE_DTYPES[name]).copy()


# ------------------------------------------------------------------------------------- on the device

# Type name -> (decoder kernel, its table arguments in order, whether it takes group_size after
# nblocks). The K-quant decoders and the 16-bit converters index by global id instead.
DEVICE_DECODERS = {
    "q4_0": ("q4_0_dequant_k", (), True), "q8_0": ("q8_0_dequant_k", (), True),
    "q2_0": ("q2_0_dequant_k", (), True), "iq4_nl": ("iq4nl_dequant_k", (), True),
    "iq4_xs": ("iq4xs_dequant_k", (), True), "q4_K": ("q4k_dequant", (), False),
    "q5_K": ("q5k_dequant", (), False), "q6_K": ("q6k_dequant", (), False),
    "iq2_s": ("iq2s_dequant_k", ("iq2s_grid",), True), "iq3_s": ("iq3s_dequant_k", ("iq3s_grid",), True),
    "iq3_xxs": ("iq3xxs_dequant_k", ("iq3xxs_grid", "ksigns_iq2xs"), True),
    "q4_1": ("q4_1_dequant_k", (), True), "q5_0": ("q5_0_dequant_k", (), True),
    "q5_1": ("q5_1_dequant_k", (), True), "mxfp4": ("mxfp4_dequant_k", (), True),
    "q2_K": ("q2k_dequant_k", (), True), "q3_K": ("q3k_dequant_k", (), True),
    "iq2_xxs": ("iq2xxs_dequant_k", ("iq2xxs_grid", "ksigns_iq2xs"), True),
    "iq2_xs": ("iq2xs_dequant_k", ("iq2xs_grid", "ksigns_iq2xs"), True),
    "iq1_s": ("iq1s_dequant_k", ("iq1s_grid",), True), "iq1_m": ("iq1m_dequant_k", ("iq1s_grid",), True),
    "tq1_0": ("tq1_0_dequant_k", (), True), "tq2_0": ("tq2_0_dequant_k", (), True),
    "f16": ("f16_to_f32_k", (), False), "bf16": ("bf16_to_f32_k", (), False),
}
# format name -> kernel prefix (the decoder's lookup name without its suffix), and back
_BY_FORMAT = {t: k.removesuffix("_dequant_k").removesuffix("_dequant") for t, (k, _, _) in DEVICE_DECODERS.items()
              if k.endswith(("_dequant_k", "_dequant"))}
_BY_PREFIX = {p: t for t, p in _BY_FORMAT.items()}
_CHUNK_VALUES = 1 << 24  # values decoded per launch
_default_runtime = None
_device_tables = weakref.WeakKeyDictionary()  # runtime -> {table name: device pointer}


def _runtime(rt):
    global _default_runtime
    if rt is not None:
        return rt
    if _default_runtime is None:
        from .runtime import Runtime
        _default_runtime = Runtime()
    return _default_runtime


def _table_on(rt, name: str) -> int:
    tables = _device_tables.setdefault(rt, {})
    if name not in tables:
        table = iq_table(name)
        p = rt.alloc(table.nbytes)
        rt.upload(p, table)
        tables[name] = p
    return tables[name]


def _gemv_types() -> tuple:
    lib = _load()
    out = []
    for tid in range(64):
        name, elems = ctypes.c_char_p(), ctypes.c_uint32()
        if lib.k100q_type_info(tid, ctypes.byref(name), ctypes.byref(elems), None, None) < 0:
            continue
        if lib.k100q_gemv_layout_bytes(tid, 1, elems.value) >= 0:
            out.append(name.value.decode())
    return tuple(out)


def __getattr__(name):
    # GEMV_TYPES: the formats with a fast decode GEMV, from the library
    if name == "GEMV_TYPES":
        return _gemv_types()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def repack_for_gemv(t: int | str, n: int, k: int, data) -> np.ndarray:
    """The GEMV layout of an n x k matrix of type ``t`` (GGUF bytes: n rows of k elements, as in a file)
    that the fast decode GEMVs read (``gemv_kernel(t)``, docs/GGUF.md "The load-time repack"): a uint8
    array of the layout's bytes, to upload as their ``w``. ``ValueError`` for a type without a fast GEMV,
    a k that is not a whole number of blocks, or data that is not the n x k matrix."""
    lib = _load()
    tid = type_id(t) if not isinstance(t, str) else type_id(format_name(t))
    buf = np.ascontiguousarray(data).reshape(-1).view(np.uint8) if isinstance(data, np.ndarray) \
        else np.frombuffer(data, dtype=np.uint8)
    size = lib.k100q_gemv_layout_bytes(tid, int(n), int(k))
    if size < 0:
        raise ValueError(_error(lib))
    out = np.empty(size, dtype=np.uint8)
    if lib.k100q_repack_for_gemv(tid, int(n), int(k), buf.ctypes.data, buf.size, out.ctypes.data, out.size) < 0:
        raise ValueError(_error(lib))
    return out


def gemv_kernel(t: int | str, form: str = "") -> str:
    """The lookup name of a format's fast decode GEMV (``form`` "", "acc", "rms" or "swiglu" for the
    fused forms): gemv_kernel("q4_K") == "q4k_gemv_k", gemv_kernel("q4_K", "acc") == "q4k_gemv_acc_k"."""
    name = format_name(t)
    if name not in _gemv_types():
        raise ValueError(f"no fast GEMV for type {name}; types: {', '.join(_gemv_types())}")
    if form not in ("", "acc", "rms", "swiglu"):
        raise ValueError(f"form {form!r} is not '', 'acc', 'rms' or 'swiglu'")
    return kernel_prefix(name) + ("_gemv_" + form + "_k" if form else "_gemv_k")


def dequantize_on_device(t: int | str, data, n: int | None = None, runtime=None) -> np.ndarray:
    """Like ``dequantize``, but decoded by the device's kernels (``runtime``: a ``Runtime``, by default
    one opened on first use); f32 data is copied through device memory. Returns a 1-D float32 array."""
    info = type_info(t)
    buf = (np.ascontiguousarray(data).reshape(-1).view(np.uint8) if isinstance(data, np.ndarray)
           else np.frombuffer(data, dtype=np.uint8))
    elems, nbytes = info["block_elems"], info["block_bytes"]
    if n is None:
        if buf.size % nbytes:
            raise ValueError(f"{buf.size} bytes are not a whole number of {nbytes}-byte {info['name']} blocks")
        n = buf.size // nbytes * elems
    n = int(n)
    if n < 0 or n % elems or n // elems * nbytes > buf.size:
        raise ValueError(f"{n} {info['name']} elements need {n // max(elems, 1) * nbytes} bytes in whole blocks "
                         f"of {elems}; got {buf.size} bytes")
    if info["name"] != "f32" and info["name"] not in DEVICE_DECODERS:
        raise ValueError(f"no device decoder for type {info['name']}; device decoders: "
                         f"{', '.join(DEVICE_DECODERS)}, f32")
    rt = _runtime(runtime)
    out = np.empty(n, dtype=np.float32)
    step = max(_CHUNK_VALUES // elems, 1) * elems
    pin = pout = 0
    try:
        for first in range(0, n, step):
            count = min(step, n - first)
            src = buf[first // elems * nbytes:(first + count) // elems * nbytes]
            if not pin:
                pin = rt.alloc(min(step, n) // elems * nbytes)
                pout = rt.alloc(min(step, n) * 4)
            rt.upload(pin, src)
            if info["name"] == "f32":
                rt.download(pin, count, np.float32, out=out[first:first + count])
                continue
            kernel, tables, group_size = DEVICE_DECODERS[info["name"]]
            blocks = count // elems
            # The grid and workgroup from the kernel's launch contract; its
            # arguments in their order: blocks, tables, the block count and,
            # for the kernels that take it, the workgroup size.
            contract = rt.launch_contract(kernel)
            sizes = {contract.sizes[0]: blocks}
            values = [pin, pout, *(_table_on(rt, name) for name in tables), blocks]
            if group_size:
                values.append(contract.evaluate(sizes).workgroup)
            rt.launch_by_contract(kernel, sizes, dict(zip(contract.args, values)))
            rt.sync()
            rt.download(pout, count, np.float32, out=out[first:first + count])
    finally:
        for p in (pin, pout):
            if p:
                rt.free(p)
    return out


# ---------------------------------------------------------------------------------------------- files

@dataclass(frozen=True)
class TensorInfo:
    """One entry of a GGUF file's tensor list: name, ggml type, dimensions and where its bytes are."""
    name: str
    type: str          # ggml type name, e.g. "q4_K"
    type_id: int
    dims: tuple        # GGUF order: elements per row first
    elements: int
    nbytes: int
    offset: int        # from the start of the data section
    file_offset: int
    index: int         # position in the file's tensor list

    @property
    def shape(self) -> tuple:
        """NumPy order (rows first)."""
        return tuple(reversed(self.dims))

    @property
    def row_elements(self) -> int:
        """Elements per row (dims[0], the GGUF order's first dimension)."""
        return self.dims[0]

    @property
    def rows(self) -> int:
        """Number of rows: elements / row_elements."""
        return self.elements // self.dims[0] if self.dims[0] else int(np.prod(self.dims[1:], dtype=np.int64))


class GGUFFile:
    """An open GGUF file (memory-mapped by the library). Use ``open()``; close it, or use it as a
    context manager."""

    def __init__(self, path):
        self._lib = _load()
        self.path = str(path)
        handle = _P()
        if self._lib.k100q_open(os.fsencode(self.path), ctypes.byref(handle)) < 0:
            raise GGUFError(_error(self._lib))
        self._h = handle
        self._metadata = None
        self.version = self._lib.k100q_version(handle)
        self.alignment = self._lib.k100q_alignment(handle)
        self.data_offset = self._lib.k100q_data_offset(handle)
        self.file_size = self._lib.k100q_file_size(handle)
        self.tensors = [self._info(i) for i in range(self._lib.k100q_tensor_count(handle))]
        self._by_name = {t.name: t for t in self.tensors}

    def _info(self, i: int) -> TensorInfo:
        c = _TensorInfoC()
        _check(self._lib, self._lib.k100q_tensor_info_at(self._h, i, ctypes.byref(c)))
        name = c.name.decode("utf-8", "surrogateescape")
        return TensorInfo(name=name, type=type_info(c.type)["name"], type_id=c.type,
                          dims=tuple(int(d) for d in c.dims[:c.n_dims]), elements=c.elements, nbytes=c.size,
                          offset=c.offset, file_offset=c.file_offset, index=i)

    # -- lifetime
    def close(self):
        """Releases the mapping; later reads raise ValueError. Closing twice is harmless."""
        if getattr(self, "_h", None):
            self._lib.k100q_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _handle(self):
        if not self._h:
            raise ValueError(f"{self.path}: the file is closed")
        return self._h

    # -- metadata
    @property
    def metadata(self) -> dict:
        """All metadata entries, in file order (converted once, on first use)."""
        if self._metadata is None:
            h = self._handle()
            md = {}
            for i in range(self._lib.k100q_kv_count(h)):
                key = ctypes.c_char_p()
                v = self._lib.k100q_kv(h, i, ctypes.byref(key))
                if not v:
                    raise GGUFError(_error(self._lib))
                md[key.value.decode("utf-8", "surrogateescape")] = self._value(v)
            self._metadata = md
        return self._metadata

    def _value(self, v):
        lib = self._lib
        t = lib.k100q_value_type(v)
        if t == _STRING:
            ptr, n = _P(), ctypes.c_uint64()
            _check(lib, lib.k100q_value_string(v, ctypes.byref(ptr), ctypes.byref(n)))
            return _text(ptr, n.value)
        if t == _ARRAY:
            elem, count = ctypes.c_int(), ctypes.c_uint64()
            _check(lib, lib.k100q_value_array(v, ctypes.byref(elem), ctypes.byref(count)))
            if elem.value == _STRING:
                out = []
                ptr, n = _P(), ctypes.c_uint64()
                for j in range(count.value):
                    _check(lib, lib.k100q_value_array_string(v, j, ctypes.byref(ptr), ctypes.byref(n)))
                    out.append(_text(ptr, n.value))
                return out
            if elem.value == _ARRAY:
                items = []
                for j in range(count.value):
                    item = lib.k100q_value_array_item(v, j)
                    if not item:
                        raise GGUFError(_error(lib))
                    items.append(self._value(item))
                return items
            ptr, nbytes = _P(), ctypes.c_uint64()
            _check(lib, lib.k100q_value_array_data(v, ctypes.byref(ptr), ctypes.byref(nbytes)))
            raw = ctypes.string_at(ptr, nbytes.value) if nbytes.value else b""
            return np.frombuffer(raw, dtype=_DTYPES[elem.value]).copy()
        buf = (ctypes.c_uint8 * 8)()
        n = _check(lib, lib.k100q_value_scalar(v, buf, 8))
        value = np.frombuffer(bytes(buf)[:n], dtype=_DTYPES[t])[0]
        return value.item()

    def keys(self):
        """The metadata keys, in file order."""
        return self.metadata.keys()

    def get(self, key: str, default=None):
        """The metadata value of ``key``, or ``default`` when the file has no such key."""
        return self.metadata.get(key, default)

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    # -- tensors
    def names(self) -> list:
        """The tensor names, in file order."""
        return [t.name for t in self.tensors]

    def tensor(self, name: str) -> TensorInfo:
        """The ``TensorInfo`` of tensor ``name``; KeyError naming the file when there is none."""
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"{self.path}: no tensor {name!r}") from None

    def raw(self, name: str) -> np.ndarray:
        """The tensor's stored bytes, copied out of the mapping (uint8, 1-D)."""
        t = self.tensor(name)
        ptr, n = _P(), ctypes.c_uint64()
        _check(self._lib, self._lib.k100q_tensor_data(self._handle(), t.index, ctypes.byref(ptr), ctypes.byref(n)))
        return np.frombuffer(ctypes.string_at(ptr, n.value) if n.value else b"", dtype=np.uint8).copy()

    def read_rows(self, name: str, start: int, count: int) -> np.ndarray:
        """Rows ``start .. start+count-1`` (rows of dims[0] elements) decoded: float32 [count, row]."""
        t = self.tensor(name)
        if start < 0 or count < 0 or start + count > t.rows:
            raise ValueError(f"{self.path}: tensor {name!r}: rows [{start}, {start + count}) are outside its "
                             f"{t.rows} rows")
        out = np.empty((count, t.row_elements), dtype=np.float32)
        _check(self._lib, self._lib.k100q_tensor_dequantize_rows(self._handle(), t.index, start, count,
                                                                 out.ctypes.data, out.size))
        return out

    def read(self, name: str) -> np.ndarray:
        """The whole tensor decoded by the host codecs: float32 in NumPy shape (``TensorInfo.shape``)."""
        t = self.tensor(name)
        return self.read_rows(name, 0, t.rows).reshape(t.shape)

    def read_on_device(self, name: str, runtime=None) -> np.ndarray:
        """The whole tensor decoded on the device (``dequantize_on_device``): float32 in NumPy shape."""
        t = self.tensor(name)
        return dequantize_on_device(t.type_id, self.raw(name), t.elements, runtime).reshape(t.shape)

    def __repr__(self):
        return (f"GGUFFile({self.path!r}, version {self.version}, {len(self.tensors)} tensors, "
                f"{len(self.metadata)} metadata entries)")


def open(path: str | Path) -> GGUFFile:  # noqa: A001 (the module's entry point, like builtins.open)
    """Opens and parses a GGUF file (versions 2 and 3); ``GGUFError`` when it cannot be read."""
    return GGUFFile(path)
