"""4-bit Hugging Face directories end to end: a tiny Llama and a tiny Qwen3
with random weights whose seven linear layers per block are stored as
compressed-tensors INT4 (pack-quantized, group 128) or NVFP4
(nvfp4-pack-quantized), everything else BF16 (lm_head in the config's
ignore list), config.json with its quantization_config and tokenizer.json,
written by hf_write.py (NumPy only). The oracle is llama.cpp running the same
model with its dequantised weights as an f32 GGUF (ORACLES.md 8):

- W4A16 (INT4's default): the same greedy tokens, logits within 1e-3 of
  llama.cpp's largest;
- the quantised-activation paths (INT4 --act a8 and a4, NVFP4 a8): along
  k100lc's own greedy tokens, the error against llama.cpp at most 1.5 times
  the error of a float64 NumPy forward that quantises the activations the
  same way (reference_model.py, each linear layer's input rounded per group
  as FORMATS.md 4 says);
- an RT4 file converted from the checkpoint (k100-rt4 convert) gives the
  same tokens and logits as the checkpoint on the same path;
- unsupported schemes, paths a format does not have, missing tensors and
  shape mismatches are refused by name.

Errors measured go to <build>/tests/model_hf_quantised_report.txt.
"""
import json
import subprocess
import sys

import numpy as np
import pytest

import gguf_write
import hf_write
from conftest import BUILD, GENERATE, TOOLS
from k100_run import generate, row_error, served
from reference_model import ReferenceModel

REPORT = BUILD / "tests" / "model_hf_quantised_report.txt"
N = 6
PROMPT = [300, 301, 302]


@pytest.fixture(scope="module", autouse=True)
def fresh_report():
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("")


def report(line):
    with open(REPORT, "a") as f:
        f.write(line + "\n")


def write_quantised(tmp_path, arch, scheme, vocab):
    """(directory, gguf path) of a random `arch` model ('llama' or 'qwen3') whose linear layers are `scheme`
    ('int4' or 'nvfp4'); the GGUF holds the dequantised weights in f32."""
    kvs_vocab, tokens, types, merges, bos, eos, _ = vocab
    spec = gguf_write.ModelSpec(arch, seed={"llama": 21, "qwen3": 22}[arch])
    pre = "llama-bpe" if arch == "llama" else "qwen2"
    kvs, t = gguf_write.random_model(spec, kvs_vocab + [("tokenizer.ggml.pre", gguf_write.string(pre))], len(tokens))
    pack = hf_write.pack_int4 if scheme == "int4" else hf_write.pack_nvfp4
    directory = tmp_path / f"{arch}-{scheme}"
    hf, gguf_tensors = {}, {}
    for name, a in t.items():
        key = hf_write.hf_name(name)
        if name.split(".", 2)[-1] in hf_write.QUANTISED_LINEARS:
            parts, w = pack(a)
            for tail, tensor in parts.items():
                hf[key[:-len(".weight")] + tail] = tensor
        else:
            b = hf_write.to_bf16(a)
            hf[key] = ("BF16", b)
            w = hf_write.from_bf16(b).reshape(a.shape)
        w = np.asarray(w, np.float32)  # the values the directory holds
        if arch == "llama" and name.endswith("attn_q.weight"):
            w = hf_write.permute_rows(w, spec.n_head)
        elif arch == "llama" and name.endswith("attn_k.weight"):
            w = hf_write.permute_rows(w, spec.n_kv)
        gguf_tensors[name] = w
    hf_write.write_checkpoint(directory, hf)
    config = hf_write.config(arch, spec, len(tokens), False)
    config["quantization_config"] = hf_write.quantization_config(scheme)
    (directory / "config.json").write_text(json.dumps(config))
    split = hf_write.LLAMA3_SPLIT if arch == "llama" else hf_write.QWEN2_SPLIT
    hf_write.write_tokenizer(directory, tokens, types, merges, split, bos, eos)
    path = tmp_path / f"{arch}-{scheme}.gguf"
    gguf_write.write(path, kvs, gguf_tensors)
    return directory, path



@pytest.mark.parametrize("arch", ["llama", "qwen3"])
def test_int4_a16_matches_llama_cpp(arch, vocab, llama, tmp_path):
    directory, gguf = write_quantised(tmp_path, arch, "int4", vocab)
    ids, ours, _ = generate(directory, PROMPT, N)
    with llama.load(gguf) as m:
        lids, theirs = m.greedy(PROMPT, N)
    err = row_error(ours, theirs) / np.abs(theirs).max(axis=1)
    report(f"{arch:6s} compressed-tensors INT4, W4A16, {N} greedy steps: k100lc vs llama.cpp (dequantised f32 GGUF) "
           f"{err.max():.2e} of the largest logit; tokens {'equal' if ids == lids else 'DIFFER'}")
    assert ids == lids, f"greedy tokens differ from llama.cpp's:\n{ids}\n{lids}"
    assert err.max() <= 1e-3, f"logits off by {err.max():.3e} of the largest"
    python_front_end_gives(directory, ids)


