"""RT4 files between Python and C++: a compressed-tensors INT4 checkpoint
packed here with NumPy (FORMATS.md 2.4, written as safetensors by this file)
converted by k100-rt4, read by k100lc_kernels.rt4.RT4File and decoded to the
same weights the checkpoint means; files written by rt4.write listed by
k100-rt4 info; the spec's errors; uploads to the device in both layouts."""
import json
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from k100lc_kernels import rt4

BUILD = Path(os.environ.get("K100_BUILD_DIR", Path(__file__).resolve().parents[3] / "build"))
TOOL = str(Path(os.environ.get("K100_TOOLS_BIN", BUILD / "bin")) / "k100-rt4")


def bf16(a):
    u = np.ascontiguousarray(a, dtype="<f4").view("<u4").astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")


def pack_ct(w):
    """compressed-tensors pack-quantized INT4: (I32 [N, K/8] offset-binary codes, BF16 [N, K/128] scales)."""
    n, k = w.shape
    g = w.reshape(n, k // 128, 128)
    amax = np.abs(g).max(axis=2)
    sb = bf16(np.where(amax == 0, 1.0, amax / 7))
    s = (sb.astype("<u4") << 16).view("<f4")
    codes = np.clip(np.rint(g / s[:, :, None]) + 8, 0, 15).astype(np.uint32).reshape(n, k // 8, 8)
    words = np.zeros((n, k // 8), np.uint32)
    for j in range(8):
        words |= codes[:, :, j] << (4 * j)
    return words.view("<i4"), sb, s


def safetensors(path, tensors):
    header, blobs, at = {}, [], 0
    for name, (dtype, a) in tensors.items():
        a = np.ascontiguousarray(a)
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [at, at + a.nbytes]}
        blobs.append(a.tobytes())
        at += a.nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    Path(path).write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


@pytest.fixture
def checkpoint(tmp_path):
    rng = np.random.default_rng(3)
    layers = {"model.layers.0.mlp.up_proj": rng.normal(0, 0.05, (6, 256)).astype(np.float32),
              "model.layers.0.mlp.down_proj": rng.normal(0, 0.05, (4, 384)).astype(np.float32)}
    tensors, want = {}, {}
    for p, w in layers.items():
        words, sb, s = pack_ct(w)
        tensors[p + ".weight_packed"] = ("I32", words)
        tensors[p + ".weight_scale"] = ("BF16", sb)
        tensors[p + ".weight_shape"] = ("I64", np.array(w.shape, "<i8"))
        codes = np.stack([(words.view("<u4") >> (4 * j)) & 15 for j in range(8)], axis=2).reshape(w.shape)
        want[p + ".weight"] = (codes.astype(np.float32) - 8) * np.repeat(s, 128, axis=1)
    tensors["model.embed_tokens.weight"] = ("BF16", bf16(rng.normal(size=(8, 256))))
    path = tmp_path / "model.safetensors"
    safetensors(path, tensors)
    return path, want


def test_converted_checkpoint_decodes_to_the_checkpoints_weights(checkpoint, tmp_path):
    src, want = checkpoint
    out = tmp_path / "model.rt4"
    r = subprocess.run([TOOL, "convert", str(src), "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "2 INT4 layers" in r.stdout
    with rt4.RT4File(out) as f:
        assert sorted(f.names("i4")) == sorted(want)
        for name, w in want.items():
            t = f.tensor(name)
            assert t.shape == w.shape and t.group == 128 and t.nbytes == t.q_bytes + t.s_bytes
            np.testing.assert_array_equal(f.dequant(t), w)  # bf16 scales of this size are exact in f16
            np.testing.assert_array_equal(f.dequant(t, rows=2, start=1), w[1:3])
    info = subprocess.run([TOOL, "info", str(out)], capture_output=True, text=True)
    assert info.returncode == 0 and "model.layers.0.mlp.down_proj.weight" in info.stdout and "[4, 384]" in info.stdout
    info = subprocess.run([TOOL, "info", str(src)], capture_output=True, text=True)
    assert info.returncode == 0 and "quantised layers: 2 INT4" in info.stdout


def test_python_writer_is_read_by_the_tool(tmp_path):
    rng = np.random.default_rng(4)
    w = rng.normal(0, 0.1, (3, 256)).astype(np.float32)
    q, s = rt4.pack_int4(w)
    q64, s64 = rt4.pack_int4(w, group=64)
    path = tmp_path / "py.rt4"
    rt4.write(path, [("a.weight", q, s), ("b.weight", q64, s64)])
    info = subprocess.run([TOOL, "info", str(path)], capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert "a.weight" in info.stdout and "[3, 256]" in info.stdout
    assert " 64 " in info.stdout  # b's own group
    with rt4.RT4File(path) as f:
        a = f.dequant(f.tensor("a.weight"))
        assert np.abs(a - w).max() <= 0.5 * np.abs(w).max() / 7 * 1.01
        assert f.tensor("b.weight").group == 64
        np.testing.assert_array_equal(rt4.group_major_scales(f.scales(f.tensor("a.weight"))),
                                      s.astype(np.float32).T)


def test_spec_errors(tmp_path):
    with pytest.raises(ValueError):
        rt4.RT4File(tmp_path / "x.bin")
    with pytest.raises(FileNotFoundError):
        rt4.RT4File(tmp_path / "none.rt4")
    q, s = rt4.pack_int4(np.ones((1, 128), np.float32))
    path = tmp_path / "e.rt4"
    rt4.write(path, [("a", q, s)])
    with rt4.RT4File(path) as f:
        with pytest.raises(KeyError):
            f.tensor("b")
    (tmp_path / "e.rt4.json").write_text(json.dumps({"format": "RT4-v2", "tensors": []}))
    with pytest.raises(ValueError):
        rt4.RT4File(path)
    (tmp_path / "e.rt4.json").write_text(json.dumps(
        {"format": "RT4-v1", "tensors": [{"name": "a", "kind": "i4", "shape": [1, 100], "q_off": 0, "s_off": 50},
                                         {"name": "n", "kind": "f32", "shape": [1, 4], "q_off": 0}]}))
    with rt4.RT4File(path) as f:
        assert f.names("f32") == ["n"]
        with pytest.raises(ValueError):
            f.weight_bytes(f.tensor("a"))  # K not a multiple of the group
        with pytest.raises(ValueError):
            f.weight_bytes(f.tensor("n"))  # not i4
    # the stem's manifest is found too
    os.rename(tmp_path / "e.rt4.json", tmp_path / "e.json")
    assert rt4.RT4File(path).names() == ["a", "n"]


def test_nvfp4_checkpoint_is_refused_by_the_converter(tmp_path):
    path = tmp_path / "fp4.safetensors"
    safetensors(path, {"l.weight_packed": ("U8", np.zeros((2, 8), np.uint8)),
                       "l.weight_scale": ("F8_E4M3", np.zeros((2, 1), np.uint8)),
                       "l.weight_global_scale": ("F32", np.ones(1, np.float32))})
    r = subprocess.run([TOOL, "convert", str(path), "-o", str(tmp_path / "o.rt4")], capture_output=True, text=True)
    assert r.returncode == 1 and "'l.weight_packed'" in r.stderr and "I32" in r.stderr, r.stderr


def test_uploads_in_both_layouts(tmp_path):
    runtime = pytest.importorskip("k100lc_kernels.runtime")
    rng = np.random.default_rng(5)
    q, s = rt4.pack_int4(rng.normal(size=(4, 256)).astype(np.float32))
    path = tmp_path / "u.rt4"
    rt4.write(path, [("w", q, s)])
    rt = runtime.Runtime()
    with rt4.RT4File(path) as f:
        t = f.tensor("w")
        wq, ws = f.upload_weight(rt, t)
        wq2, wsc = f.upload_weight_gemm(rt, t)
        assert np.array_equal(rt.download(wq, q.size, np.uint8), q.reshape(-1))
        assert np.array_equal(rt.download(ws, s.size, np.float16), s.reshape(-1))
        assert np.array_equal(rt.download(wsc, s.size, np.float32), s.astype(np.float32).T.reshape(-1))
        for p in (wq, ws, wq2, wsc):
            rt.free(p)
