"""Hugging Face model directories for the tests, written with nothing but
NumPy and json (no k100lc code): safetensors files (one, or shards with
model.safetensors.index.json), config.json, tokenizer.json +
tokenizer_config.json, generation_config.json; and the names Hugging Face
checkpoints give the tensors llama.cpp's GGUF files call otherwise."""
import json
import struct
from pathlib import Path

import numpy as np

# numpy dtype -> safetensors dtype name
_DTYPES = {np.dtype("<f4"): "F32", np.dtype("<f2"): "F16", np.dtype("<u2"): "BF16", np.dtype("<i4"): "I32",
           np.dtype("<i8"): "I64", np.dtype("u1"): "U8", np.dtype("i1"): "I8"}

# GGUF tensor name tail inside a layer -> Hugging Face key tail
LAYER_NAMES = {
    "attn_norm.weight": "input_layernorm.weight",
    "attn_q.weight": "self_attn.q_proj.weight", "attn_k.weight": "self_attn.k_proj.weight",
    "attn_v.weight": "self_attn.v_proj.weight", "attn_q.bias": "self_attn.q_proj.bias",
    "attn_k.bias": "self_attn.k_proj.bias", "attn_v.bias": "self_attn.v_proj.bias",
    "attn_output.weight": "self_attn.o_proj.weight",
    "attn_q_norm.weight": "self_attn.q_norm.weight", "attn_k_norm.weight": "self_attn.k_norm.weight",
    "ffn_norm.weight": "post_attention_layernorm.weight",
    "ffn_gate.weight": "mlp.gate_proj.weight", "ffn_up.weight": "mlp.up_proj.weight",
    "ffn_down.weight": "mlp.down_proj.weight",
    "ffn_gate_inp.weight": "mlp.gate.weight",
}

QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
               r"\s*[\r\n]+|\s+(?!\S)|\s+")
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                r"\s*[\r\n]+|\s+(?!\S)|\s+")


def hf_name(gguf):
    if gguf == "token_embd.weight":
        return "model.embed_tokens.weight"
    if gguf == "output_norm.weight":
        return "model.norm.weight"
    if gguf == "output.weight":
        return "lm_head.weight"
    _, layer, tail = gguf.split(".", 2)
    return f"model.layers.{layer}.{LAYER_NAMES[tail]}"


def expert_name(gguf, e):
    """The Hugging Face key of expert e's matrix of a GGUF ffn_{gate,up,down}_exps tensor (Qwen3-MoE)."""
    _, layer, tail = gguf.split(".", 2)
    which = {"ffn_gate_exps.weight": "gate_proj", "ffn_up_exps.weight": "up_proj", "ffn_down_exps.weight": "down_proj"}
    return f"model.layers.{layer}.mlp.experts.{e}.{which[tail]}.weight"


def permute_rows(w, heads):
    """Hugging Face rotate-half rows -> GGUF Llama's interleaved pairs (llama.cpp's converter)."""
    rows, cols = w.shape
    hd = rows // heads
    return w.reshape(heads, 2, hd // 2, cols).swapaxes(1, 2).reshape(rows, cols)


def to_bf16(a):
    """bf16 bit patterns (uint16) of float32 values, rounded to nearest even."""
    u = np.ascontiguousarray(a, dtype="<f4").view("<u4").astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")


def from_bf16(b):
    return (b.astype("<u4") << 16).view("<f4")


def safetensors_bytes(tensors, metadata=None):
    """tensors: {name: (dtype name or None, array)}; dtype None takes it from the array."""
    header, blobs, at = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, (dtype, a) in tensors.items():
        a = np.ascontiguousarray(a)
        header[name] = {"dtype": dtype or _DTYPES[a.dtype], "shape": list(a.shape), "data_offsets": [at, at + a.nbytes]}
        blobs.append(a.tobytes())
        at += a.nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write_checkpoint(directory, tensors, shards=1):
    """Writes model.safetensors, or `shards` files and model.safetensors.index.json."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    names = list(tensors)
    if shards == 1:
        (directory / "model.safetensors").write_bytes(safetensors_bytes(tensors))
        return
    weight_map = {}
    for s in range(shards):
        part = names[s::shards]
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        (directory / file).write_bytes(safetensors_bytes({n: tensors[n] for n in part}))
        weight_map.update({n: file for n in part})
    (directory / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": 0}, "weight_map": weight_map}))


def write_tokenizer(directory, tokens, types, merges, split, bos, eos, chat_template=None):
    """tokenizer.json of a byte-level BPE vocabulary (types: GGUF token types; 3 = control, an added special
    token) split by `split` (None: GPT-2's ByteLevel regex), and tokenizer_config.json naming BOS and EOS (and
    with `chat_template`, a Jinja text or transformers' list of named templates, that too)."""
    vocab = {t: i for i, t in enumerate(tokens) if types[i] != 3}
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
              "special": True} for i, t in enumerate(tokens) if types[i] == 3]
    if split is None:
        pre = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    else:
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": split}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]}
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
           "pre_tokenizer": pre,
           "post_processor": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
           "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                     "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                     "ignore_merges": split == LLAMA3_SPLIT, "vocab": vocab, "merges": [m.split(" ", 1) for m in merges]}}
    directory = Path(directory)
    (directory / "tokenizer.json").write_text(json.dumps(doc, ensure_ascii=False))
    config = {"bos_token": tokens[bos], "eos_token": tokens[eos], "add_bos_token": False, "add_eos_token": False}
    if chat_template is not None:
        config["chat_template"] = chat_template
    (directory / "tokenizer_config.json").write_text(json.dumps(config))


