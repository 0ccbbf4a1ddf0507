"""k100lc_kernels.interpret on the example kernels of tests/dsl/kkl: each one
interpreted, compiled by k100-cc and run on the emulator (checks on), and
computed by an independent NumPy formula; the three must agree.

Run by CTest with K100_BUILD_DIR and K100_BACKEND=emu."""
from pathlib import Path

import numpy as np
import pytest

from k100lc_kernels import interpret
from k100lc_kernels.dsl_differential import CompiledSource, compare

KKL = Path(__file__).resolve().parents[1] / "kkl"
rng = np.random.default_rng(29)


def f32(*shape):
    return rng.standard_normal(shape, dtype=np.float32).reshape(-1)


@pytest.fixture(scope="module")
def rt():
    first = CompiledSource((KKL / "vadd.kkl").read_text())  # kept until the module's tests end
    yield first.rt
    first.close()


def both(rt, name, args, grid, workgroup=64, kernel=None):
    """The interpreted arrays, after checking that the compiled kernel gives the same."""
    text = (KKL / f"{name}.kkl").read_text()
    cs = CompiledSource(text, rt=rt)
    diffs = compare(cs, kernel or name, args, grid, workgroup)
    assert not diffs, diffs
    out = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    interpret(KKL / f"{name}.kkl", *out, grid=grid, workgroup=workgroup, kernel=kernel)
    cs.close()
    return out


def test_vadd(rt):
    n = 1000
    a, b = f32(n), f32(n)
    out = both(rt, "vadd", [a, b, np.zeros(n, np.float32), n], (n + 63) // 64)[2]
    assert np.array_equal(out, a + b)


def test_axpy(rt):
    n = 300
    x, y = f32(n), f32(n)
    got = both(rt, "axpy", [np.zeros(1, np.float32), x, y, n, 0.75], (n + 63) // 64)[2]
    want = (np.float64(0.75) * x.astype(np.float64) + y).astype(np.float32)  # fused: rounded once
    assert np.array_equal(got, want)


def test_clamp_scale(rt):
    n = 200
    src = f32(n)
    got = both(rt, "clamp_scale", [src, np.zeros(n, np.float32), n, -0.5, 0.5, 1.5], 4)[1]
    assert np.array_equal(got, np.clip(src * np.float32(1.5), np.float32(-0.5), np.float32(0.5)))


def test_silu(rt):
    n = 256
    x = np.linspace(-6, 6, n, dtype=np.float32)
    got = both(rt, "silu", [x, np.zeros(n, np.float32), n], 4)[1]
    np.testing.assert_allclose(got, x / (1 + np.exp(-x.astype(np.float64))), rtol=2e-6, atol=1e-7)


def test_row_sumsq(rt):
    rows, cols = 3, 150
    x = f32(rows * cols)
    got = both(rt, "row_sumsq", [x, np.zeros(rows, np.float32), cols], rows)[1]
    np.testing.assert_allclose(got, (x.reshape(rows, cols).astype(np.float64) ** 2).sum(1), rtol=1e-5)


def test_embed_f16(rt):
    rows, dim, vocab = 3, 100, 7
    tab = rng.standard_normal((vocab, dim)).astype(np.float16)
    ids = np.array([5, 0, 6], np.uint32)
    got = both(rt, "embed_f16_k", [np.zeros(rows * dim, np.float32), ids, tab.view(np.uint16).reshape(-1), rows,
                                   dim], rows)[0]
    assert np.array_equal(got.reshape(rows, dim), tab[ids].astype(np.float32))


def test_widen_f16(rt):
    n = 130
    h = rng.standard_normal(n).astype(np.float16)
    got = both(rt, "widen_f16", [h.view(np.uint8), np.zeros(n, np.float32), n], 3)[1]
    assert np.array_equal(got, h.astype(np.float32))


def test_rope_apply(rt):
    rows, dim, tsh, tbase = 4, 192, 1, 1
    half = dim // 2
    x, cs, sn = f32(rows * dim), f32(4 * half), f32(4 * half)
    got = both(rt, "rope_apply_k", [np.zeros(rows * dim, np.float32), x, cs, sn, rows, dim, tsh, tbase], rows)[0]
    t = (np.arange(rows) >> tsh) + tbase
    x2 = x.reshape(rows, dim)
    c, s = cs.reshape(-1, half)[t], sn.reshape(-1, half)[t]
    want = np.concatenate([x2[:, :half] * c - x2[:, half:] * s, x2[:, :half] * s + x2[:, half:] * c], axis=1)
    assert np.array_equal(got.reshape(rows, dim), want)


@pytest.mark.parametrize("name", ["vt_scatter_k", "vt_scatter_v_k"])
def test_vt_scatter(rt, name):
    rows, dim, ystride, y0, cshift = 70, 128, 80, 3, 1
    v = f32(rows * dim)
    vt = np.zeros(dim * ystride, np.float32)
    if name == "vt_scatter_k":
        out = both(rt, name, [vt, v, rows, dim, dim, ystride, y0, cshift], 2 * 2)
        got = out[0]
        src = v
    else:
        k = f32(rows * dim)
        vc = np.zeros((y0 + rows) * dim, np.float32)
        out = both(rt, name, [vt, vc, k, v, rows, dim, dim, dim, ystride, y0, cshift], 2 * 2)
        got = out[0]
        src = k
        assert np.array_equal(out[1].reshape(-1, dim)[y0:], v.reshape(rows, dim))
    want = np.zeros((dim, ystride), np.float32)
    want[:, y0:y0 + rows] = src.reshape(rows, dim).T
    assert np.array_equal(got.reshape(dim, ystride), want)
