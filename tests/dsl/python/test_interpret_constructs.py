"""k100lc_kernels.interpret, construct by construct: each kernel below is
interpreted and compared with an independent NumPy formula, and compiled by
k100-cc and run on the emulator (checks on) where the code generator
handles it, which must give the same arrays.

Run by CTest with K100_BUILD_DIR and K100_BACKEND=emu."""
import numpy as np
import pytest

from k100lc_kernels import interpret
from k100lc_kernels.dsl_differential import CompiledSource, compare

SOURCE = '''
LIMIT = 7
SCALE = 0.5

@inline
def clamp_low(v: s32, lo: s32) -> s32:
    if v < lo:
        return lo
    return v

def twice(x: f32) -> f32:
    return x + x

def int_ops(a: ptr[u32], b: ptr[u32], out: ptr[u32], n: u32):
    i = gid()
    if i < n:
        x = a[i]
        y = b[i] | 1
        out[i * 12 + 0] = x + y * 3
        out[i * 12 + 1] = x - y
        out[i * 12 + 2] = x // y
        out[i * 12 + 3] = x % y
        out[i * 12 + 4] = x / 7
        out[i * 12 + 5] = x % 10
        out[i * 12 + 6] = (x << (y & 7)) ^ (x >> 3)
        out[i * 12 + 7] = ~x & 0xFFFF
        out[i * 12 + 8] = max(x, y) - min(x, y)
        out[i * 12 + 9] = x // n
        out[i * 12 + 10] = 1 if x > y else 0
        out[i * 12 + 11] = x * x

def signed_ops(a: ptr[s32], b: ptr[s32], out: ptr[s32], n: u32):
    i = gid()
    if i < n:
        x = a[i]
        y = b[i]
        if y == 0:
            y = -3
        out[i * 8 + 0] = x // y
        out[i * 8 + 1] = x % y
        out[i * 8 + 2] = x >> 2
        out[i * 8 + 3] = -x
        out[i * 8 + 4] = max(x, y)
        out[i * 8 + 5] = clamp_low(x, -100)
        out[i * 8 + 6] = x // -7
        out[i * 8 + 7] = s32(u32(x) >> 28)

def float_ops(x: ptr[f32], y: ptr[f32], out: ptr[f32], n: u32, k: f32):
    i = gid()
    if i < n:
        a = x[i]
        b = y[i]
        out[i * 10 + 0] = a * b + k
        out[i * 10 + 1] = fma(a, b, k)
        out[i * 10 + 2] = floor(a) + ceil(b) - trunc(a * 3.0)
        out[i * 10 + 3] = rint(a * 4.0) + fract(b)
        out[i * 10 + 4] = fabs(a) - min(a, b) + max(a, 1)
        out[i * 10 + 5] = f32(s32(a * 100.0)) + f32(u32(fabs(b) * 10.0))
        out[i * 10 + 6] = twice(a) * SCALE
        out[i * 10 + 7] = 1.0 if a <= b else -1.0
        out[i * 10 + 8] = a / (fabs(b) + 1.0)
        out[i * 10 + 9] = sqrt(fabs(a)) + rsqrt(fabs(b) + 1.0) + exp(a)

def bytes_ops(u: ptr[u8], s: ptr[s8], h: ptr[u16], g: ptr[s16], out: ptr[s32], b8: ptr[u8], n: u32):
    i = gid()
    if i < n:
        out[i * 6 + 0] = s32(u[i]) + s[i]
        out[i * 6 + 1] = s32(h[i]) - g[i]
        out[i * 6 + 2] = s8(u32(h[i]))
        out[i * 6 + 3] = s32(ubyte(u32(g[i]) >> 4) * 2.0)
        out[i * 6 + 4] = s32(load16(h, i * 2 + 1))
        out[i * 6 + 5] = s32(f16_to_f32(u32(h[i])) * 0.0)
        b8[i] = u32(g[i]) + 1

def control(a: ptr[u32], out: ptr[u32], n: u32):
    i = gid()
    if i >= n:
        return
    v = a[i]
    acc = v - v
    j = v - v
    while j < v:
        j += 1
        if j % 3 == 0:
            continue
        if j > LIMIT:
            break
        acc += j
    t = s32(v - v)
    for k in range(v, 0, -2):
        t = t * 2 + k
        if t > 1000:
            break
    if v < 2:
        out[i * 4 + 0] = 100
    elif v < 5:
        out[i * 4 + 0] = 200
    else:
        out[i * 4 + 0] = 300
    u = 0
    for s in static_range(3):
        u = u + s * v
    out[i * 4 + 1] = acc
    out[i * 4 + 2] = t + u
    if v == 9:
        return
    w = v - v
    for q in range(0, v, 3):
        w += q
    out[i * 4 + 3] = w + q

def lds_rev(x: ptr[f32], y: ptr[f32]):
    buf = lds(128)
    cnt = lds(1, u32)
    t = tid()
    if t == 0:
        cnt[0] = 0
    buf[t] = x[bid() * 128 + t]
    barrier()
    old = atomic_add(cnt, 0, 1)
    y[bid() * 128 + t] = buf[127 - t]
    barrier()
    if t == 5:
        y[bid() * 128 + 5] = f32(cnt[0]) + 0.5

def atomics(counts: ptr[u32], hi: ptr[s32], lo: ptr[s32], keys: ptr[u32], vals: ptr[s32], n: u32):
    i = gid()
    if i < n:
        k = keys[i]
        atomic_add(counts, k, 1)
        atomic_max(hi, k, vals[i])
        atomic_min(lo, k, vals[i])

def cross_lane(x: ptr[f32], u: ptr[u32], out: ptr[f32], iout: ptr[u32]):
    i = gid()
    l = lane()
    v = x[i]
    out[i * 4 + 0] = shuffle(v, (l + 5) & 63)
    out[i * 4 + 1] = broadcast(v, 3)
    s = 0.0
    if l < 40:
        s = wave_sum(v)
    out[i * 4 + 2] = s
    out[i * 4 + 3] = wave_max(v) - wave_min(v)
    iout[i * 2 + 0] = wave_sum(u[i])
    iout[i * 2 + 1] = shuffle(u[i], l ^ 1)

def grid2d(m: ptr[u32], w: u32, h: u32):
    c = gid(0)
    r = gid(1)
    if c < w and r < h:
        m[r * w + c] = (bid(1) << 16) | (lid(1) << 8) | lid(0)

def more(x: ptr[f32], out: ptr[s32], old: ptr[u32], fs: ptr[f32]):
    t = tid()
    slot = lds(4, u32)
    lo = lds(1, s32)
    if t == 0:
        slot[0] = 7
        slot[1] = 0
        lo[0] = 1000
    barrier()
    v = x[t]
    m: f32 = 3
    m = m + v
    out[t * 6 + 0] = s32(v * 1.0e10)
    out[t * 6 + 1] = s32(u32(v * 100.0))
    j = t - t
    while 1:
        j += 1
        if j * j > t:
            break
    out[t * 6 + 2] = s32(j)
    out[t * 6 + 3] = s32(m * 8.0)
    old[t * 2 + 0] = atomic_xchg(slot, 0, t)
    old[t * 2 + 1] = atomic_cas(slot, 1, t, t + 1)
    atomic_min(lo, 0, s32(t) - 40)
    atomic_add(fs, t & 3, f32(t))
    barrier()
    out[t * 6 + 4] = lo[0]
    out[t * 6 + 5] = s32(slot[0] + slot[1] * 1000)

def dots(a: ptr[u32], b: ptr[u32], out: ptr[s32], fo: ptr[f32], n: u32):
    i = gid()
    if i < n:
        out[i * 2 + 0] = dot4(a[i], b[i], 10)
        out[i * 2 + 1] = dot8(a[i], b[i], s32(i))
        fo[i] = dot2(a[i], b[i], 0.25)
'''

