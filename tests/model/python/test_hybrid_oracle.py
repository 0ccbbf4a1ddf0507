"""The hybrid architectures (Gated DeltaNet + gated attention): tiny random
qwen35, qwen35moe and qwen3next models written by our GGUF writer
(gguf_write.hybrid_model: 4 layers, every second one attention, dim 128,
4 query / 2 KV heads of 64 with RoPE over 16 dims, DeltaNet 2 key / 4 value
heads of 32 so the two head mappings differ; qwen35moe's RoPE sections
3/2/2/1 hold one pair still; the MoE members 4 experts, 2 used, and a
shared expert), with the vocabulary of the project's random qwen2 model.

* The float64 forward (reference_model.HybridReferenceModel, which steps the
  recurrence token by token) against llama.cpp on f32 weights, every
  architecture and the legacy fused ssm_in of qwen3next: within 1e-4 of the
  largest logit (no device needed).
* k100lc (k100-generate), with DeltaNet heads of 32 (the catalog's kernels
  one by one) and of 128 (the one-launch step), on f32 weights: greedy
  tokens identical to llama.cpp's for 32 steps (8 or 16 for the variants),
  logits within 1e-3 of the largest logit of llama.cpp's and of the float64
  forward.
* k100lc on q8_0 weights: logits within 1e-3 of the largest logit of the
  float64 forward over the dequantised weights.
* Files missing a key or a tensor are refused naming it.
* A scripted chat (each turn runs from position 0 again: the recurrent
  state cannot go back to the prefix the turns share) gives each turn the
  answer of a fresh run; the Python front end gives k100-generate's tokens,
  and the binding's model starts a second sequence clean.

Errors measured go to <build>/tests/model_hybrid_report.txt.
"""
import subprocess

import numpy as np
import pytest

import gguf_write
from conftest import BUILD, GENERATE
from chat_oracle import run_chat
from k100_run import generate, row_error
from reference_model import HybridReferenceModel

REPORT = BUILD / "tests" / "model_hybrid_report.txt"
PROMPT = [300, 301, 302]


@pytest.fixture(scope="module", autouse=True)
def fresh_report():
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("")


def record(line):
    with open(REPORT, "a") as f:
        f.write(line + "\n")


@pytest.fixture(scope="module")
def hybrid_file(vocab, tmp_path_factory):
    """hybrid_file(arch, wtype='f32', legacy=False, drop=(), drop_keys=(), set_keys=(), head_dim=64, d_state=32)
    -> path of the model (cached): legacy with ssm_in, without the tensors `drop` and the keys `drop_keys`, with
    the (key, encoded value) pairs `set_keys` added."""
    root = tmp_path_factory.mktemp("hybrid")
    made = {}
    kvs_vocab, tokens = vocab[0], vocab[1]

    def make(arch, wtype="f32", legacy=False, drop=(), drop_keys=(), set_keys=(), head_dim=64, d_state=32):
        key = (arch, wtype, legacy, tuple(drop), tuple(drop_keys), tuple(set_keys), head_dim, d_state)
        if key not in made:
            # qwen35moe's sections leave the last RoPE pair in the fourth section (turned by position 0)
            spec = gguf_write.HybridSpec(arch, seed={"qwen35": 5, "qwen35moe": 6, "qwen3next": 7}[arch],
                                         sections=(3, 2, 2, 1) if arch == "qwen35moe" else (3, 3, 2, 0),
                                         head_dim=head_dim, d_state=d_state)
            kvs, t = gguf_write.hybrid_model(spec, kvs_vocab + [("tokenizer.ggml.pre", gguf_write.string("qwen2"))],
                                             len(tokens), quantise=gguf_write.Q8_0 if wtype == "q8_0" else None,
                                             legacy_ssm_in=legacy)
            kvs = [(k, v) for k, v in kvs if k not in drop_keys] + list(set_keys)
            assert len({k for k, _ in kvs}) == len(kvs), "set_keys adds keys the model does not have" 
            t = {n: a for n, a in t.items() if n not in drop}
            path = root / f"{arch}_{wtype}{'_legacy' if legacy else ''}_{len(made)}.gguf"
            gguf_write.write(path, kvs, t)
            made[key] = path
        return made[key]

    return make


