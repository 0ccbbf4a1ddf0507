"""Hugging Face model directories end to end: a tiny Llama (one
model.safetensors, its own output head, the Llama-3 split), a tiny Qwen3
(two shards and an index, tied embeddings, the Qwen-2 split) and a tiny
Qwen3-MoE (4 experts, 2 used, one tensor per expert), random BF16
weights, config.json, tokenizer.json and generation_config.json written by
hf_write.py, run by k100-generate DIR and by `python3 -m k100lc_kernels
generate -m DIR`, against llama.cpp running the same model written as an f32
GGUF (the bf16 values widened; Llama's q/k rows permuted as llama.cpp's
converter does, since GGUF Llama pairs RoPE dimensions 2i, 2i+1): the same
greedy tokens and logits within 1e-3 of the largest logit. A chat with the
ChatML template of tokenizer_config.json (each turn's prompt ids against
llama.cpp's template and tokenizer on the GGUF), and k100-server serving a
directory (a tensor no architecture uses skipped by --allow-unused there
and in k100-generate). Then broken directories, each refused with a message
naming what is wrong. (4-bit directories: test_hf_quantised.py.)

Errors measured go to <build>/tests/model_hf_report.txt.
"""
import json
import struct
import subprocess
import sys

import numpy as np
import pytest

import gguf_write
import hf_write
from chat_oracle import check_scripted_chat
from conftest import BUILD, GENERATE
from k100_run import generate, row_error, served

REPORT = BUILD / "tests" / "model_hf_report.txt"
N = 8
PROMPT = [300, 301, 302]


@pytest.fixture(scope="module", autouse=True)
def fresh_report():
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("")


def write_model(tmp_path, arch, vocab, chat_template=None):
    """(directory, gguf path) of a random model of `arch` ('llama', 'qwen3' or 'qwen3moe'); the GGUF carries the
    vocabulary's chat template, the directory's tokenizer_config.json `chat_template` when given."""
    kvs_vocab, tokens, types, merges, bos, eos, _ = vocab
    moe = arch == "qwen3moe"
    spec = gguf_write.ModelSpec(arch, seed={"llama": 11, "qwen3": 12}.get(arch, 13), n_expert=4 if moe else 0,
                                n_expert_used=2 if moe else 0, n_ff=256 if moe else 512)
    tied = arch == "qwen3"
    split = hf_write.LLAMA3_SPLIT if arch == "llama" else hf_write.QWEN2_SPLIT
    pre = "llama-bpe" if arch == "llama" else "qwen2"
    kvs, t = gguf_write.random_model(spec, kvs_vocab + [("tokenizer.ggml.pre", gguf_write.string(pre))], len(tokens),
                                     optional=("tied",) if tied else ())
    directory = tmp_path / f"{arch}-hf"
    hf, gguf_tensors = {}, {}
    for name, a in t.items():
        b = hf_write.to_bf16(a)
        if "_exps." in name:  # one tensor per expert in Hugging Face checkpoints
            for e in range(a.shape[0]):
                hf[hf_write.expert_name(name, e)] = ("BF16", b[e])
        else:
            hf[hf_write.hf_name(name)] = ("BF16", b)
        w = hf_write.from_bf16(b).reshape(a.shape)  # the values the directory holds, exactly
        if arch == "llama" and name.endswith("attn_q.weight"):
            w = hf_write.permute_rows(w, spec.n_head)
        elif arch == "llama" and name.endswith("attn_k.weight"):
            w = hf_write.permute_rows(w, spec.n_kv)
        gguf_tensors[name] = w
    hf_write.write_checkpoint(directory, hf, shards=1 if arch == "llama" else 2)
    (directory / "config.json").write_text(json.dumps(hf_write.config(arch, spec, len(tokens), tied)))
    (directory / "generation_config.json").write_text(json.dumps({"bos_token_id": bos, "eos_token_id": [eos]}))
    hf_write.write_tokenizer(directory, tokens, types, merges, split, bos, eos, chat_template)
    path = tmp_path / f"{arch}.gguf"
    gguf_write.write(path, kvs, gguf_tensors)
    return directory, path



