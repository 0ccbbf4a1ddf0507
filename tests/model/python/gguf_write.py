"""A small GGUF v3 writer of its own for the model tests (no k100lc code):
metadata values encoded here or copied as stored from another file
(reference_model.Gguf.raw_kv), f32 tensors from NumPy arrays (or q8_0
blocks quantised here, Q8_0 below), and random decoder models of the
architectures k100lc runs, built tensor by tensor so a test can add, drop or
reshape any of them: the attention-only families (random_model) and the
hybrid Gated DeltaNet + gated attention families qwen35, qwen35moe and
qwen3next (hybrid_model)."""
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


def u32_array(values):
    return struct.pack("<IIQ", 9, 4, len(values)) + struct.pack(f"<{len(values)}I", *values)


class Q8_0:
    """A tensor to be stored as q8_0 (GGUF type 8): per 32 values an f16 scale d = max|x| / 127 and 32 int8 codes
    round(x / d). Rows (the last NumPy axis) must be a multiple of 32 long."""
    TYPE = 8

    def __init__(self, a):
        self.a = np.asarray(a, dtype=np.float64)
        assert self.a.shape[-1] % 32 == 0, self.a.shape

    def encode(self):
        x = self.a.reshape(-1, 32)
        d = np.abs(x).max(axis=1) / 127.0
        inv = np.divide(1.0, d, out=np.zeros_like(d), where=d > 0)
        q = np.clip(np.rint(x * inv[:, None]), -127, 127).astype("<i1")
        blocks = np.zeros(x.shape[0], dtype=[("d", "<f2"), ("q", "<i1", 32)])
        blocks["d"], blocks["q"] = d.astype("<f2"), q
        return blocks.tobytes()


