"""k100lc_kernels.model: the Python face of the C++ model module (through
libk100_model.so) on the engine's device, against NumPy; a GGUF model through
the binding gives the same tokens as k100-generate, and
`python3 -m k100lc_kernels generate` (same flags) the same output."""
import subprocess
import sys

import numpy as np
import pytest

from k100lc_kernels import Runtime
from k100lc_kernels import model as M

from conftest import GENERATE


@pytest.fixture(scope="module")
def rt():
    return Runtime()


def rng(seed):
    return np.random.default_rng(seed)


def close(got, want, tol=2e-5):
    scale = 1 + np.abs(want).max()
    assert np.abs(np.asarray(got, np.float64) - want).max() <= tol * scale


def test_linear_norm_mlp(rt):
    r = rng(1)
    w = r.uniform(-1, 1, (48, 320)).astype(np.float32)
    x = r.uniform(-1, 1, (2, 320)).astype(np.float32)
    ws = M.Workspace(rt)
    lin = M.F32Linear(rt, 48, 320, w, ws=ws, tag="lin")
    close(lin.forward(x), x.astype(np.float64) @ w.T.astype(np.float64))
    assert (lin.n, lin.k) == (48, 320) and ws.size("lin.out") == 2 * 48 * 4
    with pytest.raises(ValueError):
        M.F32Linear(rt, 48, 320, w[:10])
    h = w.astype(np.float16)
    fl = M.FloatLinear(rt, 48, 320, "f16", h.tobytes())
    close(fl.forward(x), x.astype(np.float64) @ h.astype(np.float64).T)
    nw = r.uniform(0.5, 1.5, 320).astype(np.float32)
    norm = M.RMSNorm(rt, 320, nw, eps=1e-5)
    xd = x.astype(np.float64)
    close(norm.forward(x), xd / np.sqrt((xd * xd).mean(axis=1, keepdims=True) + 1e-5) * nw, 1e-6)
    with pytest.raises(ValueError):
        M.RMSNorm(rt, 100, np.ones(100))
    g, u, d = (M.F32Linear(rt, a, b, r.uniform(-1, 1, (a, b)).astype(np.float32), tag=t)
               for a, b, t in [(64, 320, "g"), (64, 320, "u"), (320, 64, "d")])
    mlp = M.MLP(rt, g, u, d)
    gv, uv = xd[:1] @ g._weight.T.astype(np.float64), xd[:1] @ u._weight.T.astype(np.float64)
    close(mlp.forward(x[:1]), (gv / (1 + np.exp(-gv)) * uv) @ d._weight.T.astype(np.float64))
    with pytest.raises(ValueError):
        M.MLP(rt, g, u, d, act="gelu")


def test_dot_linear_against_host_codec(rt):
    """DotLinear over GGUF blocks: the device product against a double product over the
    host codec's dequantised weights (q6_K with two blocks per row, q4_K with one, q8_0)."""
    from k100lc_kernels import gguf
    r = rng(5)
    for kind, gtype, n, k in [("q6k", "q6_K", 40, 512), ("q4k", "q4_K", 24, 256), ("q8_0", "q8_0", 33, 96)]:
        w = r.normal(0, 1, (n, k)).astype(np.float32)
        blocks = gguf.quantize(gtype, w)
        wd = gguf.dequantize(gtype, blocks).reshape(n, k).astype(np.float64)
        try:
            lin = M.DotLinear(rt, n, k, kind, blocks, tag="dot_" + kind)
        except (RuntimeError, ValueError) as e:
            if "is not in the loaded kernel packages" not in str(e):
                raise
            pytest.skip(f"kernel package without the block-type kernels: {e}")
        x = r.uniform(-1, 1, (2, k)).astype(np.float32)
        close(lin.forward(x), x.astype(np.float64) @ wd.T, 1e-5)
    with pytest.raises(ValueError):
        M.DotLinear(rt, 8, 100, "q4k", b"")


