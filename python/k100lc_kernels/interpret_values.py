"""Lane-exact arithmetic of the kernel language on NumPy vectors (one element
per lane), as the compiled code computes it (docs/DSL.md, "The NumPy
interpreter").

Representation of a value of each type: ``u32`` uint32, ``s32`` int32,
``f32`` float32, ``f16`` float16, ``bf16`` uint16 bit patterns, ``u64``
uint64, ``bool`` bool. Integers wrap at their width; every f32 operation is
rounded to float32 once (NumPy's float32 arithmetic is IEEE); fma and dot2
are exact sums rounded once (round to odd in float64, then to float32).
"""
from __future__ import annotations

import numpy as np

DTYPES = {
    "u32": np.uint32, "s32": np.int32, "f32": np.float32, "f16": np.float16, "bf16": np.uint16,
    "u64": np.uint64, "bool": np.bool_,
}
# element types of pointers: their NumPy dtypes, and the value type a load gives
ELEMENT_DTYPES = {
    "f32": np.float32, "f16": np.float16, "bf16": np.uint16, "u32": np.uint32, "s32": np.int32,
    "u16": np.uint16, "s16": np.int16, "u8": np.uint8, "s8": np.int8,
}
LOADED_TYPE = {"u8": "u32", "u16": "u32", "s8": "s32", "s16": "s32"}
INTS = ("u32", "s32", "u64")
FLOATS = ("f32", "f16", "bf16")
LOG2E_F32 = np.float32(1.4426950408889634)  # the compiled exp multiplies by this f32, then 2^x


def is_int(t: str) -> bool:
    """True for the integer types (u32, s32, u64)."""
    return t in INTS


def is_float(t: str) -> bool:
    """True for the float types (f32, f16, bf16)."""
    return t in FLOATS


def constant(t: str, value):
    """A literal of type t: an int (its bits are taken modulo the width) or a float."""
    if t in ("u32", "s32", "u64"):
        bits = int(value) & ((1 << 64) - 1 if t == "u64" else 0xFFFFFFFF)
        return np.array(bits, np.uint64 if t == "u64" else np.uint32).view(DTYPES[t])[()]
    if t == "f32":
        return np.float32(value)
    if t == "f16":
        return np.float16(value)
    if t == "bf16":
        return f32_to_bf16(np.float32(value))
    raise ValueError(t)


# ---------------------------------------------------------------- conversions
def f32_to_bf16(x):
    """float32 -> bf16 bits, rounded to nearest even (NaN stays a quiet NaN)."""
    b = np.atleast_1d(np.asarray(x, np.float32)).view(np.uint32).astype(np.uint64)
    k16 = np.uint64(16)
    rounded = (b + np.uint64(0x7FFF) + ((b >> k16) & np.uint64(1))) >> k16
    nan = np.isnan(np.atleast_1d(np.asarray(x, np.float32)))
    out = np.where(nan, (b >> k16) | np.uint64(0x40), rounded).astype(np.uint16).reshape(np.shape(x))
    return out[()] if out.ndim == 0 else out


def bf16_to_f32(bits):
    """bf16 bit patterns widened to f32 values."""
    out = (np.atleast_1d(np.asarray(bits, np.uint16)).astype(np.uint32) << np.uint32(16)).view(np.float32)
    return out.reshape(np.shape(bits))[()] if np.ndim(bits) == 0 else out.reshape(np.shape(bits))


def _float_to_int(x, t: str):
    """Truncation toward zero, saturating; NaN gives 0 (v_cvt_i32_f32 / v_cvt_u32_f32)."""
    d = np.trunc(np.asarray(x, np.float64))
    d = np.where(np.isnan(d), 0.0, d)
    if t == "s32":
        out = np.clip(d, -2147483648.0, 2147483647.0).astype(np.int64).astype(np.int32)
    else:
        out = np.clip(d, 0.0, 4294967295.0).astype(np.int64).astype(np.uint32)
    return out[()] if out.ndim == 0 else out


