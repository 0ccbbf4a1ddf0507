"""k100lc_kernels.gguf on files the C++ writer produced: listing, metadata,
decoding (checked against the values the tensors were quantised from, and
for f32/f16/bf16 against NumPy's own conversions), errors, the module-level
codecs and tables, and the k100-gguf tool."""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from k100lc_kernels import gguf

SOURCE = Path(os.environ.get("K100_SOURCE_DIR", Path(__file__).resolve().parents[3]))
TOOLS = Path(os.environ.get("K100_TOOLS_BIN", SOURCE / "build/bin"))
CODEC_TYPES = ["q4_0", "q8_0", "q2_0", "q4_K", "q5_K", "q6_K", "iq4_nl", "iq4_xs", "iq2_s", "iq3_s",
               "iq3_xxs", "q4_1", "q5_0", "q5_1", "q2_K", "q3_K", "iq1_s", "iq1_m", "iq2_xxs", "iq2_xs",
               "mxfp4", "tq1_0", "tq2_0", "f32", "f16", "bf16"]
# relative RMS error bounds of the host quantisers on weight-like rows (as in codec_test.cpp)
ERROR_BOUND = {"f32": 0.0, "f16": 1e-3, "bf16": 5e-3, "q8_0": 0.012, "q6_K": 0.035, "q5_K": 0.065,
               "q4_K": 0.13, "q4_0": 0.15, "iq4_nl": 0.15, "iq4_xs": 0.15, "iq3_s": 0.25, "iq3_xxs": 0.32,
               "iq2_s": 0.5, "q2_0": 0.6, "q5_1": 0.065, "q5_0": 0.1, "q4_1": 0.13, "mxfp4": 0.21,
               "q3_K": 0.26, "q2_K": 0.4, "iq2_xs": 0.52, "iq2_xxs": 0.66, "iq1_m": 0.66, "iq1_s": 0.8,
               "tq2_0": 0.87, "tq1_0": 1.0}


