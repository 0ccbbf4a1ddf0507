"""k100lc_kernels.rt4.W4Runner on the emulator against the NumPy references of
w4_reference.py (written from FORMATS.md): the activation quantisers exactly
(codes, scale bits, group sums), the W4A8 / W4A4 / W4A16 GEMVs for M = 1..4
and the W4A4 GEMM (flat and per-tile) within the f32 rounding bound of exact
integer group dots; the conversion compressed-tensors -> RT4 decodes to the
same weights; the runner's refusals (ValueError naming the value)."""
import numpy as np
import pytest

import w4_reference as ref
from k100lc_kernels import quant
from k100lc_kernels.rt4 import W4A4_KERNEL, W4A8_KERNEL, W4Runner

runtime = pytest.importorskip("k100lc_kernels.runtime")

N, K = 72, 384   # 18 waves of 4 rows (a partial last workgroup), 3 weight groups


@pytest.fixture(scope="module")
def rt():
    return runtime.Runtime()


@pytest.fixture(scope="module")
def run(rt):
    with W4Runner(rt) as r:
        yield r


def activations(rng, m, k):
    x = rng.normal(0, 1, (m, k)).astype(np.float32)
    x[0, 128:160] = 0          # an all-zero group: scale 1.0
    x[-1, 5] = 9.0             # an outlier dominating its group
    return x


@pytest.fixture(scope="module")
def weights(rt):
    rng = np.random.default_rng(11)
    w = rng.normal(0, 0.05, (N, K)).astype(np.float32)
    w[3, :128] = 0             # an all-zero weight group
    packed, scales = quant.pack_int4_group128(w)
    q4, s16 = quant.ct_int4_to_rt4(packed, scales)
    dev = {}
    for name, data in (("ct", packed), ("bf16", scales), ("q4", q4), ("f16", s16),
                       ("gm", quant.int4_scale_group_first_f32(scales, N, K))):
        a = np.frombuffer(data, np.uint8) if isinstance(data, bytes) else data
        dev[name] = rt.alloc(a.nbytes)
        rt.upload(dev[name], a)
    yield dict(dev=dev, ct=ref.ct_int4(packed, scales, N, K), rt4=ref.rt4(q4, s16, N, K))
    for p in dev.values():
        rt.free(p)