rng = np.random.default_rng(2929)


@pytest.fixture(scope="module")
def cs():
    c = CompiledSource(SOURCE)
    yield c
    c.close()


def run(cs, kernel, args, grid, workgroup=64):
    """Interpreted arrays, checked against the compiled kernel on the emulator first."""
    diffs = compare(cs, kernel, args, grid, workgroup)
    assert not diffs, diffs
    out = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    interpret(SOURCE, *out, grid=grid, workgroup=workgroup, kernel=kernel)
    return out


def test_unsigned_integers(cs):
    n = 100
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    a[:4] = [0, 1, 0xFFFFFFFF, 0x80000000]
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b[:2] = [0, 0xFFFFFFFF]
    out = run(cs, "int_ops", [a, b, np.zeros(n * 12, np.uint32), n], 2)[2].reshape(n, 12).astype(np.int64)
    x, y = a.astype(np.int64), (b | 1).astype(np.int64)
    M = 1 << 32
    want = np.stack([(x + 3 * y) % M, (x - y) % M, x // y, x % y, x // 7, x % 10,
                     ((x << (y & 7)) % M) ^ (x >> 3), (~x) & 0xFFFF, np.maximum(x, y) - np.minimum(x, y), x // n,
                     (x > y).astype(np.int64), (x * x) % M], axis=1)
    assert np.array_equal(out, want)


