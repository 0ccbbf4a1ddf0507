"""RT4 weight files from Python (FORMATS.md 3): ``<name>.rt4`` holds the
bytes, ``<name>.rt4.json`` the manifest. The same files k100-rt4 writes and
the C++ reader (include/k100/quant/rt4.h) reads.

    from k100lc_kernels import rt4
    with rt4.RT4File("model.rt4") as f:
        t = f.tensor("model.layers.0.mlp.down_proj.weight")    # RT4Tensor
        q, s = f.weight_bytes(t)        # views of the mapping: int4 codes, f16 scales
        w = f.dequant(t, rows=4)        # float32 [4, K], the host reference
    rt4.write("out.rt4", [("w", q_uint8_NxK2, scales_f16_NxKg)])
    y = rt4.W4Runner(rt).gemv("w4a8", *f.upload_weight(rt, t), x, t.rows, t.cols)   # on the device

An ``i4`` tensor is N*K/2 bytes of two's-complement nibbles (even k in the
low nibble) at ``q_off`` and f16 scales ``[N, K/group]`` at ``s_off``;
``w[n, k] = q[n, k] * s[n, k // group]``. Other kinds are listed but not
decoded. Errors: ``ValueError`` for a bad name, manifest or region,
``FileNotFoundError`` without a manifest, ``KeyError`` for an unknown tensor.
"""
from __future__ import annotations

import json
import mmap
import os
from dataclasses import dataclass

import numpy as np

from .w4_runner import W4A4_KERNEL, W4A8_KERNEL, W4Runner

__all__ = ["GRP", "SG", "FORMAT", "RT4Tensor", "RT4File", "write", "pack_int4", "group_major_scales", "W4Runner",
           "W4A8_KERNEL", "W4A4_KERNEL"]

GRP = 128   # weight group
SG = 32     # W4A4 activation sub-group
FORMAT = "RT4-v1"