def test_gemv_linear_and_fused_forms(rt):
    """GemvLinear (the fast GEMVs over repacked q4_K blocks): forward and the three fused
    forms for one row against double products over the host codec's weights, with a row
    count that is not a multiple of 64 (accumulate, rms) and 2 x 64 rows (swiglu)."""
    from k100lc_kernels import gguf
    r = rng(7)
    n, k, eps = 70, 512, 1e-5
    w = r.normal(0, 0.05, (n, k)).astype(np.float32)
    blocks = gguf.quantize("q4_K", w)
    wd = gguf.dequantize("q4_K", blocks).reshape(n, k).astype(np.float64)
    try:
        lin = M.GemvLinear(rt, n, k, "q4k", blocks, tag="gemv_q4k")
    except (RuntimeError, ValueError) as e:
        if "is not in the loaded kernel packages" not in str(e):
            raise
        pytest.skip(f"kernel package without the fast GEMVs: {e}")
    x = r.uniform(-1, 1, (3, k)).astype(np.float32)
    xd = x.astype(np.float64)
    close(lin.forward(x), xd @ wd.T)
    ws = lin.ws
    xdev = ws.upload("t.x", x[0])
    # accumulate_scaled: y += W x, y_scaled = y * scale, sums of y^2 per 64 rows
    y0 = r.uniform(-1, 1, n).astype(np.float32)
    scale = r.uniform(0.5, 1.5, n).astype(np.float32)
    ydev, sdev = ws.upload("t.y", y0), ws.upload("t.scale", scale)
    zdev, ssdev = ws.buffer("t.z", 4 * n), ws.buffer("t.ss", 4 * 2)
    lin.accumulate_scaled(xdev, ydev, sdev, zdev, ssdev, sync=True)
    want = y0.astype(np.float64) + wd @ xd[0]
    close(rt.download(ydev, n, np.float32), want)
    close(rt.download(zdev, n, np.float32), want * scale)
    close(rt.download(ssdev, 2, np.float32), [np.sum(want[:64] ** 2), np.sum(want[64:] ** 2)])
    # rms_scaled: r from partial sums of squares of a source row s
    s = r.uniform(-2, 2, k).astype(np.float64)
    parts = (s.reshape(-1, 64) ** 2).sum(axis=1).astype(np.float32)
    pdev, outdev = ws.upload("t.parts", parts), ws.buffer("t.out", 4 * n)
    lin.rms_scaled(xdev, pdev, eps, outdev, sync=True)
    rr = 1 / np.sqrt(np.sum(parts.astype(np.float64)) / k + eps)
    close(rt.download(outdev, n, np.float32), rr * (wd @ xd[0]))
    # swiglu over 64 gate rows and 64 up rows
    w2 = r.normal(0, 0.05, (128, k)).astype(np.float32)
    b2 = gguf.quantize("q4_K", w2)
    wd2 = gguf.dequantize("q4_K", b2).reshape(128, k).astype(np.float64)
    sw = M.GemvLinear(rt, 128, k, "q4k", b2, ws=ws, tag="gemv_swiglu")
    sw.swiglu(xdev, pdev, eps, outdev, sync=True)
    g, u = rr * (wd2[:64] @ xd[0]), rr * (wd2[64:] @ xd[0])
    close(rt.download(outdev, 64, np.float32), g / (1 + np.exp(-g)) * u)
    with pytest.raises(ValueError):
        lin.swiglu(xdev, 0, eps, outdev)  # 70 rows are not gate and up halves of whole tiles
    with pytest.raises(ValueError):
        M.GemvLinear(rt, 8, 100, "q4k", b"")


