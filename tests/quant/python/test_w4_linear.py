"""The 4-bit linear layers (k100lc_kernels.model.Int4Linear, RT4Linear,
NVFP4Linear) on the emulator against the NumPy references of
w4_reference.py: every path of Int4Linear (W4A16, W4A8, W4A4; decode chunks
of four rows, the W4A4 GEMM prefill and its GEMV fallback), RT4Linear over an
RT4 file, NVFP4Linear with subnormal block scales; results within the f32
rounding bound of the exact integer group dots; the refusals."""
import numpy as np
import pytest

import w4_reference as ref
from k100lc_kernels import quant, rt4

runtime = pytest.importorskip("k100lc_kernels.runtime")
model = pytest.importorskip("k100lc_kernels.model")


@pytest.fixture(scope="module")
def rt():
    return runtime.Runtime()


@pytest.fixture(scope="module")
def runner(rt):
    with rt4.W4Runner(rt) as r:
        yield r


def ct_layer(seed, n, k):
    w = np.random.default_rng(seed).normal(0, 0.05, (n, k)).astype(np.float32)
    packed, scales = quant.pack_int4_group128(w)
    return packed, scales, ref.ct_int4(packed, scales, n, k)


def check(y, want_bound):
    want, bound = want_bound
    assert y.shape == want.shape
    assert np.all(np.abs(y - want) <= bound), float(np.abs(y - want).max())


@pytest.mark.parametrize("path, rows", [("w4a16", 1), ("w4a16", 6), ("w4a8", 3), ("w4a8", 6), ("w4a4", 2),
                                        ("w4a4", 5)])
def test_int4_linear_decode(rt, runner, path, rows):
    n, k = 40, 256
    packed, scales, (codes, s) = ct_layer(rows, n, k)
    lin = model.Int4Linear(rt, n, k, packed, scales, path=path, runner=runner, tag=f"i4.{path}.{rows}")
    x = np.random.default_rng(100 + rows).normal(0, 1, (rows, k)).astype(np.float32)
    y = lin.forward(x)
    if path == "w4a16":
        check(y, ref.gemv_f32_acts(codes, s, x))
    else:
        group, qmax = (128, 127) if path == "w4a8" else (32, 7)
        q, sa = ref.quantize(x, group, qmax)
        check(y, ref.gemv_grouped(codes, s, q, sa, group))


@pytest.mark.parametrize("prefill", ["gemm", "gemv"])
def test_int4_linear_prefill(rt, runner, prefill):
    n, k, rows = 64, 256, 128
    packed, scales, (codes, s) = ct_layer(7, n, k)
    lin = model.Int4Linear(rt, n, k, packed, scales, path="w4a8", runner=runner, tag=f"i4.pre.{prefill}",
                           prefill=prefill)
    x = np.random.default_rng(8).normal(0, 1, (rows, k)).astype(np.float32)
    y = lin.forward(x)
    if prefill == "gemm":      # int4 activations per 128, whatever the path
        q, sa = ref.quantize(x, 128, 7)
        check(y, ref.gemv_grouped(codes, s, q, sa, 128))
    else:                      # the path's own W4A8 GEMV, four rows at a time
        q, sa = ref.quantize(x, 128, 127)
        check(y, ref.gemv_grouped(codes, s, q, sa, 128))


