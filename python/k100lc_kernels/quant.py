"""Host-side packing of the 4-bit weight formats (PYTHON_API.md 5; byte
layouts in FORMATS.md 2, 3 and 5). NumPy only, no device use.

    from k100lc_kernels import quant
    packed, scales = quant.pack_int4_group128(w)          # compressed-tensors INT4
    q, s16 = quant.ct_int4_to_rt4(packed, scales)         # the RT4 / W4A8 / W4A4 layout
    wsc = quant.int4_scale_group_first_f32(scales, n, k)  # the W4A4 GEMM's scales
    codes, e4m3, gs = quant.pack_nvfp4(w)                 # an nvfp4-pack-quantized layer

compressed-tensors INT4: eight offset-binary codes per little-endian u32
(smaller k in the lower nibble), one bf16 scale per 128 k of a row. RT4: the
same bytes with two's-complement nibbles and f16 scales. NVFP4: E2M1 codes
two per byte, one E4M3 scale per 16 k, and a global scale that divides.
Errors are ``ValueError`` naming the argument and the value.
"""
from __future__ import annotations

import numpy as np

__all__ = ["f32_to_bf16_bits", "bf16_bits_to_f32", "pack_int4_group128", "dequant_int4_group128",
           "ct_int4_to_twos_complement", "ct_int4_to_rt4", "int4_scale_group_first_f32",
           "E2M1_VALUES", "e4m3_to_f32", "f32_to_e4m3", "pack_nvfp4"]

GROUP = 128
NVFP4_BLOCK = 16
# E2M1 by code: bit 3 is the sign, bits 0-2 index the magnitudes (code 8 is -0).
E2M1_VALUES = np.array([0, .5, 1, 1.5, 2, 3, 4, 6, -0., -.5, -1, -1.5, -2, -3, -4, -6], np.float32)


def _raw(data, what: str) -> np.ndarray:
    """Bytes or an array as a flat uint8 view (copied only when not contiguous)."""
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    try:
        return np.frombuffer(memoryview(data).cast("B"), np.uint8)
    except TypeError:
        raise TypeError(f"{what} must be bytes or a NumPy array, not {type(data).__name__}") from None


def f32_to_bf16_bits(x) -> np.ndarray:
    """bf16 bit patterns (uint16) of f32 values, rounded to nearest even."""
    u = np.ascontiguousarray(x, dtype="<f4").view("<u4").astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")


def bf16_bits_to_f32(bits) -> np.ndarray:
    """f32 values of bf16 bit patterns (exact: the bits shifted up by 16)."""
    return (np.asarray(bits, dtype=np.uint32) << 16).astype("<u4").view("<f4")


def _shape_2d(w, what: str) -> np.ndarray:
    w = np.asarray(w, dtype=np.float32)
    if w.ndim != 2:
        raise ValueError(f"{what} must be 2-D [N, K], got shape {w.shape}")
    return w