def test_helpers_and_sampler(rt):
    assert M.cdiv(7, 2) == 4
    m = M.div_magic(7, 1000)
    assert all((i * m) >> 32 == i // 7 for i in range(1000))
    with pytest.raises(ValueError):
        M.div_magic(0, 10)
    assert M.QUANT_SPECS["q4k"] == ("q4k_dot_k", 256, 144, 0)
    assert M.QUANT_SPECS["iq3xxs"][3] == 2
    logits = rng(2).normal(size=(3, 50)).astype(np.float32)
    assert M.Sampler.greedy(logits).tolist() == np.argmax(logits, axis=1).tolist()
    s = M.Sampler(rt)
    p = rt.alloc(logits.nbytes)
    rt.upload(p, logits)
    idx = s.argmax_device(p, 3, 50)
    assert rt.download(idx, 3, np.int32).tolist() == np.argmax(logits, axis=1).tolist()
    # top_k = 1 leaves one choice whatever the temperature
    assert M.Sampler.sample(logits, temperature=2.0, top_k=1, rng=rng(3)).tolist() == np.argmax(logits, axis=1).tolist()
    rt.free(p)


def test_attention_moe_layer(rt):
    r = rng(4)
    heads, kv_heads, hd, n = 4, 2, 64, 20
    fa = M.FlashAttention(rt, heads, hd, 64, n_kv_heads=kv_heads)
    k = r.uniform(-1, 1, (n, kv_heads * hd)).astype(np.float32)
    v = r.uniform(-1, 1, (n, kv_heads * hd)).astype(np.float32)
    q = r.uniform(-1, 1, heads * hd).astype(np.float32)
    fa.append(k, v)
    assert fa.length == n and fa.plan() == (256, 4, 64)
    want = []
    for h in range(heads):
        g = h // (heads // kv_heads)
        s = k[:, g * hd:(g + 1) * hd].astype(np.float64) @ q[h * hd:(h + 1) * hd] / np.sqrt(hd)
        p = np.exp(s - s.max())
        want.append((p / p.sum()) @ v[:, g * hd:(g + 1) * hd])
    close(fa.forward(q), np.concatenate(want))
    comb = M.MoECombine(rt, 2, 64, 3)
    eo = r.uniform(-1, 1, (3, 2, 64)).astype(np.float32)
    wt = r.uniform(0, 1, (2, 3)).astype(np.float32)
    close(comb.forward(eo, wt), np.einsum("re,erd->rd", wt.astype(np.float64), eo))
    experts = [M.F32Linear(rt, 16, 64, r.uniform(-1, 1, (16, 64)).astype(np.float32), tag=f"e{i}") for i in range(3)]
    moe = M.MoEExperts(rt, experts, 2, 64, 16, 2)
    ids, w = np.array([[2, 0], [1, 7]]), np.array([[0.5, 0.5], [1.0, 0.3]])
    bucket, pos, _, offsets, valid = moe.route(ids, w)
    assert bucket.tolist() == [0, 1, 0] and offsets.tolist() == [0, 1, 2, 3] and not valid[1, 1]
    x = r.uniform(-1, 1, (2, 64)).astype(np.float32)
    want = np.stack([0.5 * experts[2]._weight @ x[0] + 0.5 * experts[0]._weight @ x[0], experts[1]._weight @ x[1]])
    close(moe.forward(x, ids, w), want)
    with pytest.raises(ValueError):
        M.MoEExperts(rt, experts, 2, 64, 16, 4)


def test_model_binding_equals_tool_and_subcommand(rt, model_file, tmp_path):
    path = model_file("qwen3", "f32")
    m = M.Model(rt, path, context=16)
    assert m.config["architecture"] == "qwen3" and m.config["n_layer"] == 2
    prompt, ids = [300, 301, 302], []
    for i, t in enumerate(prompt):
        m.forward(t, i)
    for i in range(6):
        ids.append(int(np.argmax(m.logits())))
        m.forward(ids[-1], len(prompt) + i)
    with pytest.raises(ValueError):
        m.forward(10 ** 6, 0)
    args = [str(path), "--tokens", "300,301,302", "-n", "6", "--temp", "0", "--ignore-eos", "--ids"]
    tool = subprocess.run([GENERATE] + args, capture_output=True, text=True, errors="replace", check=True)
    sub = subprocess.run([sys.executable, "-m", "k100lc_kernels", "generate"] + args, capture_output=True, text=True,
                         errors="replace", check=True)
    ids_line = "ids: " + " ".join(map(str, ids))  # --ids goes to stderr, with the timings
    assert ids_line in tool.stderr.splitlines(), tool.stderr
    assert ids_line in sub.stderr.splitlines(), sub.stderr
    bad = subprocess.run([sys.executable, "-m", "k100lc_kernels", "generate", str(path), "--tokens", "1,x"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--tokens" in bad.stderr