@pytest.mark.parametrize("arch,legacy", [("qwen35", False), ("qwen35moe", False), ("qwen3next", False),
                                         ("qwen3next", True)], ids=["qwen35", "qwen35moe", "qwen3next",
                                                                    "qwen3next-ssm_in"])
def test_reference_matches_llama(arch, legacy, hybrid_file, llama, ggml):
    path = hybrid_file(arch, legacy=legacy)
    seq = PROMPT + list(range(40, 56))
    ref = HybridReferenceModel(path, ggml).logits_of(seq)
    with llama.load(path) as m:
        theirs = m.logits_of(seq)
    err = np.max(row_error(theirs, ref) / np.abs(ref).max(axis=1))
    record(f"{arch:9s} {'ssm_in' if legacy else '':6s} float64 vs llama.cpp (f32 weights, {len(seq)} steps) {err:.2e} "
           f"of the largest logit")
    assert err <= 1e-4, f"the float64 forward is {err:.2e} of the largest logit from llama.cpp's"


# head size 32: the attention in two steps (qkv_rope_append_k, then the split attention), not the one launch;
# head size 256 (Qwen3.5-27B's): qkv_rope_append_k, then the one-launch attention with the gate (flash_dec_gqa_k);
# DeltaNet heads of 32: the chain of the catalog's kernels; of 128: the one-launch step with its gated norm
# (gdn_decode_gated_k)
CASES = [("qwen35", "f32", 32, False, 64, 32), ("qwen3next", "f32", 32, False, 64, 32),
         ("qwen35moe", "f32", 8, False, 64, 32), ("qwen35", "q8_0", 8, False, 64, 32),
         ("qwen3next", "q8_0", 8, True, 64, 32), ("qwen35", "f32", 8, False, 32, 32),
         ("qwen35", "f32", 32, False, 64, 128), ("qwen3next", "f32", 16, False, 64, 128),
         ("qwen35moe", "q8_0", 8, False, 64, 128), ("qwen35", "f32", 8, False, 256, 32)]


@pytest.mark.parametrize("arch,wtype,n,legacy,hd,ds", CASES,
                         ids=[f"{a}-{t}{'-ssm_in' if g else ''}-hd{d}-ds{e}" for a, t, _, g, d, e in CASES])
def test_k100_against_float64_and_llama(arch, wtype, n, legacy, hd, ds, hybrid_file, llama, ggml):
    path = hybrid_file(arch, wtype, legacy=legacy, head_dim=hd, d_state=ds)
    ids, ours, _ = generate(path, PROMPT, n)
    assert len(ids) == n and ours.shape[0] == n
    seq = PROMPT + ids[:-1]
    ref = HybridReferenceModel(path, ggml).logits_of(seq)[len(PROMPT) - 1:]
    scale = np.abs(ref).max(axis=1)
    err = np.max(row_error(ours, ref) / scale)
    line = (f"{arch:9s} {wtype:5s} {'ssm_in' if legacy else '':6s} head {hd:2d} DeltaNet head {ds:3d} steps {n:2d}  "
            f"k100lc vs float64 {err:.2e}")
    if wtype == "f32":
        with llama.load(path) as m:
            lids, lrows = m.greedy(PROMPT, n)
        err_llama = np.max(row_error(ours, lrows) / np.abs(lrows).max(axis=1))
        line += f"  k100lc vs llama.cpp {err_llama:.2e}  greedy tokens equal: {ids == lids}"
    record(line + "  (of the largest logit)")
    assert err <= 1e-3, f"k100lc logits off by {err:.3e} of the largest logit of the float64 forward"
    if wtype == "f32":
        assert ids == lids, f"greedy tokens differ from llama.cpp's:\n{ids}\n{lids}"
        assert err_llama <= 1e-3, f"k100lc logits off by {err_llama:.3e} of the largest logit of llama.cpp's"