def pack_int4_group128(w):
    """compressed-tensors INT4 of f32 weights [N, K] (K % 128 == 0): per row and group of 128,
    scale = max|w| / 7 as bf16 (1.0 for an all-zero group), code = clip(rint(w / scale) + 8, 0, 15)
    with the stored (bf16) scale. Returns (packed bytes: u32 [N, K/8], scales bytes: bf16 [N, K/128])."""
    w = _shape_2d(w, "w")
    n, k = w.shape
    if k % GROUP:
        raise ValueError(f"K = {k} is not a multiple of the group {GROUP}")
    g = w.reshape(n, k // GROUP, GROUP)
    amax = np.abs(g).max(axis=2)
    sb = f32_to_bf16_bits(np.where(amax == 0, np.float32(1), amax / np.float32(7)))
    s = bf16_bits_to_f32(sb)
    codes = np.clip(np.rint(g / s[:, :, None]) + 8, 0, 15).astype(np.uint32).reshape(n, k // 8, 8)
    words = np.zeros((n, k // 8), "<u4")
    for j in range(8):
        words |= codes[:, :, j] << np.uint32(4 * j)
    return words.tobytes(), sb.tobytes()


def dequant_int4_group128(packed, scales, n, k) -> np.ndarray:
    """f32 [N, K] of compressed-tensors INT4: (code - 8) * bf16(scale[n, k / 128])."""
    if k % GROUP:
        raise ValueError(f"K = {k} is not a multiple of the group {GROUP}")
    q = _raw(packed, "packed")
    sb = _raw(scales, "scales")
    if q.size != n * k // 2 or sb.size != n * (k // GROUP) * 2:
        raise ValueError(f"packed has {q.size} bytes and scales {sb.size}, expected {n * k // 2} and "
                         f"{n * (k // GROUP) * 2} for [{n}, {k}]")
    codes = np.empty((n, k), np.float32)
    b = q.reshape(n, k // 2)
    codes[:, 0::2] = b & 15
    codes[:, 1::2] = b >> 4
    s = bf16_bits_to_f32(sb.view("<u2").reshape(n, k // GROUP))
    return (codes - 8) * np.repeat(s, GROUP, axis=1)


def ct_int4_to_twos_complement(packed) -> bytes:
    """Each offset-binary nibble c becomes (c + 8) & 0xF, the two's-complement code of the same value
    (positions unchanged)."""
    return (_raw(packed, "packed") ^ np.uint8(0x88)).tobytes()


def ct_int4_to_rt4(packed, scales_bf16):
    """(q bytes, f16 scale bytes): the two's-complement nibbles and the bf16 scales as f16 (FORMATS.md
    3.4), the layout the W4A8 / W4A4 GEMVs read."""
    sb = _raw(scales_bf16, "scales_bf16")
    if sb.size % 2:
        raise ValueError(f"scales_bf16 has {sb.size} bytes, not a whole number of bf16 values")
    s = bf16_bits_to_f32(sb.view("<u2"))
    with np.errstate(over="ignore"):
        s16 = s.astype("<f2")
    bad = ~np.isfinite(s16) & np.isfinite(s)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"scale {i} ({float(s[i])!r}) does not fit an f16")
    return ct_int4_to_twos_complement(packed), s16.tobytes()


def int4_scale_group_first_f32(scales_bf16, n, k) -> np.ndarray:
    """The group-major f32 scales [K/128, N] of the W4A4 GEMM from bf16 scales [N, K/128]."""
    sb = _raw(scales_bf16, "scales_bf16")
    if k % GROUP or sb.size != n * (k // GROUP) * 2:
        raise ValueError(f"scales_bf16 has {sb.size} bytes; [{n}, {k}] needs K % {GROUP} == 0 and "
                         f"{n * (k // GROUP) * 2} bytes")
    return np.ascontiguousarray(bf16_bits_to_f32(sb.view("<u2")).reshape(n, k // GROUP).T)


def e4m3_to_f32(b) -> np.ndarray:
    """OCP E4M3 bytes as f32: bit 7 sign, exponent bits 3-6 (bias 7), mantissa bits 0-2; exponent 0
    is subnormal (m / 8) * 2^-6. 0x7F / 0xFF are not special-cased."""
    b = np.asarray(b, dtype=np.uint8).astype(np.int32)
    e, m = (b >> 3) & 15, (b & 7).astype(np.float32)
    v = np.where(e == 0, np.ldexp(m / 8, -6), np.ldexp(1 + m / 8, e - 7)).astype(np.float32)
    return np.where(b & 0x80, -v, v)


_E4M3_POSITIVE = e4m3_to_f32(np.arange(0x7F, dtype=np.uint8))  # 0 .. 448, increasing


def f32_to_e4m3(x) -> np.ndarray:
    """The nearest E4M3 byte of each value (ties to the even code), saturating at +-448."""
    x = np.asarray(x, dtype=np.float32)
    a = np.minimum(np.abs(x), np.float32(448))
    hi = np.clip(np.searchsorted(_E4M3_POSITIVE, a), 0, 0x7E)
    lo = np.maximum(hi - 1, 0)
    dlo, dhi = a - _E4M3_POSITIVE[lo], _E4M3_POSITIVE[hi] - a
    code = np.where((dhi < dlo) | ((dhi == dlo) & (hi % 2 == 0)), hi, lo).astype(np.uint8)
    return np.where(np.signbit(x) & (code != 0), code | 0x80, code).astype(np.uint8)


def _nearest_e2m1(v: np.ndarray) -> np.ndarray:
    """Codes of the nearest E2M1 values (ties to the even code), saturating at +-6."""
    mags = E2M1_VALUES[:8]
    a = np.minimum(np.abs(v), 6)
    d = np.abs(a[..., None] - mags)
    best = d.min(axis=-1, keepdims=True)
    ties = d == best
    # among equal distances prefer the even code (the smaller of two neighbours has the even index
    # only half the time, so choose explicitly)
    even = ties & (np.arange(8) % 2 == 0)
    code = np.where(even.any(axis=-1), np.argmax(even, axis=-1), np.argmax(ties, axis=-1)).astype(np.uint8)
    return np.where(np.signbit(v) & (code != 0), code | 8, code).astype(np.uint8)


def pack_nvfp4(w):
    """An nvfp4-pack-quantized layer of f32 weights [N, K] (K % 16 == 0), as the public quantisers
    make it: global_scale = 448 * 6 / max|w| (1.0 for all zeros), per block of 16 the E4M3 scale
    nearest max|w_blk| / 6 * global_scale, codes the nearest E2M1 of w * global_scale / scale.
    Returns (packed uint8 [N, K/2], scale_e4m3 uint8 [N, K/16], global_scale float); the weight is
    E2M1(code) * E4M3(scale) / global_scale."""
    w = _shape_2d(w, "w")
    n, k = w.shape
    if k % NVFP4_BLOCK:
        raise ValueError(f"K = {k} is not a multiple of the NVFP4 block {NVFP4_BLOCK}")
    amax = float(np.abs(w).max()) if w.size else 0.0
    gs = np.float32(448 * 6 / amax if amax > 0 else 1.0)
    blk = w.reshape(n, k // NVFP4_BLOCK, NVFP4_BLOCK)
    sc = f32_to_e4m3(np.abs(blk).max(axis=2) / np.float32(6) * gs)
    sv = e4m3_to_f32(sc)
    safe = np.where(sv == 0, np.float32(1), sv)
    codes = _nearest_e2m1(blk * gs / safe[:, :, None]).reshape(n, k)
    codes = np.where(np.repeat(sv, NVFP4_BLOCK, axis=1) == 0, 0, codes).astype(np.uint8)
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    return packed, sc, float(gs)
