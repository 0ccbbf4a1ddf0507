"""Whole models against two references: tiny random models written by our
GGUF writer (2 layers, dim 256, 4 query / 2 KV heads, vocab 512; qwen3moe 4
experts, 2 used) for every architecture, in several weight types, and llama
files with Mixtral-style experts ("mixtral": 4 experts, 2 used, on the fast
GEMVs for the block types).

* float64 reference (reference_model.py, ggml-dequantised weights):
  k100lc's logits, activations in f32, within 1e-3 of the largest logit at
  every step (the sequence fed to both is the one k100lc generated).
* llama.cpp (CPU, f32 KV cache, flash attention off), fed the same
  sequence: wherever its top-2 margin exceeds the two implementations'
  errors against the float64 reference added, the greedy token is the
  same; for f32 weights, greedy generation gives the same 32 tokens and
  logits within 1e-3 of the largest.

Each case appends its measured errors to <build>/tests/model_oracle_report.txt.
"""
import numpy as np
import pytest

from conftest import BUILD
from k100_run import generate
from reference_model import ReferenceModel

ARCHS = ["llama", "qwen2", "qwen3", "qwen3moe"]
TYPES = ["f32", "f16", "bf16", "q8_0", "q4_K", "q6_K", "iq4_xs", "mixed"]
REPORT = BUILD / "tests" / "model_oracle_report.txt"


def prompt_of(arch):
    # llama: BOS then word pieces; qwen: byte-level pieces (no BOS)
    return [1, 300, 301, 302] if arch in ("llama", "mixtral") else [300, 301, 302]


def row_error(a, ref):
    return np.abs(a.astype(np.float64) - ref).max(axis=1)


def top2_margin(rows):
    s = np.sort(rows, axis=1)
    return s[:, -1] - s[:, -2]


@pytest.fixture(scope="module", autouse=True)
def fresh_report():
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("")


def record(line):
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    with open(REPORT, "a") as f:
        f.write(line + "\n")


CASES = [(a, t, ()) for a in ARCHS for t in TYPES] + [("qwen2", "q8_0", ("--tied",)), ("llama", "f16", ("--tied",))] + \
    [("mixtral", t, ()) for t in ["f32", "q8_0", "q4_K", "mixed"]]


@pytest.mark.parametrize("arch,wtype,extra", CASES, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_logits_against_float64_and_llama(arch, wtype, extra, model_file, llama, ggml):
    path = model_file(arch, wtype, *extra)
    prompt = prompt_of(arch)
    n = 32 if wtype == "f32" else 8
    ids, ours, _ = generate(path, prompt, n)
    assert len(ids) == n and ours.shape[0] == n
    seq = prompt + ids[:-1]  # row i: after the token before generated token i
    ref = ReferenceModel(path, ggml).logits_of(seq)[len(prompt) - 1:]
    scale = np.abs(ref).max(axis=1)
    err = row_error(ours, ref)
    with llama.load(path) as m:
        theirs = m.logits_of(seq)[len(prompt) - 1:]
    lids = lrows = None
    if wtype == "f32":
        with llama.load(path) as m:  # a fresh context: greedy from the prompt alone
            lids, lrows = m.greedy(prompt, n)
    err_llama = row_error(theirs, ref)
    margin = top2_margin(theirs)
    decided = margin > err + err_llama
    agree = np.argmax(ours, axis=1) == np.argmax(theirs, axis=1)
    record(f"{arch:9s} {(wtype + ' ' + ' '.join(extra)).strip():13s} steps {n:2d}  k100lc vs float64 {np.max(err / scale):.2e}  "
           f"llama.cpp vs float64 {np.max(err_llama / scale):.2e}  (of the largest logit)  "
           f"greedy decided at {int(decided.sum())}/{n} steps, agree there {int(agree[decided].sum())}")
    assert np.all(err <= 1e-3 * scale), f"k100lc logits off by {np.max(err / scale):.3e} of the largest logit"
    assert np.all(agree[decided]), f"greedy tokens differ at decided steps {np.nonzero(decided & ~agree)[0]}"
    if wtype == "f32":
        assert ids == lids, f"greedy tokens differ from llama.cpp's:\n{ids}\n{lids}"
        lscale = np.abs(lrows).max(axis=1)
        assert np.all(row_error(ours, lrows.astype(np.float64)) <= 1e-3 * lscale)