@dataclass(frozen=True)
class RT4Tensor:
    """One manifest entry: name, kind ('i4' is decoded), shape [N, K], group, byte offsets of q and scales."""
    name: str
    kind: str
    shape: tuple
    group: int
    q_off: int
    s_off: int
    nbytes: int

    @property
    def rows(self) -> int:
        """N, the output rows."""
        return self.shape[0]

    @property
    def cols(self) -> int:
        """K, the input length."""
        return self.shape[1]

    @property
    def q_bytes(self) -> int:
        """Bytes of the int4 codes: N*K/2."""
        return self.rows * self.cols // 2

    @property
    def s_bytes(self) -> int:
        """Bytes of the f16 scales: N*(K/group)*2."""
        return self.rows * (self.cols // self.group) * 2


def _manifest_path(path: str) -> str:
    for m in (path + ".json", path[:-4] + ".json"):
        if os.path.exists(m):
            return m
    raise FileNotFoundError(f"{path}: no manifest ({path}.json or {path[:-4]}.json)")


def _int(entry: dict, key: str, where: str, default=None) -> int:
    v = entry.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{where}: '{key}' is {v!r}, expected a non-negative integer")
    return v


class RT4File:
    """An RT4 file mapped read-only with its manifest; use as a context manager or call close()."""

    def __init__(self, path):
        path = os.fspath(path)
        if not path.endswith(".rt4"):
            raise ValueError(f"{path}: an RT4 weight file name ends in .rt4")
        self.path = path
        self.manifest_path = _manifest_path(path)
        with open(self.manifest_path, encoding="utf-8") as f:
            try:
                doc = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{self.manifest_path}: not valid JSON: {e}") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError(f"{self.manifest_path}: 'format' must be {FORMAT!r}")
        self.group = _int(doc, "group", self.manifest_path, GRP) or GRP
        self._tensors = {}
        for i, e in enumerate(doc.get("tensors", [])):
            where = f"{self.manifest_path}: tensors[{i}]"
            if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not isinstance(e.get("kind"), str):
                raise ValueError(f"{where}: needs a 'name' and a 'kind'")
            shape = e.get("shape")
            if not (isinstance(shape, list) and len(shape) == 2 and all(isinstance(d, int) and d > 0 for d in shape)):
                raise ValueError(f"{where}: 'shape' must be [N, K] with both positive")
            t = RT4Tensor(e["name"], e["kind"], (shape[0], shape[1]), _int(e, "group", where, self.group) or self.group,
                          _int(e, "q_off", where), _int(e, "s_off", where, 0), _int(e, "nbytes", where, 0))
            if t.name in self._tensors:
                raise ValueError(f"{where}: tensor {t.name!r} is listed twice")
            self._tensors[t.name] = t
        self._file = open(path, "rb")
        size = os.fstat(self._file.fileno()).st_size
        self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        self._bytes = np.frombuffer(self._map, dtype=np.uint8) if self._map else np.zeros(0, np.uint8)

    def close(self) -> None:
        """Unmaps the file; views handed out keep the mapping alive until they go."""
        self._bytes = np.zeros(0, np.uint8)
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:
                pass  # views handed out still use it; it is unmapped when the last one goes
            self._map = None
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def tensor(self, name: str) -> RT4Tensor:
        """The entry named `name`; KeyError naming the file if there is none."""
        if name not in self._tensors:
            raise KeyError(f"{self.path}: no tensor {name!r}")
        return self._tensors[name]

    def names(self, kind=None) -> list:
        """Tensor names in manifest order, optionally only those of `kind`."""
        return [n for n, t in self._tensors.items() if kind is None or t.kind == kind]

    def weight_bytes(self, t: RT4Tensor):
        """(q uint8 [N*K/2], s uint8 [N*(K/group)*2]): views of the mapping."""
        if t.kind != "i4":
            raise ValueError(f"{self.path}: tensor {t.name!r} is of kind {t.kind!r}, not i4")
        if t.cols % t.group or t.cols % 8:
            raise ValueError(f"{self.path}: tensor {t.name!r} has K = {t.cols}, not a multiple of its group "
                             f"{t.group} and of 8")
        size = self._bytes.size
        for off, n, what in ((t.q_off, t.q_bytes, "q"), (t.s_off, t.s_bytes, "scale")):
            if off + n > size:
                raise ValueError(f"{self.path}: tensor {t.name!r}: its {what} region [{off}, +{n}) runs past the end "
                                 f"of the file ({size} bytes)")
        return self._bytes[t.q_off:t.q_off + t.q_bytes], self._bytes[t.s_off:t.s_off + t.s_bytes]

    def scales(self, t: RT4Tensor) -> np.ndarray:
        """The native f16 scales [N, K/group]."""
        return self.weight_bytes(t)[1].view("<f2").reshape(t.rows, t.cols // t.group)

    def dequant(self, t: RT4Tensor, rows=None, start=0) -> np.ndarray:
        """Host reference decode of rows [start, start + rows): float32 [rows, K]."""
        q, _ = self.weight_bytes(t)
        rows = t.rows - start if rows is None else rows
        if start < 0 or rows < 0 or start + rows > t.rows:
            raise ValueError(f"{self.path}: rows [{start}, {start + rows}) are outside the {t.rows} rows of {t.name!r}")
        half = t.cols // 2
        b = q[start * half:(start + rows) * half].reshape(rows, half)
        codes = np.empty((rows, t.cols), np.int8)
        codes[:, 0::2] = (b & 15).astype(np.int8)
        codes[:, 1::2] = (b >> 4).astype(np.int8)
        codes = np.where(codes > 7, codes - 16, codes).astype(np.float32)
        s = self.scales(t)[start:start + rows].astype(np.float32)
        return codes * np.repeat(s, t.group, axis=1)

    def upload_weight(self, rt, t: RT4Tensor):
        """New device buffers (caller frees): q, and the native row-major f16 scales (the GEMV layout)."""
        q, s = self.weight_bytes(t)
        wq, ws = rt.alloc(q.size), rt.alloc(s.size)
        rt.upload(wq, q)
        rt.upload(ws, s)
        return wq, ws

    def upload_weight_gemm(self, rt, t: RT4Tensor):
        """New device buffers (caller frees): q unchanged, and the group-major f32 scales [K/group, N] (the GEMM's)."""
        q, _ = self.weight_bytes(t)
        sc = group_major_scales(self.scales(t))
        wq, wsc = rt.alloc(q.size), rt.alloc(sc.nbytes)
        rt.upload(wq, q)
        rt.upload(wsc, sc)
        return wq, wsc


def group_major_scales(scales_f16: np.ndarray) -> np.ndarray:
    """Native [N, K/group] f16 scales -> f32 [K/group, N] (FORMATS.md 3.3)."""
    return np.ascontiguousarray(np.asarray(scales_f16, dtype=np.float32).T)


def pack_int4(w: np.ndarray, group: int = GRP):
    """Quantises float weights [N, K]: per row and group, scale = max|w| / 7 as f16 (1.0 for zeros),
    code = clip(rint(w / scale), -8, 7). Returns (q uint8 [N, K/2], s f16 [N, K/group])."""
    w = np.asarray(w, dtype=np.float32)
    n, k = w.shape
    if k % group or k % 8:
        raise ValueError(f"K = {k} is not a multiple of the group {group} and of 8")
    g = w.reshape(n, k // group, group)
    amax = np.abs(g).max(axis=2)
    s = np.where(amax == 0, 1.0, amax / 7).astype(np.float16)
    codes = np.clip(np.rint(g / s.astype(np.float32)[:, :, None]), -8, 7).astype(np.int8).reshape(n, k)
    u = (codes & 15).astype(np.uint8)
    return (u[:, 0::2] | (u[:, 1::2] << 4)).astype(np.uint8), s


def write(path, tensors, group: int = GRP) -> None:
    """Writes `path` (.rt4) and its manifest from (name, q uint8 [N, K/2], s f16 [N, K/g]) tuples; each
    tensor's group follows from the shapes (K/g scales a row)."""
    path = os.fspath(path)
    if not path.endswith(".rt4"):
        raise ValueError(f"{path}: an RT4 weight file name ends in .rt4")
    entries, at, names = [], 0, set()
    with open(path, "wb") as f:
        for name, q, s in tensors:
            q = np.ascontiguousarray(q, dtype=np.uint8)
            s = np.ascontiguousarray(s, dtype="<f2")
            if q.ndim != 2 or s.ndim != 2 or q.shape[0] != s.shape[0]:
                raise ValueError(f"{name}: q must be [N, K/2] and s [N, K/group]")
            n, k = q.shape[0], q.shape[1] * 2
            if s.shape[1] == 0 or k % s.shape[1] or k % 8:
                raise ValueError(f"{name}: K = {k} is not a whole number of {s.shape[1]} groups and of 8")
            if name in names:
                raise ValueError(f"{name}: written twice")
            names.add(name)
            g = k // s.shape[1]
            e = {"name": name, "kind": "i4", "shape": [n, k]}
            if g != group:
                e["group"] = g
            e.update({"q_off": at, "s_off": at + q.nbytes, "nbytes": q.nbytes + s.nbytes})
            f.write(q.tobytes())
            f.write(s.tobytes())
            at += q.nbytes + s.nbytes
            entries.append(e)
    with open(path + ".json", "w", encoding="utf-8") as f:
        json.dump({"format": FORMAT, "group": group, "weight_file": os.path.basename(path), "tensors": entries}, f,
                  indent=1)
        f.write("\n")
