"""GGUF tensors decoded on the device (the emulator here): k100-gguf check
over a file our writer wrote with every block type and F32/F16/BF16,
k100-gguf dequant without --host, and k100lc_kernels.gguf's device decode,
each against the host codecs bit for bit; and every format's fast GEMV from
Python (gguf.repack_for_gemv, gguf.gemv_kernel) against the host decode."""
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from k100lc_kernels import gguf

TOOLS = Path(os.environ.get("K100_TOOLS_BIN", Path(__file__).resolve().parents[3] / "build/bin"))
BLOCK_TYPES = ["q4_0", "q8_0", "q2_0", "q4_K", "q5_K", "q6_K", "iq4_nl", "iq4_xs", "iq2_s", "iq3_s", "iq3_xxs",
               "q4_1", "q5_0", "q5_1", "q2_K", "q3_K", "iq1_s", "iq1_m", "iq2_xxs", "iq2_xs", "mxfp4", "tq1_0",
               "tq2_0"]


def run_tool(*args):
    return subprocess.run([str(TOOLS / "k100-gguf"), *map(str, args)], capture_output=True, text=True)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def test_check_passes_every_tensor_of_every_type(samples):
    r = run_tool("check", samples / "all_types.gguf")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.strip().splitlines()
    with gguf.open(samples / "all_types.gguf") as f:
        assert lines[-1] == f"{len(f.tensors)} passed, 0 failed"
        types = {t.type for t in f.tensors}
        for t in f.tensors:
            assert any(line.startswith(f"PASS {t.name} {t.type} ") for line in lines), t.name
    assert set(BLOCK_TYPES) | {"f32", "f16", "bf16"} <= types


def gguf_with_tensor(path, type_id, n, data):
    """A one-tensor GGUF v3 file (alignment 32) written byte by byte."""
    name = b"t"
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 0)
    info = struct.pack("<Q", len(name)) + name + struct.pack("<IQIQ", 1, n, type_id, 0)
    body = head + info
    body += bytes(-len(body) % 32)
    path.write_bytes(body + data)


def test_check_fails_a_tensor_without_a_device_decoder(tmp_path):
    p = tmp_path / "q8_1.gguf"
    gguf_with_tensor(p, gguf.type_id("q8_1"), 32, bytes(36))
    r = run_tool("check", p)
    assert r.returncode == 1
    assert "FAIL t q8_1 32: no device decoder for type q8_1" in r.stdout
    assert r.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"


def test_dequant_on_the_device_equals_the_host(samples, tmp_path):
    with gguf.open(samples / "weights.gguf") as f:
        for t in f.tensors:
            dev, host = tmp_path / "dev.npy", tmp_path / "host.npy"
            r = run_tool("dequant", samples / "weights.gguf", t.name, "-o", dev)
            assert r.returncode == 0, r.stderr
            assert "device" in r.stdout
            assert run_tool("dequant", samples / "weights.gguf", t.name, "-o", host, "--host").returncode == 0
            np.testing.assert_array_equal(bits(np.load(dev)), bits(np.load(host)))
            assert np.load(dev).shape == t.shape


def test_read_on_device_equals_read(samples):
    with gguf.open(samples / "all_types.gguf") as f:
        for t in f.tensors:
            d = f.read_on_device(t.name)
            assert d.shape == t.shape and d.dtype == np.float32
            np.testing.assert_array_equal(bits(d), bits(f.read(t.name)), err_msg=t.name)


def test_dequantize_on_device_checks_its_input(samples):
    with gguf.open(samples / "weights.gguf") as f:
        raw = f.raw("w.q6_K")
        np.testing.assert_array_equal(bits(gguf.dequantize_on_device("q6_K", raw)), bits(gguf.dequantize("q6_K", raw)))
    with pytest.raises(ValueError, match="no device decoder for type q8_1"):
        gguf.dequantize_on_device("q8_1", bytes(36))
    with pytest.raises(ValueError, match="whole number"):
        gguf.dequantize_on_device("q4_0", bytes(19))


@pytest.mark.parametrize("fmt", ["q4_0", "q8_0", "q2_0", "q4_K", "q5_K", "q6_K", "iq4_nl", "iq4_xs", "iq2_s",
                                 "iq3_s", "iq3_xxs", "q4_1", "q5_0", "q5_1", "q2_K", "q3_K", "iq1_s", "iq1_m",
                                 "iq2_xxs", "iq2_xs", "mxfp4", "tq2_0"])
def test_every_fast_gemv_from_python(fmt):
    # the path of docs/KERNEL_CALLING.md: quantise (or take a file's blocks), repack, launch by format name
    from k100lc_kernels import Runtime
    from k100lc_kernels.catalog import info

    assert fmt in gguf.GEMV_TYPES
    rt = Runtime()
    rng = np.random.default_rng(3)
    n, k = 70, 2 * 256
    blocks = gguf.quantize(fmt, rng.standard_normal(n * k, dtype=np.float32) / np.sqrt(k))
    w = gguf.dequantize(fmt, blocks).reshape(n, k).astype(np.float64)
    packed = gguf.repack_for_gemv(fmt, n, k, blocks)
    x = rng.uniform(-1, 1, k).astype(np.float32)
    pw, px, py = rt.alloc(packed.nbytes), rt.alloc(x.nbytes), rt.alloc(4 * n)
    rt.upload(pw, packed)
    rt.upload(px, x)
    name = gguf.gemv_kernel(fmt)
    args = [pw, px, py, 0, n, k, 1, 0, 1]
    explicit = [a for a in info(name)["args"] if not a["kind"].startswith("hidden")]
    args += [0] * (len(explicit) - len(args))  # iq2_s's kernels take ws: 0, every tile whole
    tiles = (n + 63) // 64
    rt.launch(name, tiles, 64, args)
    got = rt.download(py, n, np.float32)
    assert np.abs(got - w @ x).max() < 2e-5 + 2e-5 * np.abs(w @ x).max(), name


def test_format_names_and_kernel_prefixes():
    assert gguf.format_name("Q4_k") == "q4_K" and gguf.format_name(12) == "q4_K"
    with pytest.warns(FutureWarning, match="its name is 'q4_K'"):
        assert gguf.format_name("q4k") == "q4_K"
    assert gguf.kernel_prefix("q4_K") == "q4k" and gguf.kernel_prefix("iq2_xxs") == "iq2xxs"
    assert gguf.gemv_kernel("q3_K", "swiglu") == "q3k_gemv_swiglu_k"
    with pytest.raises(ValueError, match="no fast GEMV for type tq1_0"):
        gguf.gemv_kernel("tq1_0")
    with pytest.raises(ValueError, match="has no fast GEMV"):
        gguf.repack_for_gemv("f16", 2, 64, bytes(256))
    with pytest.raises(ValueError, match="not 2"):
        gguf.repack_for_gemv("q4_0", 2, 64, bytes(2))
    r = subprocess.run(["/usr/bin/python3", "-m", "k100lc_kernels", "list", "q4_K"], capture_output=True, text=True)
    assert r.returncode == 0 and "q4k_gemv_k" in r.stdout and "q4k_dequant" in r.stdout, r.stdout + r.stderr