@pytest.mark.parametrize("arch", ["llama", "qwen3", "qwen3moe"])
def test_directory_matches_llama_cpp(arch, vocab, llama, tmp_path):
    directory, gguf = write_model(tmp_path, arch, vocab)
    ids, ours, out = generate(directory, PROMPT, N)
    with llama.load(gguf) as m:
        lids, theirs = m.greedy(PROMPT, N)
    scale = np.abs(theirs).max(axis=1)
    err = row_error(ours, theirs) / scale
    with open(REPORT, "a") as f:
        f.write(f"{arch:8s} bf16 HF directory, {N} greedy steps: k100lc vs llama.cpp (f32 GGUF) "
                f"{err.max():.2e} of the largest logit; tokens {'equal' if ids == lids else 'DIFFER'}\n")
    assert ids == lids, f"greedy tokens differ from llama.cpp's:\n{ids}\n{lids}"
    assert err.max() <= 1e-3, f"logits off by {err.max():.3e} of the largest"
    # the Python front end: the same command over the same library (-m DIR; k100_run gives DIR alone)
    r = subprocess.run([sys.executable, "-m", "k100lc_kernels", "generate", "-m", str(directory), "--tokens",
                        ",".join(map(str, PROMPT)), "-n", str(N), "--temp", "0", "--ignore-eos", "--ids"],
                       capture_output=True, text=True, errors="replace")
    assert r.returncode == 0, r.stderr
    assert [line for line in r.stderr.splitlines() if line.startswith("ids:")] == ["ids: " + " ".join(map(str, ids))]


def test_chat_template_of_tokenizer_config_matches_llama_cpp(vocab, llama, tmp_path):
    directory, gguf = write_model(tmp_path, "qwen3", vocab, chat_template=vocab[-1])
    check_scripted_chat(llama, [GENERATE], directory, gguf)


def chat_once(directory, *extra):
    """k100-generate -m DIR -sys S -p U: one greedy answer of up to 4 tokens (CompletedProcess)."""
    return subprocess.run([GENERATE, "-m", str(directory), "-sys", "Be brief.", "-p", "Hello there", "-n", "4",
                           "--temp", "0", *extra], capture_output=True, text=True, errors="replace", timeout=600)


def test_chat_template_forms_and_absence(vocab, tmp_path):
    named = [{"name": "tool_use", "template": "{{ tools }}"}, {"name": "default", "template": vocab[-1]}]
    directory, _ = write_model(tmp_path, "qwen3", vocab, chat_template=named)
    r = chat_once(directory)
    assert r.returncode == 0 and "chat template chatml" in r.stderr, r.stderr
    config = directory / "tokenizer_config.json"
    c = json.loads(config.read_text())
    c["chat_template"] = named[:1]
    config.write_text(json.dumps(c))
    r = chat_once(directory)
    assert r.returncode == 1 and "tokenizer_config.json" in r.stderr and "'tool_use'" in r.stderr and \
        "none named 'default'" in r.stderr, r.stderr
    del c["chat_template"]
    config.write_text(json.dumps(c))
    r = chat_once(directory)
    assert r.returncode == 1 and "tokenizer_config.json: the model has no chat_template" in r.stderr and \
        "--chat-template NAME" in r.stderr, r.stderr
    r = chat_once(directory, "--chat-template", "chatml")  # the way out the message names
    assert r.returncode == 0 and "chat template chatml" in r.stderr, r.stderr


def add_unused_tensor(directory):
    """A shard more, listed in the index, with a tensor no architecture uses; its key."""
    key = "model.layers.0.self_attn.unused_extra.weight"
    (directory / "model-extra.safetensors").write_bytes(hf_write.safetensors_bytes({key: ("F32", np.ones(4, "<f4"))}))
    index = json.loads((directory / "model.safetensors.index.json").read_text())
    index["weight_map"][key] = "model-extra.safetensors"
    (directory / "model.safetensors.index.json").write_text(json.dumps(index))
    return key