def test_conversion_keeps_the_weights(weights):
    (c1, s1), (c2, s2) = weights["ct"], weights["rt4"]
    np.testing.assert_array_equal(ref.dequant(c1, s1), ref.dequant(c2, s2))


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_w4a8_gemv(rt, run, weights, m):
    x = activations(np.random.default_rng(m), m, K)
    d = weights["dev"]
    y = run.gemv("w4a8", d["q4"], d["f16"], x, N, K)
    # the quantised activations, exactly
    q, s = ref.quantize(x, 128, 127)
    ev, od = ref.even_odd(q)
    np.testing.assert_array_equal(rt.download(run.scratch("ae", m * K // 2), m * K // 2, np.int8), ev.reshape(-1))
    np.testing.assert_array_equal(rt.download(run.scratch("ao", m * K // 2), m * K // 2, np.int8), od.reshape(-1))
    np.testing.assert_array_equal(rt.download(run.scratch("asc8", m * 3 * 4), m * 3, np.uint32),
                                  s.view(np.uint32).reshape(-1))
    np.testing.assert_array_equal(rt.download(run.scratch("asu", m * 3 * 4), m * 3, np.int32),
                                  q.reshape(m, 3, 128).sum(axis=2).reshape(-1))
    want, bound = ref.gemv_grouped(*weights["rt4"], q, s, 128)
    assert y.shape == (m, N)
    assert np.all(np.abs(y - want) <= bound), np.abs(y - want).max()


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_w4a4_gemv(rt, run, weights, m):
    x = activations(np.random.default_rng(10 + m), m, K)
    d = weights["dev"]
    y = run.gemv("w4a4", d["q4"], d["f16"], x, N, K)
    q, s = ref.quantize(x, 32, 7)
    np.testing.assert_array_equal(rt.download(run.scratch("aq4", m * K // 2), m * K // 2, np.uint8),
                                  ref.pack_int4_codes(q).reshape(-1))
    np.testing.assert_array_equal(rt.download(run.scratch("asc4", m * 12 * 4), m * 12, np.uint32),
                                  s.view(np.uint32).reshape(-1))
    want, bound = ref.gemv_grouped(*weights["rt4"], q, s, 32)
    assert np.all(np.abs(y - want) <= bound), np.abs(y - want).max()


@pytest.mark.parametrize("m, fast", [(1, True), (4, True), (3, False)])
def test_w4a16_gemv(rt, run, weights, m, fast):
    if fast and not rt.has("int4_gemv_k"):
        pytest.skip("the package has no int4_gemv_k")
    x = activations(np.random.default_rng(20 + m), m, K)
    d = weights["dev"]
    run.use_int4_gemv = fast     # False: int4_dot_k and reduce_blocks_k per row
    try:
        y = run.gemv("w4a16", d["ct"], d["bf16"], x, N, K)
    finally:
        run.use_int4_gemv = True
    want, bound = ref.gemv_f32_acts(*weights["ct"], x)
    assert np.all(np.abs(y - want) <= bound), np.abs(y - want).max()


def gemm_case(rt, run, n, m, seed):
    rng = np.random.default_rng(seed)
    w = rng.normal(0, 0.05, (n, K)).astype(np.float32)
    packed, scales = quant.pack_int4_group128(w)
    q4, _ = quant.ct_int4_to_rt4(packed, scales)
    gm = quant.int4_scale_group_first_f32(scales, n, K)
    wq, wsc = rt.alloc(len(q4)), rt.alloc(gm.nbytes)
    rt.upload(wq, q4)
    rt.upload(wsc, gm)
    x = rng.normal(0, 1, (m, K)).astype(np.float32)
    try:
        c = run.gemm(wq, wsc, x, n, K)
    finally:
        rt.free(wq)
        rt.free(wsc)
    q, s = ref.quantize(x, 128, 7)
    # the activation codes and the group-major scales, exactly
    np.testing.assert_array_equal(rt.download(run.scratch("gaq", m * K // 2), m * K // 2, np.uint8),
                                  ref.pack_int4_codes(q).reshape(-1))
    # group-major [K/128, rows] over all rows (the flat GEMM), or per 128-row tile (N == 64)
    tiles = [s] if n > 64 else [s[t:t + 128] for t in range(0, m, 128)]
    want_sc = np.concatenate([np.ascontiguousarray(t.T).reshape(-1) for t in tiles])
    np.testing.assert_array_equal(rt.download(run.scratch("gasc", m * 3 * 4), m * 3, np.uint32),
                                  want_sc.view(np.uint32))
    codes, wscale = ref.ct_int4(packed, scales, n, K)
    want, bound = ref.gemv_grouped(codes, wscale, q, s, 128)
    assert c.shape == (m, n)
    assert np.all(np.abs(c - want) <= bound), np.abs(c - want).max()


def test_w4a4_gemm_flat(rt, run):
    gemm_case(rt, run, 128, 128, 31)     # two column tiles: gemm_w4a4_flat


def test_w4a4_gemm_per_tile(rt, run):
    gemm_case(rt, run, 64, 256, 32)      # one column tile, two row tiles: gemm_w4a4 per tile


def test_refusals(run, weights):
    d = weights["dev"]
    x = np.ones((1, K), np.float32)
    with pytest.raises(ValueError, match="'w4a2'"):
        run.gemv("w4a2", d["q4"], d["f16"], x, N, K)
    with pytest.raises(ValueError, match="M = 5"):
        run.gemv("w4a8", d["q4"], d["f16"], np.ones((5, K), np.float32), N, K)
    with pytest.raises(ValueError, match="k = 320"):
        run.gemv("w4a4", d["q4"], d["f16"], np.ones((1, 320), np.float32), N, 320)
    with pytest.raises(ValueError, match=r"\[M, K = 384\]"):
        run.gemv("w4a8", d["q4"], d["f16"], np.ones(K, np.float32), N, K)
    with pytest.raises(ValueError, match="without m"):
        run.gemv_device("w4a8", d["q4"], d["f16"], None, N, K, x_dev=d["q4"])
    for kind, kernel in (("w4a8", W4A8_KERNEL[1]), ("w4a4", W4A4_KERNEL[1])):
        for threads in (64, 512, 100):
            with pytest.raises(ValueError, match=f"threads = {threads}"):
                run.gemv(kind, d["q4"], d["f16"], x, N, K, threads=threads)
    with pytest.raises(ValueError, match="M = 100 is not a multiple of 128"):
        run.gemm(d["q4"], d["gm"], np.ones((100, K), np.float32), N, K)
    with pytest.raises(ValueError, match="N = 72 is not a multiple of 64"):
        run.gemm(d["q4"], d["gm"], np.ones((128, K), np.float32), N, K)
    with pytest.raises(ValueError, match="K = 320 is not a multiple of 128"):
        run.gemm(d["q4"], d["gm"], np.ones((128, 320), np.float32), 64, 320)
    with pytest.raises(ValueError, match="threads = 128"):
        run.gemm(d["q4"], d["gm"], np.ones((128, K), np.float32), 128, K, threads=128)