def edit_config(directory, **changes):
    """config.json of `directory` with these keys set."""
    c = json.loads((Path(directory) / "config.json").read_text())
    c.update(changes)
    (Path(directory) / "config.json").write_text(json.dumps(c))


def config(arch, spec, n_vocab, tied):
    """config.json of a model of gguf_write.ModelSpec `spec` ("llama", "qwen3" or "qwen3moe")."""
    names = {"llama": "LlamaForCausalLM", "qwen3": "Qwen3ForCausalLM", "qwen3moe": "Qwen3MoeForCausalLM"}
    c = {"architectures": [names[arch]],
         "model_type": arch, "hidden_act": "silu", "hidden_size": spec.n_embd,
         "num_hidden_layers": spec.n_layer, "num_attention_heads": spec.n_head,
         "num_key_value_heads": spec.n_kv, "head_dim": spec.head_dim, "intermediate_size": spec.n_ff,
         "vocab_size": n_vocab, "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
         "rope_scaling": None, "tie_word_embeddings": tied, "torch_dtype": "bfloat16"}
    if arch != "llama":
        c.update({"attention_bias": False, "use_sliding_window": False, "sliding_window": None})
    if arch == "qwen3moe":
        c.update({"num_experts": spec.n_expert, "num_experts_per_tok": spec.n_expert_used,
                  "moe_intermediate_size": spec.n_ff, "norm_topk_prob": True, "decoder_sparse_step": 1,
                  "mlp_only_layers": []})
    return c


# ---------------------------------------------------------------------------
# 4-bit checkpoints (compressed-tensors): the packers of the formats, each
# returning the tensors of one layer and the weights they decode to (float64,
# the values an exact engine multiplies by).

QUANTISED_LINEARS = ("attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight", "ffn_gate.weight",
                     "ffn_up.weight", "ffn_down.weight")


def pack_int4(w):
    """compressed-tensors INT4 group 128 ("pack-quantized") of w [N, K]: ({tail: (dtype, array)}, dequantised).
    scale = max|w| / 7 per row and 128 columns rounded to bf16 (1 for an all-zero group); code = clip(rint(w /
    scale) + 8, 0, 15), eight offset-binary codes a little-endian int32, the smaller k in the low nibble."""
    n, k = w.shape
    g = w.reshape(n, k // 128, 128).astype(np.float64)
    amax = np.abs(g).max(axis=2)
    scale_bits = to_bf16(np.where(amax == 0, 1.0, amax / 7.0).astype(np.float32))
    scale = from_bf16(scale_bits).astype(np.float64)
    codes = np.clip(np.rint(g / scale[:, :, None]) + 8, 0, 15).astype(np.uint32).reshape(n, k)
    words = np.zeros((n, k // 8), np.uint32)
    for j in range(8):
        words |= codes[:, j::8] << np.uint32(4 * j)
    deq = ((codes.reshape(n, k // 128, 128).astype(np.float64) - 8) * scale[:, :, None]).reshape(n, k)
    return {".weight_packed": ("I32", words.view("<i4")), ".weight_scale": ("BF16", scale_bits),
            ".weight_shape": ("I64", np.array([n, k], "<i8"))}, deq


E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
# OCP FP8 E4M3 by code 0..0x7E (0x7F is NaN): exponent bias 7, subnormals at exponent 0
E4M3 = np.array([(m / 8) * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
                 for e in range(16) for m in range(8)][:127])


def pack_nvfp4(w):
    """compressed-tensors NVFP4 ("nvfp4-pack-quantized") of w [N, K]: ({tail: (dtype, array)}, dequantised).
    global = 448 * 6 / max|w| (a divisor, as the checkpoints store it); per 16 columns the E4M3 scale nearest
    max|w| / 6 * global; codes the nearest E2M1 of w * global / scale (bit 3 the sign), even k in the low nibble;
    w = E2M1 * E4M3 / global."""
    n, k = w.shape
    g = w.reshape(n, k // 16, 16).astype(np.float64)
    amax = float(np.abs(w).max())
    glob = np.float32(448.0 * 6.0 / amax if amax > 0 else 1.0)
    target = np.abs(g).max(axis=2) / 6.0 * float(glob)
    sc = np.abs(target[:, :, None] - E4M3[None, None, :]).argmin(axis=2).astype(np.uint8)
    sval = E4M3[sc]
    v = np.where(sval[:, :, None] > 0, g * float(glob) / np.where(sval > 0, sval, 1.0)[:, :, None], 0.0)
    mag = np.abs(np.abs(v)[..., None] - E2M1).argmin(axis=-1)
    codes = (mag | np.where(v < 0, 8, 0)).astype(np.uint8).reshape(n, k)
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    signed = np.where(codes & 8, -1.0, 1.0) * E2M1[codes & 7]
    deq = (signed.reshape(n, k // 16, 16) * sval[:, :, None] / float(glob)).reshape(n, k)
    return {".weight_packed": ("U8", packed), ".weight_scale": ("F8_E4M3", sc),
            ".weight_global_scale": ("F32", np.array([glob], "<f4"))}, deq


def quantization_config(scheme):
    """config.json's quantization_config of compressed-tensors INT4 ("int4") or NVFP4 ("nvfp4"), lm_head left
    unquantised."""
    int4 = scheme == "int4"
    weights = {"num_bits": 4, "type": "int" if int4 else "float", "symmetric": True,
               "group_size": 128 if int4 else 16, "strategy": "group" if int4 else "tensor_group",
               "dynamic": False, "actorder": None, "observer": "minmax"}
    return {"quant_method": "compressed-tensors", "format": "pack-quantized" if int4 else "nvfp4-pack-quantized",
            "quantization_status": "compressed", "ignore": ["lm_head"],
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights, "input_activations": None}}}