def python_front_end_gives(directory, ids, extra=()):
    """`python3 -m k100lc_kernels generate DIR` (the same command over libk100_model.so) generates `ids`."""
    r = subprocess.run([sys.executable, "-m", "k100lc_kernels", "generate", str(directory), "--tokens",
                        ",".join(map(str, PROMPT)), "-n", str(N), "--temp", "0", "--ignore-eos", "--ids", *extra],
                       capture_output=True, text=True, errors="replace")
    assert r.returncode == 0, r.stderr
    assert [line for line in r.stderr.splitlines() if line.startswith("ids:")] == ["ids: " + " ".join(map(str, ids))]


# The activation quantisers of FORMATS.md 4 / 5.2: per group s = max|x| / qmax (1 for an all-zero group, f32),
# q = clamp(rint(x / s), -qmax - 1, qmax); the linear layer then multiplies q * s exactly.
ACT_GROUPS = {"a8": (128, 127), "a4": (32, 7), "nvfp4": (16, 127)}


def quantise_activations(x, group, qmax):
    g = x.reshape(-1, group)
    amax = np.abs(g).max(axis=1).astype(np.float32)
    s = np.where(amax == 0, np.float32(1), amax / np.float32(qmax)).astype(np.float32).astype(np.float64)
    q = np.clip(np.rint(g / s[:, None]), -qmax - 1, qmax)
    return (q * s[:, None]).reshape(x.shape)


class ActivationQuantised:
    """A weight matrix whose product quantises its input first (W @ x = W @ q(x))."""

    def __init__(self, w, group, qmax):
        self.w, self.group, self.qmax = w, group, qmax

    def __matmul__(self, x):
        return self.w @ quantise_activations(x, self.group, self.qmax)


def reference_with_quantised_activations(gguf, ggml, group, qmax):
    ref = ReferenceModel(gguf, ggml)
    for L in ref.layers:
        for n in ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"]:
            L[n] = ActivationQuantised(L[n], group, qmax)
    return ref


@pytest.mark.parametrize("arch,scheme,act", [("qwen3", "int4", "a8"), ("llama", "int4", "a4"),
                                             ("qwen3", "nvfp4", "a8"), ("llama", "nvfp4", "a8")])
def test_quantised_activations_against_float64(arch, scheme, act, vocab, llama, ggml, tmp_path):
    directory, gguf = write_quantised(tmp_path, arch, scheme, vocab)
    ids, ours, _ = generate(directory, PROMPT, N, extra=("--act", act))
    python_front_end_gives(directory, ids, ("--act", act))
    # every model along k100lc's tokens: row i is the logits after PROMPT + ids[:i]
    seq = PROMPT + ids[:-1]
    with llama.load(gguf) as m:
        theirs = m.logits_of(seq)[len(PROMPT) - 1:]
    group, qmax = ACT_GROUPS["nvfp4" if scheme == "nvfp4" else act]
    ref = reference_with_quantised_activations(gguf, ggml, group, qmax).logits_of(seq)[len(PROMPT) - 1:]
    scale = np.abs(theirs).max(axis=1)
    ours_err = (row_error(ours, theirs) / scale).max()
    ref_err = (row_error(ref, theirs) / scale).max()
    rows_vs_ref = row_error(ours, ref) / np.abs(ref).max(axis=1)
    report(f"{arch:6s} {scheme:5s} --act {act}: k100lc vs llama.cpp {ours_err:.2e}, float64 with the same "
           f"activation quantisation vs llama.cpp {ref_err:.2e} (ratio {ours_err / ref_err:.3f}); k100lc vs that "
           f"float64 pass, per step: {' '.join(f'{e:.1e}' for e in rows_vs_ref)} of its largest logit")
    assert ref_err > 0
    assert ours_err <= 1.5 * ref_err, f"error {ours_err:.3e} exceeds 1.5 x the float64 pass's {ref_err:.3e}"
    # and it is that arithmetic: most steps agree with the quantised-activation pass to f32 rounding (a path that
    # left the activations in f32 would be about ref_err away at every step). One activation that f32 and float64
    # round to neighbouring codes moves every later step (its row stays in the KV cache), hence the median.
    assert np.median(rows_vs_ref) <= 1e-4, f"k100lc is {rows_vs_ref} from the quantised-activation pass"


def k100_rt4(*args):
    r = subprocess.run([str(TOOLS / "k100-rt4"), *map(str, args)], capture_output=True, text=True, errors="replace")
    assert r.returncode == 0, r.stderr
    return r