def convert(x, frm: str, to: str):
    """A value of type `frm` as type `to` (typing.h: u32/s32 reinterpret each
    other, int -> float by value, float -> int truncates, u32 -> u64
    zero-extends, u64 -> u32 keeps the low bits, floats convert by value)."""
    if frm == to:
        return x
    a = np.asarray(x)
    if frm == "bool":
        out = a.astype(np.float32) if to == "f32" else a.astype(DTYPES[to]) if to != "bf16" else f32_to_bf16(
            a.astype(np.float32))
    elif is_int(frm) and is_int(to):
        if to == "u64":
            out = a.astype(np.int64).astype(np.uint64) if frm == "s32" else a.astype(np.uint64)
        elif frm == "u64":
            out = (a & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(DTYPES[to])
        else:
            out = a.view(DTYPES[to])
    elif is_int(frm):  # int -> float by value, rounded once
        wide = a.astype(np.float64)
        if to == "f32":
            out = a.astype(np.float32)
        elif to == "f16":
            out = wide.astype(np.float16)
        else:
            out = f32_to_bf16(a.astype(np.float32))
    elif is_int(to):
        f = bf16_to_f32(a) if frm == "bf16" else a.astype(np.float32)
        out = np.asarray(_float_to_int(f, "s32" if to == "s32" else "u32"))
    else:  # float -> float
        f = bf16_to_f32(a) if frm == "bf16" else a
        if to == "f32":
            out = np.asarray(f).astype(np.float32)
        elif to == "f16":
            out = np.asarray(f).astype(np.float32).astype(np.float16)
        else:
            out = f32_to_bf16(np.asarray(f).astype(np.float32))
    out = np.asarray(out)
    return out[()] if out.ndim == 0 else out


# ---------------------------------------------------------------- exact rounding
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_to_odd(s, e):
    """The float64 nearest s + e toward zero with its last bit set when inexact:
    rounding that once more to float32 rounds s + e correctly."""
    s = np.asarray(s, np.float64)
    e = np.asarray(e, np.float64)
    inexact = (e != 0) & np.isfinite(s)
    # s rounded away from zero when e has the other sign: step back toward zero
    back = inexact & (np.sign(e) != np.sign(s)) & (s != 0)
    t = np.where(back, np.nextafter(s, 0.0), s)
    bits = t.view(np.int64)
    odd = np.where(inexact & (t != 0), bits | 1, bits).view(np.float64)
    # s == 0 with e != 0: the tiny e itself is the value (far below f32 resolution unless e is)
    return np.where(inexact & (t == 0), e, odd)


def fma_f32(a, b, c):
    """a * b + c rounded once to float32."""
    a64, b64, c64 = (np.asarray(v, np.float32).astype(np.float64) for v in (a, b, c))
    p = a64 * b64  # exact: 24 + 24 bits
    s, e = _two_sum(p, c64)
    with np.errstate(all="ignore"):
        out = np.where(np.isfinite(s), _round_to_odd(s, e), p + c64).astype(np.float32)
    return out[()] if out.ndim == 0 else out


def fma_f16(a, b, c):
    """a * b + c in f16, computed exactly and rounded once."""
    a64, b64, c64 = (np.asarray(v, np.float16).astype(np.float64) for v in (a, b, c))
    p = a64 * b64
    s, e = _two_sum(p, c64)
    out = np.where(np.isfinite(s), _round_to_odd(s, e), p + c64).astype(np.float16)
    return out[()] if out.ndim == 0 else out


def dot2(a, b, acc):
    """acc + a.lo * b.lo + a.hi * b.hi over f16 halves of u32 words, exact, rounded once to f32."""
    a = np.asarray(a, np.uint32)
    b = np.asarray(b, np.uint32)
    def half(w, hi):
        return ((w >> np.uint32(16)) if hi else (w & np.uint32(0xFFFF))).astype(np.uint16).view(np.float16).astype(
            np.float64)
    p0 = half(a, False) * half(b, False)
    p1 = half(a, True) * half(b, True)
    cc = np.asarray(acc, np.float32).astype(np.float64)
    s1, e1 = _two_sum(p0, p1)
    s2, e2 = _two_sum(s1, cc)
    t, te = _two_sum(e1, e2)
    u, ue = _two_sum(s2, t)
    out = np.where(np.isfinite(u), _round_to_odd(u, ue + te), p0 + p1 + cc).astype(np.float32)
    return out[()] if out.ndim == 0 else out


def dot_int(a, b, acc, bits: int):
    """acc + the signed products of the bits-wide fields of a and b (s8 quads, s4 octets), modulo 2^32."""
    a = np.asarray(a, np.uint32).astype(np.int64)
    b = np.asarray(b, np.uint32).astype(np.int64)
    total = np.asarray(acc, np.int32).astype(np.int64)
    mask, sign = (1 << bits) - 1, 1 << (bits - 1)
    for k in range(32 // bits):
        x = (a >> (k * bits)) & mask
        y = (b >> (k * bits)) & mask
        total = total + ((x ^ sign) - sign) * ((y ^ sign) - sign)
    out = np.asarray(total & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    return out[()] if out.ndim == 0 else out


# ---------------------------------------------------------------- float helpers
def _sign_bits(x, t):
    return np.asarray(x).view(np.uint16 if t == "f16" else np.uint32) >> np.uint32(15 if t == "f16" else 31)


def fmax(a, b, t: str):
    """v_max_f32: a NaN operand gives the other; +0 beats -0."""
    a, b = np.broadcast_arrays(np.asarray(a, DTYPES[t]), np.asarray(b, DTYPES[t]))
    out = np.where(np.isnan(a), b, np.where(np.isnan(b), a, np.where(a > b, a, np.where(b > a, b, np.where(
        _sign_bits(a, t) != 0, b, a)))))
    return out[()] if out.ndim == 0 else out


def fmin(a, b, t: str):
    """v_min_f32: a NaN operand gives the other; -0 beats +0."""
    a, b = np.broadcast_arrays(np.asarray(a, DTYPES[t]), np.asarray(b, DTYPES[t]))
    out = np.where(np.isnan(a), b, np.where(np.isnan(b), a, np.where(a < b, a, np.where(b < a, b, np.where(
        _sign_bits(a, t) != 0, a, b)))))
    return out[()] if out.ndim == 0 else out


def negate(x, t: str):
    """Sign flip of a float (exact, -0.0 and NaN included); 0 - x for integers."""
    if t == "f32":
        return (np.asarray(x, np.float32).view(np.uint32) ^ np.uint32(0x80000000)).view(np.float32)
    if t == "f16":
        return (np.asarray(x, np.float16).view(np.uint16) ^ np.uint16(0x8000)).view(np.float16)
    return np.negative(np.asarray(x, DTYPES[t]))


def fabs(x, t: str):
    """|x| by clearing the sign bit (NaN keeps its payload)."""
    if t == "f16":
        return (np.asarray(x, np.float16).view(np.uint16) & np.uint16(0x7FFF)).view(np.float16)
    return (np.asarray(x, np.float32).view(np.uint32) & np.uint32(0x7FFFFFFF)).view(np.float32)


def reciprocal(x, t: str):
    """1 / x correctly rounded in x's type (the emulator's v_rcp_f32; hardware: within 1 ulp)."""
    one = np.float32(1) if t == "f32" else np.float16(1)
    return one / np.asarray(x, DTYPES[t])


def exp(x, t: str):
    """exp(x) as compiled: 2^(x * log2(e) rounded to the type), 2^t in float64 rounded once."""
    if t == "f16":
        y = np.asarray(x, np.float16) * np.float16(LOG2E_F32)
        return np.exp2(y.astype(np.float64)).astype(np.float16)
    y = np.asarray(x, np.float32) * LOG2E_F32
    return np.exp2(y.astype(np.float64)).astype(np.float32)


def sqrt(x, t: str):
    """The square root, correctly rounded in x's type."""
    return np.sqrt(np.asarray(x, DTYPES[t]))


def rsqrt(x, t: str):
    """1 / sqrt(x) in float64, rounded once (the emulator's v_rsq_f32; hardware: within 1 ulp)."""
    return (1.0 / np.sqrt(np.asarray(x, DTYPES[t]).astype(np.float64))).astype(DTYPES[t])


def f16_bits_to_f32(x):
    """The low 16 bits of an integer as an IEEE half, widened (exact)."""
    return (np.asarray(x).astype(np.uint32) & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float32)


# ---------------------------------------------------------------- integers
def shift(a, count, left: bool, t: str):
    """<< and >> by count modulo the width; >> is arithmetic for s32."""
    width = 64 if t == "u64" else 32
    c = (np.asarray(count).astype(np.uint64) & np.uint64(width - 1)).astype(DTYPES[t])
    a = np.asarray(a, DTYPES[t])
    out = np.left_shift(a, c) if left else np.right_shift(a, c)
    return out.astype(DTYPES[t])


def divide(a, b, t: str, remainder: bool):
    """Integer // or %: exact; s32 rounds toward negative infinity (as Python); wraps to 32 bits."""
    a64 = np.asarray(a, DTYPES[t]).astype(np.int64)
    b64 = np.asarray(b, DTYPES[t]).astype(np.int64)
    safe = np.where(b64 == 0, 1, b64)
    out = np.remainder(a64, safe) if remainder else np.floor_divide(a64, safe)
    return out.astype(np.uint32).view(DTYPES[t]) if t != "u64" else out.astype(np.uint64)
