"""A small GGUF v3 writer of its own for the model tests (no k100lc code):
metadata values encoded here or copied as stored from another file
(reference_model.Gguf.raw_kv), f32 tensors from NumPy arrays, and random
decoder models of the architectures k100lc runs, built tensor by tensor so
a test can add, drop or reshape any of them."""
import struct

import numpy as np

ALIGN = 32


def _string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def u32(v):
    return struct.pack("<II", 4, int(v))


def f32(v):
    return struct.pack("<If", 6, float(v))


def string(s):
    return struct.pack("<I", 8) + _string(s)


def write(path, kvs, tensors):
    """kvs: [(key, encoded value)]; tensors: {name: float32 array in NumPy order (GGUF dims reversed)}."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)))
    for key, value in kvs:
        out += _string(key) + value
    offset = 0
    blobs = []
    for name, a in tensors.items():
        a = np.ascontiguousarray(a, dtype="<f4")
        dims = list(reversed(a.shape))
        out += _string(name) + struct.pack(f"<I{len(dims)}QIQ", len(dims), *dims, 0, offset)
        blobs.append((offset, a.tobytes()))
        offset = (offset + a.nbytes + ALIGN - 1) // ALIGN * ALIGN
    out += bytes(-len(out) % ALIGN)
    base = len(out)
    for at, b in blobs:
        out += bytes(base + at - len(out)) + b
    with open(path, "wb") as f:
        f.write(out)


class ModelSpec:
    """Hyper-parameters of a random model (llama-style defaults: 2 layers, dim 256, 4 / 2 heads of 64)."""

    def __init__(self, arch, n_layer=2, n_embd=256, n_head=4, n_kv=2, head_dim=64, n_ff=512, n_expert=0,
                 n_expert_used=0, seed=1):
        self.arch, self.n_layer, self.n_embd, self.n_head, self.n_kv = arch, n_layer, n_embd, n_head, n_kv
        self.head_dim, self.n_ff, self.n_expert, self.n_expert_used, self.seed = head_dim, n_ff, n_expert, \
            n_expert_used, seed


def random_model(spec, vocab_kvs, n_vocab, fused_qkv=False, optional=()):
    """(kvs, tensors) of a model: every tensor the architecture requires, plus the named optional ones
    ("qkv_bias", "attn_output.bias", "ffn_gate.bias", "ffn_up.bias", "ffn_down.bias", "rope_freqs",
    "output.bias", "tied": no output.weight); fused_qkv: one attn_qkv.weight instead of q, k, v."""
    a, s = spec.arch, spec
    rng = np.random.default_rng(s.seed)
    opt_rng = np.random.default_rng(s.seed + 1_000_003)  # the optional tensors: the others the same without them
    E, HD, V, F = s.n_embd, s.head_dim, n_vocab, s.n_ff
    Q, KV = s.n_head * HD, s.n_kv * HD

    def mat(*shape, gain=1.0):
        return rng.normal(0.0, gain / np.sqrt(shape[-1]), shape)

    def vec(n, mean=0.0, std=0.2, r=rng):
        return r.normal(mean, std, n)

    def bias(n, std=0.2):
        return vec(n, 0.0, std, opt_rng)

    kvs = [("general.architecture", string(a)), (f"{a}.vocab_size", u32(V)), (f"{a}.context_length", u32(256)),
           (f"{a}.embedding_length", u32(E)), (f"{a}.block_count", u32(s.n_layer)),
           (f"{a}.feed_forward_length", u32(F)), (f"{a}.attention.head_count", u32(s.n_head)),
           (f"{a}.attention.head_count_kv", u32(s.n_kv)), (f"{a}.attention.key_length", u32(HD)),
           (f"{a}.attention.value_length", u32(HD)), (f"{a}.rope.dimension_count", u32(HD)),
           (f"{a}.rope.freq_base", f32(10000.0)), (f"{a}.attention.layer_norm_rms_epsilon", f32(1e-5))]
    if s.n_expert:
        kvs += [(f"{a}.expert_count", u32(s.n_expert)), (f"{a}.expert_used_count", u32(s.n_expert_used))]
        if a == "qwen3moe":
            kvs.append((f"{a}.expert_feed_forward_length", u32(F)))
    kvs += vocab_kvs
    t = {"token_embd.weight": mat(V, E, gain=2.0)}
    if "rope_freqs" in optional:
        t["rope_freqs.weight"] = opt_rng.uniform(1.0, 8.0, HD // 2)
    for i in range(s.n_layer):
        p = f"blk.{i}."
        t[p + "attn_norm.weight"] = vec(E, 1.0, 0.1)
        if fused_qkv:
            t[p + "attn_qkv.weight"] = mat(Q + 2 * KV, E)
            if "qkv_bias" in optional:
                t[p + "attn_qkv.bias"] = bias(Q + 2 * KV)
        else:
            for n, rows in [("attn_q", Q), ("attn_k", KV), ("attn_v", KV)]:
                t[p + n + ".weight"] = mat(rows, E)
            if "qkv_bias" in optional:
                for n, rows in [("attn_q", Q), ("attn_k", KV), ("attn_v", KV)]:
                    t[p + n + ".bias"] = bias(rows)
        if a in ("qwen3", "qwen3moe"):
            t[p + "attn_q_norm.weight"] = vec(HD, 1.0, 0.1)
            t[p + "attn_k_norm.weight"] = vec(HD, 1.0, 0.1)
        t[p + "attn_output.weight"] = mat(E, Q)
        if "attn_output.bias" in optional:
            t[p + "attn_output.bias"] = bias(E)
        t[p + "ffn_norm.weight"] = vec(E, 1.0, 0.1)
        if s.n_expert:
            X = s.n_expert
            t[p + "ffn_gate_inp.weight"] = mat(X, E, gain=2.0)
            t[p + "ffn_gate_exps.weight"] = mat(X, F, E)
            t[p + "ffn_up_exps.weight"] = mat(X, F, E)
            t[p + "ffn_down_exps.weight"] = mat(X, E, F)
        else:
            t[p + "ffn_gate.weight"] = mat(F, E)
            t[p + "ffn_up.weight"] = mat(F, E)
            t[p + "ffn_down.weight"] = mat(E, F)
            for n, rows in [("ffn_gate", F), ("ffn_up", F), ("ffn_down", E)]:
                if n + ".bias" in optional:
                    t[p + n + ".bias"] = bias(rows)
    t["output_norm.weight"] = vec(E, 1.0, 0.1)
    if "tied" not in optional:
        t["output.weight"] = mat(V, E)
    if "output.bias" in optional:
        t["output.bias"] = bias(V, 0.5)
    return kvs, t
