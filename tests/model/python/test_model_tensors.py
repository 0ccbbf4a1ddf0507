"""Every tensor of a model file is used or refused, and the optional tensors
llama.cpp applies are applied: models written by this directory's own GGUF
writer (gguf_write.py, f32 weights, the vocabulary of the project's random
model of the same family) for every architecture,

* with one tensor no architecture has: k100-generate refuses the file and
  names the tensor (llama.cpp refuses it too); with --allow-unused it lists
  the tensor, skips it and runs;
* with each optional tensor llama.cpp's loader creates for the architecture
  (Q/K/V biases; for llama the attention output and FFN biases and
  rope_freqs, for qwen2 the output bias), one at a time, then all of them
  with a tied head, once with separate Q/K/V and once with a fused attn_qkv
  and its bias: k100lc's logits within 1e-3 of the largest logit of
  llama.cpp's and of the float64 reference (reference_model.py), which
  differ from the same model without those tensors (the other weights
  alike) by far more than that;
* head sizes 32 (16 query heads per KV head), 96, 160 and 256, and a
  Mixtral-style llama model with experts, against both references alike.

Errors measured go to <build>/tests/model_tensors_report.txt.
"""
import subprocess
import sys

import numpy as np
import pytest

import gguf_write
from conftest import BUILD, GENERATE
from k100_run import generate
from reference_model import Gguf, ReferenceModel

REPORT = BUILD / "tests" / "model_tensors_report.txt"
N = 6  # generated tokens per case


@pytest.fixture(scope="module", autouse=True)
def fresh_report():
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("")


def record(line):
    with open(REPORT, "a") as f:
        f.write(line + "\n")


@pytest.fixture(scope="module")
def vocab(model_file):
    """family -> (tokenizer metadata as stored, n_vocab) from the project's random model of that family."""
    out = {}
    for family, arch in [("spm", "llama"), ("bpe", "qwen2")]:
        f = Gguf(model_file(arch, "f32"))
        kvs = [(k, v) for k, v in f.raw_kv.items() if k.startswith("tokenizer.")]
        out[family] = (kvs, len(f.meta["tokenizer.ggml.tokens"]))
    return out


@pytest.fixture
def write(vocab, tmp_path):
    def make(name, spec, **kw):
        kvs, n_vocab = vocab["spm" if spec.arch == "llama" else "bpe"]
        extra = kw.pop("extra", None)
        meta, tensors = gguf_write.random_model(spec, kvs, n_vocab, **kw)
        path = tmp_path / (name + ".gguf")
        gguf_write.write(path, meta, {**tensors, **(extra or {})})
        return path
    return make


def prompt_of(arch):
    return [1, 300, 301, 302] if arch == "llama" else [300, 301, 302]


def compare(name, path, arch, llama, ggml, without=None):
    """k100lc's greedy run against llama.cpp's logits and the float64 reference on the same sequence."""
    prompt = prompt_of(arch)
    ids, ours, _ = generate(path, prompt, N)
    seq = prompt + ids[:-1]
    ref = ReferenceModel(path, ggml).logits_of(seq)[len(prompt) - 1:]
    with llama.load(path) as m:
        theirs = m.logits_of(seq)[len(prompt) - 1:].astype(np.float64)
    scale = np.abs(theirs).max(axis=1)
    err_llama = np.abs(ours - theirs).max(axis=1) / scale
    err_ref = np.abs(ours - ref).max(axis=1) / np.abs(ref).max(axis=1)
    line = f"{name:34s} k100lc vs llama.cpp {err_llama.max():.2e}  vs float64 {err_ref.max():.2e}"
    if without is not None:
        plain = ReferenceModel(without, ggml).logits_of(seq)[len(prompt) - 1:]
        moved = (np.abs(plain - ref).max(axis=1) / np.abs(ref).max(axis=1)).min()
        line += f"  (the optional tensors move the logits by {moved:.2e})"
        assert moved > 1e-2, f"the optional tensors change the logits by only {moved:.2e}: the case proves nothing"
    record(line)
    assert np.all(err_llama <= 1e-3), f"logits off llama.cpp's by {err_llama.max():.3e} of the largest"
    assert np.all(err_ref <= 1e-3), f"logits off the float64 reference by {err_ref.max():.3e} of the largest"


ARCHS = ["llama", "qwen2", "qwen3", "qwen3moe"]


def spec_of(arch, **kw):
    if arch == "qwen3moe":
        kw = {"n_ff": 256, "n_expert": 4, "n_expert_used": 2, **kw}
    return gguf_write.ModelSpec(arch, **kw)


# The optional tensors llama.cpp's loader creates for each architecture (beside attn_qkv, whose
# case is the fused one), by the names random_model takes ("tied": no output.weight).
OPTIONAL = {"llama": ["qkv_bias", "attn_output.bias", "ffn_gate.bias", "ffn_up.bias", "ffn_down.bias", "rope_freqs"],
            "qwen2": ["qkv_bias", "output.bias"],
            "qwen3": ["qkv_bias"],
            "qwen3moe": ["qkv_bias"]}


@pytest.mark.parametrize("arch,tensor", [(a, t) for a in ARCHS for t in OPTIONAL[a]], ids=lambda v: v)
def test_each_optional_tensor_is_applied(arch, tensor, write, llama, ggml):
    spec = spec_of(arch)
    path = write(f"{arch}_{tensor}", spec, optional=[tensor])
    compare(f"{arch} + {tensor}", path, arch, llama, ggml, without=write(f"{arch}_plain", spec))


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("fused", [False, True], ids=["separate_qkv", "fused_qkv"])
def test_all_optional_tensors_together(arch, fused, write, llama, ggml):
    spec = spec_of(arch)
    opts = OPTIONAL[arch] + ["tied"]
    path = write(f"{arch}_optional", spec, fused_qkv=fused, optional=opts)
    without = write(f"{arch}_plain", spec, fused_qkv=fused, optional=["tied"])
    compare(f"{arch} {'attn_qkv ' if fused else ''}+ {','.join(opts)}", path, arch, llama, ggml, without=without)


# head size, architecture, query heads, KV heads, n_embd (llama.cpp's qwen2 wants n_head x head size = n_embd)
SHAPES = [(32, "llama", 16, 1, 256), (96, "qwen2", 4, 2, 384), (160, "qwen3", 4, 1, 256), (256, "llama", 2, 2, 256)]


@pytest.mark.parametrize("hd,arch,n_head,n_kv,n_embd", SHAPES, ids=[f"head{s[0]}" for s in SHAPES])
def test_head_sizes(hd, arch, n_head, n_kv, n_embd, write, llama, ggml):
    spec = spec_of(arch, head_dim=hd, n_head=n_head, n_kv=n_kv, n_embd=n_embd, seed=hd)
    path = write(f"{arch}_head{hd}", spec, optional=["qkv_bias"] if arch == "qwen2" else [])
    compare(f"{arch} head {hd}, {n_head} / {n_kv} heads", path, arch, llama, ggml)


def test_mixtral_style_experts(write, llama, ggml):
    spec = spec_of("llama", n_ff=256, n_expert=4, n_expert_used=2, seed=7)
    path = write("llama_experts", spec)
    compare("llama 4 experts (2 used)", path, "llama", llama, ggml)