def write(path, kvs, tensors):
    """kvs: [(key, encoded value)]; tensors: {name: float32 array in NumPy order (GGUF dims reversed), or Q8_0}."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)))
    for key, value in kvs:
        out += _string(key) + value
    offset = 0
    blobs = []
    for name, a in tensors.items():
        if isinstance(a, Q8_0):
            dims, ttype, data = list(reversed(a.a.shape)), Q8_0.TYPE, a.encode()
        else:
            a = np.ascontiguousarray(a, dtype="<f4")
            dims, ttype, data = list(reversed(a.shape)), 0, a.tobytes()
        out += _string(name) + struct.pack(f"<I{len(dims)}QIQ", len(dims), *dims, ttype, offset)
        blobs.append((offset, data))
        offset = (offset + len(data) + ALIGN - 1) // ALIGN * ALIGN
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


class HybridSpec:
    """Hyper-parameters of a random hybrid model (qwen35, qwen35moe, qwen3next): layers of Gated DeltaNet except
    every `interval`-th, which is gated attention (n_head query heads of head_dim, n_kv KV heads, RoPE over the
    first n_rot dims); the DeltaNet layers have n_k key heads and n_v value heads of d_state, a causal conv of
    d_conv taps; MoE members have n_expert experts (n_expert_used used) of n_ff_exp and a shared expert of
    n_ff_shexp."""

    def __init__(self, arch, n_layer=4, interval=2, n_embd=128, n_head=4, n_kv=2, head_dim=64, n_rot=16, n_ff=256,
                 d_state=32, n_k=2, n_v=4, d_conv=4, n_expert=4, n_expert_used=2, n_ff_exp=128, n_ff_shexp=128,
                 sections=(3, 3, 2, 0), eps=1e-6, seed=5):
        self.__dict__.update({k: v for k, v in locals().items() if k != "self"})

    def recurrent(self, i):
        return (i + 1) % self.interval != 0

    def moe(self):
        return self.arch in ("qwen35moe", "qwen3next")


def hybrid_model(spec, vocab_kvs, n_vocab, quantise=None, legacy_ssm_in=False):
    """(kvs, tensors) of a hybrid model with every tensor llama.cpp's loader requires for it (the untied head
    included); quantise: a function mapping a weight matrix to what write() stores (e.g. Q8_0), applied to the
    matrices whose rows are a multiple of 32 long (the embedding, projections, experts); norms, biases, the conv
    and the per-head gate parameters stay f32."""
    s, a = spec, spec.arch
    rng = np.random.default_rng(s.seed)
    E, HD, V = s.n_embd, s.head_dim, n_vocab
    Q, KV = s.n_head * HD, s.n_kv * HD
    K_DIM, V_DIM = s.n_k * s.d_state, s.n_v * s.d_state
    CONV = 2 * K_DIM + V_DIM
    qz = quantise or (lambda m: m)

    def mat(*shape, gain=1.0):
        return qz(rng.normal(0.0, gain / np.sqrt(shape[-1]), shape))

    def vec(n, mean=0.0, std=0.2):
        return rng.normal(mean, std, n)

    kvs = [("general.architecture", string(a)), (f"{a}.vocab_size", u32(V)), (f"{a}.context_length", u32(4096)),
           (f"{a}.embedding_length", u32(E)), (f"{a}.block_count", u32(s.n_layer)),
           (f"{a}.attention.head_count", u32(s.n_head)), (f"{a}.attention.head_count_kv", u32(s.n_kv)),
           (f"{a}.attention.key_length", u32(HD)), (f"{a}.attention.value_length", u32(HD)),
           (f"{a}.rope.dimension_count", u32(s.n_rot)), (f"{a}.rope.freq_base", f32(10000.0)),
           (f"{a}.attention.layer_norm_rms_epsilon", f32(s.eps)),
           (f"{a}.ssm.conv_kernel", u32(s.d_conv)), (f"{a}.ssm.state_size", u32(s.d_state)),
           (f"{a}.ssm.group_count", u32(s.n_k)), (f"{a}.ssm.time_step_rank", u32(s.n_v)),
           (f"{a}.ssm.inner_size", u32(V_DIM)), (f"{a}.full_attention_interval", u32(s.interval))]
    if a != "qwen3next":
        kvs.append((f"{a}.rope.dimension_sections", u32_array(s.sections)))
    if s.moe():
        kvs += [(f"{a}.expert_count", u32(s.n_expert)), (f"{a}.expert_used_count", u32(s.n_expert_used)),
                (f"{a}.expert_feed_forward_length", u32(s.n_ff_exp)),
                (f"{a}.expert_shared_feed_forward_length", u32(s.n_ff_shexp))]
    else:
        kvs.append((f"{a}.feed_forward_length", u32(s.n_ff)))
    kvs += vocab_kvs
    t = {"token_embd.weight": mat(V, E, gain=2.0)}
    for i in range(s.n_layer):
        p = f"blk.{i}."
        t[p + "attn_norm.weight"] = vec(E, 1.0, 0.1)
        if s.recurrent(i):
            if legacy_ssm_in:  # per key head: q, k, then its value heads' v and z
                t[p + "ssm_in.weight"] = mat(2 * K_DIM + 2 * V_DIM, E)
            else:
                t[p + "attn_qkv.weight"] = mat(CONV, E)
                t[p + "attn_gate.weight"] = mat(V_DIM, E)
            t[p + "ssm_conv1d.weight"] = rng.normal(0.0, 0.5, (CONV, s.d_conv))
            t[p + "ssm_dt.bias"] = vec(s.n_v, 0.0, 0.5)
            t[p + "ssm_a"] = -np.exp(rng.normal(0.0, 0.5, s.n_v))  # stored as -exp(A_log)
            if a == "qwen3next":  # per key head: its value heads' b, then their a
                t[p + "ssm_ba.weight"] = mat(2 * s.n_v, E, gain=2.0)
            else:
                t[p + "ssm_beta.weight"] = mat(s.n_v, E, gain=2.0)
                t[p + "ssm_alpha.weight"] = mat(s.n_v, E, gain=2.0)
            t[p + "ssm_norm.weight"] = vec(s.d_state, 1.0, 0.1)
            t[p + "ssm_out.weight"] = mat(E, V_DIM)
        else:
            t[p + "attn_q.weight"] = mat(2 * Q, E)  # per head: its query rows, then its gate rows
            t[p + "attn_k.weight"] = mat(KV, E)
            t[p + "attn_v.weight"] = mat(KV, E)
            t[p + "attn_q_norm.weight"] = vec(HD, 1.0, 0.1)
            t[p + "attn_k_norm.weight"] = vec(HD, 1.0, 0.1)
            t[p + "attn_output.weight"] = mat(E, Q)
        t[p + "post_attention_norm.weight"] = vec(E, 1.0, 0.1)
        if s.moe():
            X, FE, FS = s.n_expert, s.n_ff_exp, s.n_ff_shexp
            t[p + "ffn_gate_inp.weight"] = mat(X, E, gain=2.0)
            t[p + "ffn_gate_exps.weight"] = mat(X, FE, E)
            t[p + "ffn_up_exps.weight"] = mat(X, FE, E)
            t[p + "ffn_down_exps.weight"] = mat(X, E, FE)
            t[p + "ffn_gate_inp_shexp.weight"] = vec(E, 0.0, 2.0 / np.sqrt(E))
            t[p + "ffn_gate_shexp.weight"] = mat(FS, E)
            t[p + "ffn_up_shexp.weight"] = mat(FS, E)
            t[p + "ffn_down_shexp.weight"] = mat(E, FS)
        else:
            t[p + "ffn_gate.weight"] = mat(s.n_ff, E)
            t[p + "ffn_up.weight"] = mat(s.n_ff, E)
            t[p + "ffn_down.weight"] = mat(E, s.n_ff)
    t["output_norm.weight"] = vec(E, 1.0, 0.1)
    t["output.weight"] = mat(V, E)
    return kvs, t