@pytest.mark.parametrize("arch,drop,drop_key,named", [
    ("qwen35", ("blk.0.ssm_a",), (), "blk.0.ssm_a"),
    ("qwen3next", ("blk.2.ssm_ba.weight",), (), "blk.2.ssm_ba.weight"),
    ("qwen35moe", ("blk.1.ffn_gate_inp_shexp.weight",), (), "blk.1.ffn_gate_inp_shexp.weight"),
    ("qwen35", (), ("qwen35.ssm.conv_kernel",), "qwen35.ssm.conv_kernel"),
    ("qwen35", (), ("qwen35.rope.dimension_sections",), "qwen35.rope.dimension_sections"),
])
def test_missing_key_or_tensor_is_named(arch, drop, drop_key, named, hybrid_file):
    refused_naming(hybrid_file(arch, drop=drop, drop_keys=drop_key), named)


@pytest.mark.parametrize("key,value,named", [
    ("qwen35.nextn_predict_layers", gguf_write.u32(1), "nextn_predict_layers"),
    ("qwen35.ssm.inner_size", gguf_write.u32(96), "qwen35.ssm.inner_size"),
    ("qwen35.ssm.time_step_rank", gguf_write.u32(3), "qwen35.ssm.time_step_rank"),
    ("qwen35.rope.dimension_sections", gguf_write.u32_array([8, 8, 8, 0]), "qwen35.rope.dimension_sections"),
])
def test_unsupported_variant_is_refused_by_name(key, value, named, hybrid_file):
    # multi-token-prediction layers, value heads of another size than ssm.state_size, value heads that key
    # heads do not divide, sections for more pairs than RoPE turns
    drop = (key,) if not key.endswith("nextn_predict_layers") else ()
    refused_naming(hybrid_file("qwen35", drop_keys=drop, set_keys=((key, value),)), named)


def refused_naming(path, named):
    r = subprocess.run([GENERATE, str(path), "--tokens", "300", "-n", "1", "--temp", "0"], capture_output=True,
                       text=True, errors="replace")
    assert r.returncode != 0 and named in r.stderr, r.stderr


def test_chat_turns_restart_the_recurrent_state(hybrid_file):
    """A chat's later turns share only a prefix with the tokens run before (the template closes the answer
    differently), and a recurrent state cannot go back to a prefix: each turn must run from position 0 again.
    Every turn's answer equals a fresh run of that turn's whole prompt."""
    path = hybrid_file("qwen35")
    _, prompts, answers, err = run_chat([GENERATE], path)
    assert len(prompts) == len(answers) == 3, err
    for prompt, answer in zip(prompts, answers):
        ids, _, _ = generate(path, prompt, len(answer))
        assert ids == answer, f"turn with {len(prompt)} prompt tokens: chat {answer}, fresh run {ids}"


def test_python_front_end_and_binding(hybrid_file):
    """python3 -m k100lc_kernels generate gives k100-generate's tokens; the binding's Model runs a second
    sequence from position 0 with the first one's state gone."""
    import sys
    from k100lc_kernels import Runtime
    from k100lc_kernels import model as M
    path = hybrid_file("qwen3next")
    args = [str(path), "--tokens", "300,301,302", "-n", "4", "--temp", "0", "--ignore-eos", "--ids"]
    tool = subprocess.run([GENERATE] + args, capture_output=True, text=True, errors="replace", check=True)
    sub = subprocess.run([sys.executable, "-m", "k100lc_kernels", "generate"] + args, capture_output=True, text=True,
                         errors="replace", check=True)
    ids = [line for line in tool.stderr.splitlines() if line.startswith("ids:")]
    assert len(ids) == 1 and ids[0] in sub.stderr.splitlines(), sub.stderr
    rt = Runtime()
    m = M.Model(rt, path, context=16)
    assert m.config["architecture"] == "qwen3next"

    def run(tokens):
        for i, t in enumerate(tokens):
            m.forward(t, i)
        return m.logits()

    fresh = run([300, 301, 302])
    run([40, 41, 42, 43, 44])
    again = run([300, 301, 302])
    assert np.array_equal(fresh, again)
