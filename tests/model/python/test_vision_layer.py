"""One Qwen3-VL / Qwen3.5-style vision encoder layer (model::VisionLayer on the
emulator, every step a vit_* kernel) against a float64 NumPy forward written
here from the Hugging Face modelling of the vision block:

    x1 = x + proj(attn(rope2d(qkv(norm1(x)))))
    x2 = x1 + fc2(gelu(fc1(norm2(x1))))

LayerNorm (eps 1e-6), fused QKV with bias, 2D rotary embedding with the
tower's tables (row angles then column angles, rotate-half pairs), full
attention over all tokens with scale head_dim^-1/2, GELU (tanh form:
`gelu_pytorch_tanh`, and the erf form), random f16 weights and f32 biases.
The reference rounds the input of each linear layer to f16, which is the
stated semantics of vit_linear_f16_kernel; everything else is float64. The
rotary tables of the reference are computed here (inv_freq, row and column
angles, the angles repeated for the second half); the layer's come from
model::vision_rope_tables over the same patch positions.

Tolerance: max |device - reference| <= 2e-3 * max |reference|. What the f16
rounding of the activations makes of an f32 difference upstream (a value
that lands on the other side of an f16 rounding boundary) is at most one f16
step of that input times its weight, so a few 1e-4 relative; f32 sums alone
stay near 1e-6. The measured errors are printed (pytest -s).
"""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

BUILD = Path(os.environ.get("K100_BUILD_DIR", "build"))
PROBE = BUILD / "tests" / "vision_layer_probe"

TOLERANCE = 2e-3  # of the largest |reference| value


def positions(grid_h, grid_w, merge=2):
    """Patch (row, column) of each token in the tower's order: merge x merge
    windows one after the other, row-major inside a window."""
    h, w = [], []
    for bh in range(grid_h // merge):
        for bw in range(grid_w // merge):
            for ih in range(merge):
                for iw in range(merge):
                    h.append(bh * merge + ih)
                    w.append(bw * merge + iw)
    return np.array(h, dtype=np.int32), np.array(w, dtype=np.int32)


def rope_tables(hpos, wpos, head_dim, theta=10000.0):
    rot = head_dim // 2
    inv_freq = 1.0 / theta ** (np.arange(0, rot, 2, dtype=np.float64) / rot)
    freqs = np.concatenate([np.outer(hpos, inv_freq), np.outer(wpos, inv_freq)], axis=1)
    emb = np.concatenate([freqs, freqs], axis=1)
    return np.cos(emb), np.sin(emb)


def layer_norm(x, w, b, eps=1e-6):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def linear(x, w16, b):
    """x rounded to f16 (vit_linear_f16_kernel), f16 weights, float64 sums."""
    return x.astype(np.float32).astype(np.float16).astype(np.float64) @ w16.astype(np.float64).T + b


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def gelu(x, exact):
    if exact:
        from math import erf
        return 0.5 * x * (1.0 + np.vectorize(erf)(x / np.sqrt(2.0)))
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def reference(t, x, cos, sin, heads, exact):
    T, H = x.shape
    hd = H // heads
    h = layer_norm(x, t["norm1_w"], t["norm1_b"])
    qkv = linear(h, t["qkv_w"], t["qkv_b"]).reshape(T, 3, heads, hd)
    q, k, v = qkv[:, 0], qkv[:, 1], qkv[:, 2]  # [T][heads][hd]
    c, s = cos[:, None, :], sin[:, None, :]
    q = q * c + rotate_half(q) * s
    k = k * c + rotate_half(k) * s
    scores = np.einsum("thd,jhd->htj", q, k) / np.sqrt(hd)
    scores -= scores.max(axis=2, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=2, keepdims=True)
    att = np.einsum("htj,jhd->thd", p, v).reshape(T, H)
    x1 = x + linear(att, t["proj_w"], t["proj_b"])
    f = gelu(linear(layer_norm(x1, t["norm2_w"], t["norm2_b"]), t["fc1_w"], t["fc1_b"]), exact)
    return x1 + linear(f, t["fc2_w"], t["fc2_b"])


def random_layer(rng, H, I):
    def f16(n, k, scale):
        return (rng.standard_normal((n, k)) * scale).astype(np.float16)

    def f32(n, scale, mean=0.0):
        return (mean + rng.standard_normal(n) * scale).astype(np.float32)

    return {
        "norm1_w": f32(H, 0.2, 1.0), "norm1_b": f32(H, 0.1),
        "qkv_w": f16(3 * H, H, H ** -0.5), "qkv_b": f32(3 * H, 0.1),
        "proj_w": f16(H, H, H ** -0.5), "proj_b": f32(H, 0.1),
        "norm2_w": f32(H, 0.2, 1.0), "norm2_b": f32(H, 0.1),
        "fc1_w": f16(I, H, H ** -0.5), "fc1_b": f32(I, 0.1),
        "fc2_w": f16(H, I, I ** -0.5), "fc2_b": f32(H, 0.1),
    }


@pytest.mark.parametrize("grid,hidden,heads,inter,exact", [
    ((16, 18), 64, 4, 160, 0),  # 288 tokens, head_dim 16, MLP width with a tail
    ((10, 8), 96, 2, 136, 1),   # 80 tokens, head_dim 48, erf GELU
])
def test_vision_layer_matches_float64(tmp_path, grid, hidden, heads, inter, exact):
    if not PROBE.exists():
        pytest.fail(f"{PROBE} is missing: build the target vision_layer_probe")
    rng = np.random.default_rng(hidden + heads)
    hpos, wpos = positions(*grid)
    T, hd = len(hpos), hidden // heads
    t = random_layer(rng, hidden, inter)
    x = (rng.standard_normal((T, hidden)) * 0.8).astype(np.float32)
    cos, sin = rope_tables(hpos.astype(np.float64), wpos.astype(np.float64), hd)
    for name, a in t.items():
        a.tofile(tmp_path / (name + (".f16" if a.dtype == np.float16 else ".f32")))
    x.tofile(tmp_path / "x.f32")
    hpos.tofile(tmp_path / "hpos.i32")
    wpos.tofile(tmp_path / "wpos.i32")
    run = subprocess.run([str(PROBE), str(tmp_path), str(T), str(hidden), str(heads), str(inter), str(exact)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    got = np.load(tmp_path / "out.npy").astype(np.float64)
    want = reference(t, x.astype(np.float64), cos, sin, heads, exact)
    assert got.shape == want.shape
    scale = np.abs(want).max()
    err = np.abs(got - want).max()
    print(f"\nvision layer T={T} hidden={hidden} heads={heads} inter={inter} exact={exact}: "
          f"max |ref| {scale:.4f}, max abs error {err:.3e} ({err / scale:.3e} of max |ref|)")
    assert err <= TOLERANCE * scale, f"max abs error {err} > {TOLERANCE} * {scale}"