def test_server_serves_a_directory(vocab, tmp_path):
    directory, _ = write_model(tmp_path, "qwen3", vocab, chat_template=vocab[-1])
    unused = add_unused_tensor(directory)
    refused(directory, f"'{unused}'", "--allow-unused")
    want = chat_once(directory, "--allow-unused")
    assert want.returncode == 0 and f"skipped 1 unused tensor: {unused}" in want.stderr, want.stderr
    body = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello there"}],
            "max_tokens": 4, "temperature": 0}
    with served("-m", str(directory) + "/", "-c", "64", "--allow-unused") as (post, log):
        answer = post("/v1/chat/completions", body)
    assert "chat template chatml" in "".join(log)
    assert f"k100-server: skipped 1 unused tensor: {unused}" in "".join(log)
    assert answer["model"] == directory.name  # the directory's name, its trailing slash aside
    # the same Completer as k100-generate's chat: the same greedy answer
    assert answer["choices"][0]["message"]["content"] + "\n" == want.stdout


def refused(directory, *parts):
    r = subprocess.run([GENERATE, str(directory), "--tokens", "300,301", "-n", "1", "--temp", "0"],
                       capture_output=True, text=True, errors="replace")
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "error:" in r.stderr and "Traceback" not in r.stderr
    for p in parts:
        assert p in r.stderr, r.stderr
    return r.stderr


@pytest.fixture
def good(vocab, tmp_path):
    directory, _ = write_model(tmp_path, "qwen3", vocab)
    return directory



def test_unknown_architecture_is_named(good):
    hf_write.edit_config(good, architectures=["GPTNeoXForCausalLM"])
    refused(good, "config.json", "'architectures'", "GPTNeoXForCausalLM", "Qwen3ForCausalLM")


def test_other_quantisation_schemes_are_named(good):
    # compressed-tensors INT4 and NVFP4 directories run (test_hf_quantised.py); other schemes are refused by key
    hf_write.edit_config(good, quantization_config={"quant_method": "gptq", "bits": 4})
    refused(good, "'quantization_config.quant_method'", "gptq")


def test_missing_and_misshaped_tensors_are_named_by_key(good):
    index = json.loads((good / "model.safetensors.index.json").read_text())
    key = "model.layers.1.self_attn.k_norm.weight"
    shard = good / index["weight_map"][key]
    with open(shard, "rb") as f:
        h = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(h))
        data = f.read()
    # the same shard without the tensor (the data after it moved down), and the index without it
    begin, end = header[key]["data_offsets"]
    del header[key]
    for v in header.values():
        if isinstance(v, dict) and "data_offsets" in v and v["data_offsets"][0] >= end:
            v["data_offsets"] = [v["data_offsets"][0] - (end - begin), v["data_offsets"][1] - (end - begin)]
    text = json.dumps(header).encode()
    shard.write_bytes(struct.pack("<Q", len(text)) + text + data[:begin] + data[end:])
    del index["weight_map"][key]
    (good / "model.safetensors.index.json").write_text(json.dumps(index))
    refused(good, f"'{key}'", "is missing")


def test_misshaped_tensor_is_named(good):
    hf_write.edit_config(good, intermediate_size=384)
    refused(good, "model.layers.0.mlp.gate_proj.weight", "expected")


def test_bad_safetensors_are_named(good):
    index = json.loads((good / "model.safetensors.index.json").read_text())
    shard = good / sorted(set(index["weight_map"].values()))[0]
    whole = shard.read_bytes()
    shard.write_bytes(whole[:len(whole) // 2])  # truncated
    refused(good, shard.name, "past the end")
    h = struct.unpack("<Q", whole[:8])[0]
    header = json.loads(whole[8:8 + h])
    name = next(k for k in header if k != "__metadata__")
    header[name]["dtype"] = "F32"  # twice the bytes its offsets hold
    text = json.dumps(header).encode()
    shard.write_bytes(struct.pack("<Q", len(text)) + text + whole[8 + h:])
    refused(good, shard.name, f"'{name}'", "dtype/shape mismatch")


def test_missing_tokenizer_still_runs_from_ids(good):
    (good / "tokenizer.json").unlink()
    ids, _, _ = generate(good, PROMPT, 2)
    assert len(ids) == 2