def bf16_round(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 (nearest, ties to even) -> float32, computed with NumPy bit operations."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return r.astype(np.uint32).view(np.float32)


def test_lists_the_tensors_with_both_shape_orders(samples):
    with gguf.open(samples / "weights.gguf") as f:
        assert f.version == 3 and f.alignment == 32
        assert f.names() == [f"w.{t}" for t in CODEC_TYPES]
        for t in f.tensors:
            ref = np.load(samples / f"{t.name}.npy")
            assert t.shape == ref.shape and t.dims == tuple(reversed(ref.shape))
            info = gguf.type_info(t.type)
            assert t.type_id == info["id"] and info["host_codec"]
            assert t.nbytes == t.elements // info["block_elems"] * info["block_bytes"]
            assert t.file_offset == f.data_offset + t.offset and t.offset % 32 == 0
        assert "w.q4_K" in f and "nope" not in f


@pytest.mark.parametrize("type_name", CODEC_TYPES)
def test_read_decodes_close_to_the_quantised_values(samples, type_name):
    ref = np.load(samples / f"w.{type_name}.npy")
    with gguf.open(samples / "weights.gguf") as f:
        got = f.read(f"w.{type_name}")
    assert got.dtype == np.float32 and got.shape == ref.shape
    if type_name == "f32":
        np.testing.assert_array_equal(got, ref)
    elif type_name == "f16":
        np.testing.assert_array_equal(got, ref.astype(np.float16).astype(np.float32))
    elif type_name == "bf16":
        np.testing.assert_array_equal(got, bf16_round(ref))
    rel = np.sqrt(np.sum((got.astype(np.float64) - ref) ** 2) / np.sum(ref.astype(np.float64) ** 2))
    assert rel <= ERROR_BOUND[type_name], rel


def test_read_rows_is_a_slice_of_read(samples):
    with gguf.open(samples / "all_types.gguf") as f:
        whole = f.read("cube.q4_K")            # dims (256, 6, 2) -> shape (2, 6, 256)
        assert whole.shape == (2, 6, 256)
        rows = f.read_rows("cube.q4_K", 5, 4)   # flat rows 5..8
        np.testing.assert_array_equal(rows, whole.reshape(12, 256)[5:9])
        with pytest.raises(ValueError, match="outside its 12 rows"):
            f.read_rows("cube.q4_K", 10, 3)


def test_metadata_values_become_python_and_numpy_values(samples):
    with gguf.open(samples / "all_types.gguf") as f:
        md = f.metadata
        assert md["general.architecture"] == "llama"
        assert md["general.name"] == "k100lc sample \u2713"
        assert (md["test.u8"], md["test.i8"], md["test.u16"], md["test.i16"]) == (200, -100, 60000, -30000)
        assert (md["test.u32"], md["test.i32"]) == (4000000000, -2000000000)
        assert md["test.u64"] == 1 << 60 and md["test.i64"] == -(1 << 62)
        assert md["test.f32"] == float(np.float32(1.5e-3)) and md["test.f64"] == -2.718281828459045
        assert md["test.bool"] is True and md["test.empty_string"] == ""
        assert md["tokenizer.ggml.tokens"] == ["<unk>", "<s>", "</s>", "", "h\u00e9llo"]
        scores = md["tokenizer.ggml.scores"]
        assert scores.dtype == np.float32 and scores.tolist() == [0.0, -1.0, 2.5, float(np.float32(1e30))]
        assert md["test.bool_array"].dtype == np.bool_ and md["test.bool_array"].tolist() == [True, False, True]
        assert md["test.empty_array"].dtype == np.int64 and md["test.empty_array"].size == 0
        nested = md["test.nested"]
        assert nested[0].tolist() == [1, 2] and nested[0].dtype == np.uint16
        assert nested[1] == ["x"] and nested[2][0].tolist() == [3]
        assert list(f.keys())[0] == "general.architecture" and f.get("nope", 7) == 7


def test_module_codecs_reproduce_the_writer_bytes(samples):
    with gguf.open(samples / "weights.gguf") as f:
        for t in ("q4_K", "iq3_xxs", "q2_0", "bf16"):
            ref = np.load(samples / f"w.{t}.npy")
            blocks = gguf.quantize(t, ref)
            assert blocks == f.raw(f"w.{t}").tobytes()
            np.testing.assert_array_equal(gguf.dequantize(t, blocks), f.read(f"w.{t}").reshape(-1))
            np.testing.assert_array_equal(gguf.dequantize(t, f.raw(f"w.{t}")), f.read(f"w.{t}").reshape(-1))
    with pytest.raises(ValueError, match="not a whole number"):
        gguf.quantize("q4_K", np.zeros(100, np.float32))
    with pytest.raises(ValueError, match="q8_1"):
        gguf.dequantize("q8_1", bytes(36))
    with pytest.raises(ValueError, match="unknown tensor type name"):
        gguf.type_id("q9_9")


def test_iq_tables_match_the_committed_data():
    data = json.loads((SOURCE / "src/quant/data/ggml_iq_tables.json").read_text())["tables"]
    for name in gguf.IQ_TABLES:
        table = gguf.iq_table(name)
        values = data[name]["values"]
        expect = [int(v, 16) for v in values] if data[name]["type"] == "u64" else values
        assert table.tolist() == expect, name
    assert gguf.iq_table("iq2s_grid").dtype == np.uint64 and gguf.iq_table("kvalues_iq4nl").dtype == np.int8
    with pytest.raises(KeyError):
        gguf.iq_table("nope")


def test_errors_name_the_file(tmp_path, samples):
    with pytest.raises(gguf.GGUFError, match="/nonexistent.gguf: cannot open"):
        gguf.open("/nonexistent.gguf")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUX" + bytes(60))
    with pytest.raises(gguf.GGUFError, match=r"bad.gguf: byte 0: not a GGUF file"):
        gguf.open(bad)
    short = tmp_path / "short.gguf"
    short.write_bytes((samples / "weights.gguf").read_bytes()[:-100])
    with pytest.raises(gguf.GGUFError, match="past the end of the file"):
        gguf.open(short)
    f = gguf.open(samples / "weights.gguf")
    with pytest.raises(KeyError, match="no tensor 'nope'"):
        f.read("nope")
    f.close()
    with pytest.raises(ValueError, match="closed"):
        f.read("w.q4_K")


def run_tool(*args):
    return subprocess.run([str(TOOLS / "k100-gguf"), *map(str, args)], capture_output=True, text=True)


def test_tool_info_lists_metadata_and_tensors(samples):
    r = run_tool("info", samples / "all_types.gguf")
    assert r.returncode == 0, r.stderr
    assert "GGUF version 3, alignment 32" in r.stdout
    assert "tokenizer.ggml.tokens" in r.stdout and '"h\u00e9llo"' in r.stdout
    with gguf.open(samples / "all_types.gguf") as f:
        for t in f.tensors:
            line = next(l for l in r.stdout.splitlines() if l.split()[:1] == [t.name])
            assert line.split()[1] == t.type and str(t.nbytes) in line.split()
    assert "all " in r.stdout and "bits/weight" in r.stdout


def test_tool_dequant_host_writes_what_read_returns(samples, tmp_path):
    out = tmp_path / "w.npy"
    r = run_tool("dequant", samples / "weights.gguf", "w.iq3_s", "-o", out, "--host")
    assert r.returncode == 0, r.stderr
    with gguf.open(samples / "weights.gguf") as f:
        np.testing.assert_array_equal(np.load(out), f.read("w.iq3_s"))
    r = run_tool("dequant", samples / "weights.gguf", "nope", "-o", out, "--host")
    assert r.returncode == 1 and "no tensor 'nope'" in r.stderr
    r = run_tool("info", tmp_path / "missing.gguf")
    assert r.returncode == 1 and "cannot open" in r.stderr
    assert run_tool("--help").returncode == 0 and run_tool("frob").returncode == 2