def test_rt4_linear_from_a_file(rt, runner, tmp_path):
    n, k = 36, 384
    w = np.random.default_rng(9).normal(0, 0.1, (n, k)).astype(np.float32)
    q, s = rt4.pack_int4(w)
    path = tmp_path / "l.rt4"
    rt4.write(path, [("l.weight", q, s)])
    x = np.random.default_rng(10).normal(0, 1, (2, k)).astype(np.float32)
    with rt4.RT4File(path) as f:
        t = f.tensor("l.weight")
        wq, ws = f.upload_weight(rt, t)
        qb, sb = f.weight_bytes(t)
        codes, scales = ref.rt4(qb, sb, n, k)
    try:
        for p, group, qmax in (("w4a8", 128, 127), ("w4a4", 32, 7)):
            lin = model.RT4Linear(rt, n, k, wq, ws, path=p, runner=runner, tag=f"rt4.{p}")
            qa, sa = ref.quantize(x, group, qmax)
            check(lin.forward(x), ref.gemv_grouped(codes, scales, qa, sa, group))
            xd = runner.scratch("test.x", x.nbytes)
            rt.upload(xd, x)
            yd = lin.forward_device(xd, 2, sync=True)
            check(rt.download(yd, 2 * n, np.float32).reshape(2, n), ref.gemv_grouped(codes, scales, qa, sa, group))
        with pytest.raises(ValueError, match="M = 5"):
            lin.forward(np.ones((5, k), np.float32))
    finally:
        rt.free(wq)
        rt.free(ws)


@pytest.mark.parametrize("rows, fast", [(1, False), (2, False), (5, False), (1, True), (6, True)])
def test_nvfp4_linear(rt, runner, rows, fast):
    if fast and not rt.has(model.NVFP4Linear.FAST):
        pytest.skip("the package has no " + model.NVFP4Linear.FAST)
    n, k = 24, 96                          # 6 blocks of 16 a row (3 of 32: the fast GEMV takes it)
    rng = np.random.default_rng(40 + rows)
    w = rng.normal(0, 0.05, (n, k)).astype(np.float32)
    w[2] *= 1e-5                           # its blocks get subnormal E4M3 scales
    w[5, 16:32] = 0                        # a zero block
    packed, sc, gs = quant.pack_nvfp4(w)
    vals, scales = ref.nvfp4(packed, sc, n, k)
    assert np.any((sc & 0x78) == 0) and np.any(sc != 0)   # subnormal scales occur
    lin = model.NVFP4Linear(rt, n, k, packed, sc, gs, runner=runner, tag=f"fp4.{rows}")
    lin.use_fast = fast
    assert (lin.kernel(1) == lin.FAST) == fast
    x = rng.normal(0, 1, (rows, k)).astype(np.float32)
    q, sa = ref.quantize(x, 16, 127)
    # E2M1 values are multiples of 1/2: twice them are the exact integers of the dot
    y = lin.forward(x)
    want, bound = ref.gemv_grouped((2 * vals).astype(np.int64), scales, q, sa, 16, global_mul=0.5 / gs)
    check(y, (want, bound))
    # the packer's weights (those with normal block scales) are within one E2M1 step of the originals
    wd = ref.dequant(vals, scales) / gs
    blk_max = np.repeat(np.abs(w).reshape(n, k // 16, 16).max(axis=2), 16, axis=1)
    normal = np.arange(n) != 2
    assert np.all(np.abs(wd - w)[normal] <= (blk_max / 6 * 1.1)[normal])


def test_refusals(rt, runner):
    packed, scales, _ = ct_layer(1, 8, 128)
    with pytest.raises(ValueError, match="'w4a2'"):
        model.Int4Linear(rt, 8, 128, packed, scales, path="w4a2", runner=runner)
    with pytest.raises(ValueError, match="'prefix'"):
        model.Int4Linear(rt, 8, 128, packed, scales, prefill="prefix", runner=runner)
    with pytest.raises(ValueError, match="expected 512"):
        model.Int4Linear(rt, 8, 128, packed[:-4], scales, runner=runner)
    with pytest.raises(ValueError, match="k = 96"):
        model.Int4Linear(rt, 8, 96, packed[:384], scales, runner=runner)
    codes, sc, gs = quant.pack_nvfp4(np.ones((4, 32), np.float32))
    with pytest.raises(ValueError, match="global_scale"):
        model.NVFP4Linear(rt, 4, 32, codes, sc, 0.0, runner=runner)
    with pytest.raises(ValueError, match="k = 24"):
        model.NVFP4Linear(rt, 4, 24, codes[:, :12], sc, gs, runner=runner)
    with pytest.raises(ValueError, match="expected 8"):
        model.NVFP4Linear(rt, 4, 32, codes, sc[:, :1], gs, runner=runner)