@pytest.mark.parametrize("act", ["a8", "a4"])
def test_rt4_file_gives_the_checkpoints_tokens(act, vocab, tmp_path):
    directory, _ = write_quantised(tmp_path, "qwen3", "int4", vocab)
    ids, logits, _ = generate(directory, PROMPT, N, extra=("--act", act))
    rt4 = tmp_path / "converted.rt4"
    k100_rt4("convert", directory, "-o", rt4)
    rids, rlogits, _ = generate(directory, PROMPT, N, extra=("--act", act, "--rt4", str(rt4)))
    report(f"qwen3  RT4 file (k100-rt4 convert) --act {act}: tokens {'equal' if ids == rids else 'DIFFER'}, "
           f"logits differ by at most {np.abs(logits - rlogits).max():.2e}")
    assert rids == ids
    assert np.array_equal(rlogits, logits)  # the same device weights: RT4 is what --act a8/a4 converts to
    # model.rt4 in the directory is taken without the flag
    k100_rt4("convert", directory, "-o", directory / "model.rt4")
    r = subprocess.run([GENERATE, str(directory), "--tokens", ",".join(map(str, PROMPT)), "-n", str(N), "--temp", "0",
                        "--ignore-eos", "--ids", "--act", act], capture_output=True, text=True, errors="replace")
    assert r.returncode == 0, r.stderr
    assert "RT4 file" in r.stderr and f"ids: {' '.join(map(str, ids))}" in r.stderr, r.stderr
    refused(directory, "RT4", "--act a16", extra=("--act", "a16"))


def refused(directory, *parts, extra=()):
    r = subprocess.run([GENERATE, str(directory), "--tokens", "300,301", "-n", "1", "--temp", "0", *extra],
                       capture_output=True, text=True, errors="replace")
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "error:" in r.stderr and "Traceback" not in r.stderr
    for p in parts:
        assert p in r.stderr, r.stderr
    return r.stderr


def test_paths_a_format_lacks_are_refused_naming_both(vocab, tmp_path):
    directory, _ = write_quantised(tmp_path, "qwen3", "nvfp4", vocab)
    for act in ["a16", "a4"]:
        refused(directory, "NVFP4", f"--act {act}", extra=("--act", act))
    r = subprocess.run([GENERATE, str(directory), "--act", "a2", "--tokens", "300", "-n", "1"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "--act 'a2'" in r.stderr, r.stderr



def rewrite_checkpoint(directory, change):
    """model.safetensors with change(tensors) applied ({name: (dtype, array)}, read back with NumPy)."""
    import struct
    path = directory / "model.safetensors"
    raw = path.read_bytes()
    h = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + h])
    dtypes = {"F32": "<f4", "BF16": "<u2", "I32": "<i4", "I64": "<i8", "U8": "u1", "F8_E4M3": "u1"}
    tensors = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        tensors[name] = (e["dtype"], np.frombuffer(raw[8 + h + b:8 + h + end], dtypes[e["dtype"]]).reshape(e["shape"]))
    change(tensors)
    path.write_bytes(hf_write.safetensors_bytes(tensors))


def test_bad_quantised_directories_are_named(vocab, tmp_path):
    directory, _ = write_quantised(tmp_path, "qwen3", "int4", vocab)
    key = "model.layers.1.mlp.down_proj"
    # a tensor of a layer missing
    saved = (directory / "model.safetensors").read_bytes()
    rewrite_checkpoint(directory, lambda t: t.pop(key + ".weight_scale"))
    refused(directory, f"'{key}.weight_scale'", "is missing")
    # weight_shape disagreeing with the codes
    (directory / "model.safetensors").write_bytes(saved)
    rewrite_checkpoint(directory, lambda t: t.update({key + ".weight_shape": ("I64", np.array([256, 1024], "<i8"))}))
    refused(directory, f"'{key}.weight_packed'", "[N, K/8]")
    # the layer's shape against the config
    (directory / "model.safetensors").write_bytes(saved)
    hf_write.edit_config(directory, intermediate_size=384)
    refused(directory, "model.layers.0.mlp.gate_proj.weight", "expected")
    hf_write.edit_config(directory, intermediate_size=512)
    # packed tensors without a quantization_config
    c = json.loads((directory / "config.json").read_text())
    del c["quantization_config"]
    (directory / "config.json").write_text(json.dumps(c))
    refused(directory, "weight_packed", "quantization_config")
    # another scheme, by key
    hf_write.edit_config(directory, quantization_config={"quant_method": "gptq", "bits": 4})
    refused(directory, "'quantization_config.quant_method'", "gptq")
    q = hf_write.quantization_config("int4")
    q["config_groups"]["group_0"]["weights"]["group_size"] = 64
    hf_write.edit_config(directory, quantization_config=q)
    refused(directory, "group_size", "64")


def test_server_takes_the_activation_path(vocab, tmp_path):
    """k100-server --act a4 serves the W4A4 path: its log says so and a greedy completion equals k100-generate's."""
    directory, _ = write_quantised(tmp_path, "qwen3", "int4", vocab)
    want = subprocess.run([GENERATE, str(directory), "-p", "Hello there", "-n", "3", "--temp", "0", "--act", "a4"],
                          capture_output=True, text=True, errors="replace")
    assert want.returncode == 0, want.stderr
    with served("-m", directory, "-c", "64", "--act", "a4") as (post, log):
        answer = post("/v1/completions", {"prompt": "Hello there", "max_tokens": 3, "temperature": 0})
    assert "activations a4" in "".join(log), "".join(log)
    assert want.stdout.startswith("Hello there")
    assert "Hello there" + answer["choices"][0]["text"] + "\n" == want.stdout, (answer, want.stdout)
    r = subprocess.run([str(TOOLS / "k100-server"), "-m", str(directory), "--act", "a2"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "--act 'a2'" in r.stderr, r.stderr
