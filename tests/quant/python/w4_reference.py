"""NumPy references of the 4-bit paths, written from the format definitions
(FORMATS.md 2-5, KERNELS.md 4.3-4.5), independent of the kernels and of the
package's packers: weight decoders, the activation quantisers (f32
arithmetic, ties to even, so their codes and scales are the exact values the
device quantisers must produce) and the GEMVs over quantised activations
(integer dot per group, the rest in float64).

Each quantised GEMV returns (y, bound): y in float64 and a bound on the f32
rounding a device result may add, ``4 (n_terms + 4) 2^-23 sum |terms|`` over
the scaled products of exact integer dots of 32 k (f32 accumulation)."""
import numpy as np

EPS32 = 2.0 ** -23
E2M1 = np.array([0, .5, 1, 1.5, 2, 3, 4, 6], np.float64)


# ------------------------------------------------------------------ weights

def nibbles(b: np.ndarray, k: int) -> np.ndarray:
    """[rows, k] codes 0..15 of rows of k/2 bytes, even k in the low nibble."""
    b = np.asarray(b, np.uint8).reshape(-1, k // 2)
    out = np.empty((b.shape[0], k), np.int64)
    out[:, 0::2] = b & 15
    out[:, 1::2] = b >> 4
    return out


def bf16(bits) -> np.ndarray:
    return (np.asarray(bits, np.uint32) << 16).astype(np.uint32).view(np.float32).astype(np.float64)


def ct_int4(packed_bytes, scale_bytes, n, k):
    """compressed-tensors INT4: (signed codes int [n, k], scales f64 [n, k/128])."""
    codes = nibbles(np.frombuffer(bytes(packed_bytes), np.uint8), k) - 8
    s = bf16(np.frombuffer(bytes(scale_bytes), "<u2")).reshape(n, k // 128)
    return codes, s


def rt4(q_bytes, s_bytes, n, k, group=128):
    """RT4 i4: (two's-complement codes int [n, k], f16 scales f64 [n, k/group])."""
    c = nibbles(np.frombuffer(bytes(q_bytes), np.uint8), k)
    codes = np.where(c > 7, c - 16, c)
    s = np.frombuffer(bytes(s_bytes), "<f2").astype(np.float64).reshape(n, k // group)
    return codes, s


def e4m3(b) -> np.ndarray:
    b = np.asarray(b, np.int64)
    e, m = (b >> 3) & 15, b & 7
    v = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7))
    return np.where(b & 0x80, -v, v)


def nvfp4(packed, scale, n, k):
    """NVFP4 without its global scale: (E2M1 values f64 [n, k], E4M3 scales f64 [n, k/16])."""
    c = nibbles(np.asarray(packed, np.uint8).reshape(-1), k)
    v = E2M1[c & 7] * np.where(c & 8, -1.0, 1.0)
    return v, e4m3(np.asarray(scale, np.uint8)).reshape(n, k // 16)


def dequant(codes, scales):
    """The weights [n, k] in float64: code * scale of its group."""
    g = codes.shape[1] // scales.shape[1]
    return codes * np.repeat(scales, g, axis=1)


# ------------------------------------------------------------------ activations

def quantize(x, group, qmax):
    """FORMATS.md 4: per row and group s = max|x| / qmax in f32 (1.0 when 0), q = clamp(rint(x / s))
    with f32 division, ties to even. (q int [M, K], s f32 [M, K/group])."""
    x = np.asarray(x, np.float32)
    m, k = x.shape
    g = x.reshape(m, k // group, group)
    amax = np.abs(g).max(axis=2)
    s = np.where(amax == 0, np.float32(1), amax / np.float32(qmax)).astype(np.float32)
    q = np.clip(np.rint(g / s[:, :, None]), -qmax - 1, qmax).astype(np.int64)
    return q.reshape(m, k), s


def quantize64(x, group, qmax):
    """The same quantiser in float64 (the float64 forward with activation quantisation): the
    dequantised activations [M, K]."""
    x = np.asarray(x, np.float64)
    m, k = x.shape
    g = x.reshape(m, k // group, group)
    amax = np.abs(g).max(axis=2)
    s = np.where(amax == 0, 1.0, amax / qmax)
    q = np.clip(np.rint(g / s[:, :, None]), -qmax - 1, qmax)
    return (q * s[:, :, None]).reshape(m, k)


def even_odd(q):
    """int8 streams of the even and the odd k."""
    return q[:, 0::2].astype(np.int8), q[:, 1::2].astype(np.int8)


def pack_int4_codes(q):
    """Two's-complement nibbles, even k low: uint8 [M, K/2]."""
    u = (q & 15).astype(np.uint8)
    return u[:, 0::2] | (u[:, 1::2] << 4)


# ------------------------------------------------------------------ GEMVs

def gemv_grouped(wcodes, wscale, q, ascale, group, global_mul=1.0, piece=32):
    """y[m, n] = global_mul * sum_g ws[n, g'] as[m, g] sum_{k in g} w[n, k] q[m, k] for activation
    groups of `group` (the weight's scale group g' = k // wgroup). (y f64 [M, N], f32 bound).

    The bound allows the group's dot to be taken in integer pieces of `piece` k (at most the group)
    that are scaled and summed in f32: a device may split a group across lanes, and the pieces of
    one group can cancel, so the rounding is relative to the sum of the pieces' magnitudes."""
    n, k = wcodes.shape
    m = q.shape[0]
    piece = min(piece, group)
    ng, npc = k // group, k // piece
    wg = k // wscale.shape[1]
    idot = np.einsum("npj,mpj->mnp", wcodes.reshape(n, npc, piece), q.reshape(m, npc, piece))  # exact integers
    first = np.arange(npc) * piece
    ws = wscale[:, first // wg]                                                               # [n, npc]
    asc = ascale.astype(np.float64)[:, first // group]                                        # [m, npc]
    terms = idot * ws[None, :, :] * asc[:, None, :] * global_mul
    bound = (npc + 4) * EPS32 * np.abs(terms).sum(axis=2) * 4
    return terms.sum(axis=2), bound


def gemv_f32_acts(wcodes, wscale, x):
    """W4A16: y = W x over the dequantised weights in float64, and a bound for f32 arithmetic."""
    w = dequant(wcodes, wscale)
    x = np.asarray(x, np.float64)
    k = w.shape[1]
    return x @ w.T, (k + 8) * EPS32 * (np.abs(x) @ np.abs(w).T) * 2
