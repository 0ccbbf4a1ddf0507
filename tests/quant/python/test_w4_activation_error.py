"""The error of the quantised-activation paths in a small Llama-like forward.

The model: token rows x [rows, 256] through two pre-norm MLP blocks
(RMSNorm, gate and up projections [512, 256], SwiGLU, down projection
[256, 512], residual add), a final RMSNorm and an output projection
[128, 256]: seven 4-bit linear layers a forward. The linear layers run on
the device (Int4Linear W4A8 / W4A4, NVFP4Linear); norms, SwiGLU and residual
adds run on the host in f32 between them. Three float64 NumPy forwards over
the same 4-bit weights (as the formats define them) give the yardstick:

* ``exact``: activations unquantised;
* ``same``: every linear input quantised as the path does it (its group and
  range, FORMATS.md 4 and 5.2), in float64.

Must hold: ||device - exact|| <= 1.5 ||same - exact|| (relative to
||exact||) for W4A8 and W4A4 decode (4 rows), the W4A4 prefill GEMM (128
rows, int4 activations per 128) and the NVFP4 activations (4 rows). The
measured ratios are printed (pytest -s)."""
import numpy as np
import pytest

import w4_reference as ref
from k100lc_kernels import quant
from k100lc_kernels.rt4 import W4Runner

runtime = pytest.importorskip("k100lc_kernels.runtime")
model = pytest.importorskip("k100lc_kernels.model")

DIM, FFN, VOCAB, LAYERS, EPS = 256, 512, 128, 2, 1e-6
LIMIT = 1.5


@pytest.fixture(scope="module")
def rt():
    return runtime.Runtime()


@pytest.fixture(scope="module")
def weights():
    rng = np.random.default_rng(2027)
    layers = []
    for _ in range(LAYERS):
        layers.append({"norm": (1 + 0.1 * rng.normal(size=DIM)).astype(np.float32),
                       "gate": rng.normal(0, DIM ** -0.5, (FFN, DIM)).astype(np.float32),
                       "up": rng.normal(0, DIM ** -0.5, (FFN, DIM)).astype(np.float32),
                       "down": rng.normal(0, FFN ** -0.5, (DIM, FFN)).astype(np.float32)})
    head = {"norm": (1 + 0.1 * rng.normal(size=DIM)).astype(np.float32),
            "out": rng.normal(0, DIM ** -0.5, (VOCAB, DIM)).astype(np.float32)}
    return layers, head


def rms(x, w, dtype):
    x = x.astype(dtype)
    return (x / np.sqrt((x * x).mean(axis=1, keepdims=True) + dtype(EPS)) * w.astype(dtype)).astype(dtype)


def silu(g):
    return g / (1 + np.exp(-g))


def forward(x, layers, head, linear, dtype):
    """The model with `linear(name_index, x) -> y` for each projection, glue in `dtype`."""
    h = x.astype(dtype)
    for i, L in enumerate(layers):
        a = rms(h, L["norm"], dtype)
        g, u = linear((i, "gate"), a).astype(dtype), linear((i, "up"), a).astype(dtype)
        h = h + linear((i, "down"), (silu(g) * u).astype(dtype)).astype(dtype)
    return linear(("head", "out"), rms(h, head["norm"], dtype)).astype(dtype)


def quantised_weights(layers, head, fmt):
    """(name -> float64 weights as the format defines them, name -> packed form)."""
    dense, packed = {}, {}
    mats = {(i, p): L[p] for i, L in enumerate(layers) for p in ("gate", "up", "down")}
    mats[("head", "out")] = head["out"]
    for name, w in mats.items():
        n, k = w.shape
        if fmt == "int4":
            p, s = quant.pack_int4_group128(w)
            dense[name] = ref.dequant(*ref.ct_int4(p, s, n, k))
            packed[name] = (p, s)
        else:
            p, sc, gs = quant.pack_nvfp4(w)
            dense[name] = ref.dequant(*ref.nvfp4(p, sc, n, k)) / gs
            packed[name] = (p, sc, gs)
    return dense, packed


CASES = {  # case -> (weight format, device layer kwargs, rows, activation group, qmax)
    "w4a8": ("int4", {"path": "w4a8"}, 4, 128, 127),
    "w4a4": ("int4", {"path": "w4a4"}, 4, 32, 7),
    "w4a4-gemm": ("int4", {"path": "w4a4", "prefill": "gemm"}, 128, 128, 7),
    "nvfp4": ("nvfp4", {}, 4, 16, 127),
}


@pytest.mark.parametrize("case", list(CASES))
def test_device_error_within_1_5x_of_float64_with_the_same_activation_quantisation(rt, weights, case):
    fmt, kwargs, rows, group, qmax = CASES[case]
    layers, head = weights
    dense, packed = quantised_weights(layers, head, fmt)
    x = np.random.default_rng(rows + group).normal(0, 1, (rows, DIM)).astype(np.float32)

    exact = forward(x, layers, head, lambda name, a: a @ dense[name].T, np.float64)
    same = forward(x, layers, head, lambda name, a: ref.quantize64(a, group, qmax) @ dense[name].T, np.float64)

    ws = model.Workspace(rt)
    runner = W4Runner(rt)
    dev = {}
    for name, p in packed.items():
        n, k = dense[name].shape
        tag = f"{case}.{name[0]}.{name[1]}"
        if fmt == "int4":
            dev[name] = model.Int4Linear(rt, n, k, p[0], p[1], ws=ws, tag=tag, runner=runner, **kwargs)
        else:
            dev[name] = model.NVFP4Linear(rt, n, k, p[0], p[1], p[2], ws=ws, tag=tag, runner=runner)
    try:
        got = forward(x, layers, head, lambda name, a: dev[name].forward(np.ascontiguousarray(a, np.float32)),
                      np.float32)
    finally:
        runner.close()
        ws.free()

    scale = np.linalg.norm(exact)
    err_same = np.linalg.norm(same - exact) / scale
    err_dev = np.linalg.norm(got - exact) / scale
    ratio = err_dev / err_same
    print(f"\n{case}: rows {rows}, relative error of the float64 forward with the same activation quantisation "
          f"{err_same:.6e}, of the device {err_dev:.6e}, ratio {ratio:.5f} (device - that forward: "
          f"{np.linalg.norm(got - same) / scale:.2e})")
    assert err_same > 0
    assert ratio <= LIMIT, (case, err_dev, err_same)