def test_signed_integers_round_toward_negative_infinity(cs):
    n = 90
    a = rng.integers(-(1 << 31), 1 << 31, n).astype(np.int32)
    b = rng.integers(-1000, 1000, n).astype(np.int32)
    a[:5] = [-7, 7, -(1 << 31), -1, 0]
    b[:5] = [2, -2, -1, 0, 5]
    out = run(cs, "signed_ops", [a, b, np.zeros(n * 8, np.int32), n], 2)[2].reshape(n, 8).astype(np.int64)
    x = a.astype(np.int64)
    y = np.where(b == 0, -3, b).astype(np.int64)
    wrap = lambda v: ((v + (1 << 31)) % (1 << 32)) - (1 << 31)  # noqa: E731
    want = np.stack([wrap(x // y), x % y, x >> 2, wrap(-x), np.maximum(x, y), np.maximum(x, -100), wrap(x // -7),
                     (x % (1 << 32)) >> 28], axis=1)
    assert np.array_equal(out, want)


def test_floats(cs):
    n = 100
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    y = (rng.standard_normal(n) * 3).astype(np.float32)
    k = np.float32(0.3)
    out = run(cs, "float_ops", [x, y, np.zeros(n * 10, np.float32), n, 0.3], 2)[2].reshape(n, 10)
    d = lambda v: v.astype(np.float64)  # noqa: E731
    exact = np.stack([
        x * y + k, (d(x) * d(y) + d(k)).astype(np.float32),
        np.floor(x) + np.ceil(y) - np.trunc(x * np.float32(3)),
        np.rint(x * np.float32(4)) + (y - np.floor(y)),
        np.abs(x) - np.minimum(x, y) + np.maximum(x, np.float32(1)),
        np.trunc(x * np.float32(100)).astype(np.float32) + np.trunc(np.abs(y) * np.float32(10)).astype(np.float32),
        (x + x) * np.float32(0.5), np.where(x <= y, np.float32(1), np.float32(-1))], axis=1)
    assert np.array_equal(out[:, :8], exact)
    np.testing.assert_allclose(out[:, 8], d(x) / (np.abs(d(y)) + 1), rtol=1e-6)
    want9 = np.sqrt(np.abs(d(x))) + 1 / np.sqrt(np.abs(d(y)) + 1) + np.exp(d(x))
    np.testing.assert_allclose(out[:, 9], want9, rtol=3e-6)


def test_narrow_loads_stores_and_halves(cs):
    n = 70
    u = rng.integers(0, 256, n).astype(np.uint8)
    s = rng.integers(-128, 128, n).astype(np.int8)
    h = rng.integers(0, 1 << 16, n + 1).astype(np.uint16)
    h[:n] = np.where(np.isfinite(h[:n].view(np.float16)), h[:n], 0x3C00)
    g = rng.integers(-(1 << 15), 1 << 15, n).astype(np.int16)
    args = [u, s, h, g, np.zeros(n * 6, np.int32), np.zeros(n, np.uint8), n]
    res = run(cs, "bytes_ops", args, 2)
    out = res[4].reshape(n, 6).astype(np.int64)
    hb = h.view(np.uint8)
    want = np.stack([u.astype(np.int64) + s, h[:n].astype(np.int64) - g, (h[:n] & 0xFF).astype(np.uint8).view(np.int8),
                     ((g.astype(np.int64) % (1 << 32)) >> 4 & 0xFF) * 2,
                     hb[np.arange(n) * 2 + 1].astype(np.int64) | (hb[np.arange(n) * 2 + 2].astype(np.int64) << 8),
                     np.zeros(n, np.int64)], axis=1)
    assert np.array_equal(out, want)
    assert np.array_equal(res[5], ((g.astype(np.int64) + 1) % 256).astype(np.uint8))


def test_varying_control_flow(cs):
    n = 80
    a = rng.integers(0, 14, n).astype(np.uint32)
    out = run(cs, "control", [a, np.full(n * 4, 77, np.uint32), n], 2)[1].reshape(n, 4)
    for i, v in enumerate(a.tolist()):
        acc, j = 0, 0
        while j < v:
            j += 1
            if j % 3 == 0:
                continue
            if j > 7:
                break
            acc += j
        t = 0
        for k in range(v, 0, -2):
            t = t * 2 + k
            if t > 1000:
                break
        first = 100 if v < 2 else 200 if v < 5 else 300
        w = sum(range(0, v, 3))
        after = -(-v // 3) * 3  # the counter keeps its first value past the bound
        last = 77 if v == 9 else w + after
        assert out[i].tolist() == [first, acc, t + 3 * v, last], (i, v)


def test_lds_barrier_and_lds_atomics(cs):
    x = rng.standard_normal(256).astype(np.float32)
    y = run(cs, "lds_rev", [x, np.zeros(256, np.float32)], 2, 128)[1].reshape(2, 128)
    want = x.reshape(2, 128)[:, ::-1].copy()
    want[:, 5] = 128.5  # every work-item of the workgroup added 1 to cnt
    assert np.array_equal(y, want)


def test_global_atomics(cs):
    n, keys_n = 200, 5
    keys = rng.integers(0, keys_n, n).astype(np.uint32)
    vals = rng.integers(-1000, 1000, n).astype(np.int32)
    res = run(cs, "atomics", [np.zeros(keys_n, np.uint32), np.full(keys_n, -5000, np.int32),
                              np.full(keys_n, 5000, np.int32), keys, vals, n], 4)
    for k in range(keys_n):
        sel = keys == k
        assert res[0][k] == sel.sum()
        assert res[1][k] == (vals[sel].max() if sel.any() else -5000)
        assert res[2][k] == (vals[sel].min() if sel.any() else 5000)


def test_cross_lane(cs):
    x = rng.standard_normal(128).astype(np.float32)
    u = rng.integers(0, 1000, 128).astype(np.uint32)
    res = run(cs, "cross_lane", [x, u, np.zeros(512, np.float32), np.zeros(256, np.uint32)], 2)
    out, iout = res[2].reshape(2, 64, 4), res[3].reshape(2, 64, 2)
    xs, us = x.reshape(2, 64), u.reshape(2, 64)
    for w in range(2):
        l = np.arange(64)
        assert np.array_equal(out[w, :, 0], xs[w, (l + 5) & 63])
        assert np.array_equal(out[w, :, 1], np.full(64, xs[w, 3]))
        acc = np.float32(0)
        for v in xs[w, :40]:  # over the active lanes, in lane order
            acc = np.float32(acc + v)
        assert np.array_equal(out[w, :, 2], np.where(l < 40, acc, np.float32(0)))
        assert np.array_equal(out[w, :, 3], np.full(64, xs[w].max() - xs[w].min(), np.float32))
        assert np.array_equal(iout[w, :, 0], np.full(64, us[w].sum()))
        assert np.array_equal(iout[w, :, 1], us[w, l ^ 1])


def test_two_dimensional_ids(cs):
    w, h = 20, 7
    m = run(cs, "grid2d", [np.zeros(w * h, np.uint32), w, h], (2, 2), (16, 4))[0].reshape(h, w)
    r, c = np.mgrid[0:h, 0:w]
    assert np.array_equal(m, ((r // 4) << 16) | ((r % 4) << 8) | (c % 16))


def test_dot_products(cs):
    n = 64
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    halves = lambda w: w.view(np.uint16).reshape(n, 2).view(np.float16).astype(np.float64)  # noqa: E731
    a16 = np.where(np.isfinite(halves(a)), halves(a), 1.0).astype(np.float16)
    b16 = np.where(np.isfinite(halves(b)), halves(b), 1.0).astype(np.float16)
    a, b = a16.reshape(-1).view(np.uint32).copy(), b16.reshape(-1).view(np.uint32).copy()
    res = run(cs, "dots", [a, b, np.zeros(2 * n, np.int32), np.zeros(n, np.float32), n], 1)
    out = res[2].reshape(n, 2).astype(np.int64)

    def fields(w, bits):
        k = np.arange(32 // bits)
        f = (w.astype(np.int64)[:, None] >> (k * bits)) & ((1 << bits) - 1)
        return np.where(f >= 1 << (bits - 1), f - (1 << bits), f)
    wrap = lambda v: ((v + (1 << 31)) % (1 << 32)) - (1 << 31)  # noqa: E731
    assert np.array_equal(out[:, 0], wrap(10 + (fields(a, 8) * fields(b, 8)).sum(1)))
    assert np.array_equal(out[:, 1], wrap(np.arange(n) + (fields(a, 4) * fields(b, 4)).sum(1)))
    exact = (a16.astype(np.float64) * b16.astype(np.float64)).sum(1) + 0.25  # exact in float64 here: rounded once
    assert np.array_equal(res[3], exact.astype(np.float32))


def test_loops_locals_conversions_and_atomics_in_lane_order(cs):
    x = np.concatenate([np.array([-1.5, 1e30, -1e30, np.nan, 0.25], np.float32),
                        rng.standard_normal(59).astype(np.float32) * 5])
    res = run(cs, "more", [x, np.zeros(64 * 6, np.int32), np.zeros(128, np.uint32), np.zeros(4, np.float32)], 1)
    out, old = res[1].reshape(64, 6).astype(np.int64), res[2].reshape(64, 2)
    t = np.arange(64)
    with np.errstate(invalid="ignore", over="ignore"):
        big = (x * np.float32(1e10)).astype(np.float64)
        want0 = np.where(np.isnan(big), 0, np.clip(np.trunc(big), -2**31, 2**31 - 1))
        hundred = (x * np.float32(100)).astype(np.float64)
        want1 = np.where(np.isnan(hundred), 0, np.clip(np.trunc(hundred), 0, 2**32 - 1))
    assert np.array_equal(out[:, 0], want0)
    assert np.array_equal(out[:, 1], np.where(want1 >= 2**31, want1 - 2**32, want1))
    assert np.array_equal(out[:, 2], np.floor(np.sqrt(t)).astype(np.int64) + 1)  # the first j with j * j > t
    m = (np.float32(3) + x) * np.float32(8)
    with np.errstate(invalid="ignore"):
        want3 = np.where(np.isnan(m), 0, np.clip(np.trunc(m.astype(np.float64)), -2**31, 2**31 - 1))
    assert np.array_equal(out[:, 3], want3)
    # one wave: its lanes act in lane order, so the old values are known
    assert np.array_equal(old[:, 0], np.concatenate([[7], t[:-1]]))
    assert np.array_equal(old[:, 1], t)  # lane t finds t (lane t - 1 stored it) and stores t + 1
    assert (out[:, 4] == -40).all() and (out[:, 5] == 63 + 1000 * 64).all()
    assert np.array_equal(res[3], np.array([sum(range(i, 64, 4)) for i in range(4)], np.float32))
