"""An independent float64 NumPy forward pass of the decoder models k100lc
runs, for the model tests: its own GGUF reader (no k100lc code), weights
dequantised by ggml's dequantize_row_<type> (libggml-base from the llama
oracle), and the llama / qwen2 / qwen3 / qwen3moe layer math written out
from the architectures' definitions (RMSNorm, RoPE with llama's adjacent or
neox's split pairs and optional frequency factors, grouped-query softmax
attention, SwiGLU FFN, softmax top-k experts renormalised for qwen3moe and
for llama files with experts), with every optional tensor the architectures
allow applied where it is present: a fused Q|K|V weight and its bias, Q/K/V
biases, the attention output's and the FFN's biases, the output bias."""
import ctypes
import struct

import numpy as np

# GGUF tensor type id -> (name, elements per block, bytes per block)
TYPES = {0: ("f32", 1, 4), 1: ("f16", 1, 2), 30: ("bf16", 1, 2), 2: ("q4_0", 32, 18), 8: ("q8_0", 32, 34),
         42: ("q2_0", 64, 18), 12: ("q4_K", 256, 144), 13: ("q5_K", 256, 176), 14: ("q6_K", 256, 210),
         20: ("iq4_nl", 32, 18), 23: ("iq4_xs", 256, 136), 22: ("iq2_s", 256, 82), 21: ("iq3_s", 256, 110),
         18: ("iq3_xxs", 256, 98)}


class Gguf:
    """GGUF v2/v3: metadata dict, tensor infos, raw tensor bytes."""

    def __init__(self, path):
        self.data = open(path, "rb").read()
        self.pos = 0
        self.raw_kv = {}  # key -> its value as stored (type id and payload), for rewriting files
        magic, version = self._unpack("<4sI")
        assert magic == b"GGUF" and version in (2, 3), path
        n_tensors, n_kv = self._unpack("<QQ")
        self.meta = {}
        for _ in range(n_kv):
            key = self._string()
            start = self.pos
            (t,) = self._unpack("<I")
            self.meta[key] = self._value(t)
            self.raw_kv[key] = self.data[start:self.pos]
        self.tensors = {}
        for _ in range(n_tensors):
            name = self._string()
            (nd,) = self._unpack("<I")
            dims = list(self._unpack(f"<{nd}Q"))
            t, off = self._unpack("<IQ")
            self.tensors[name] = (t, dims, off)
        align = self.meta.get("general.alignment", 32)
        self.base = (self.pos + align - 1) // align * align

    def _unpack(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v

    def _string(self):
        (n,) = self._unpack("<Q")
        s = self.data[self.pos:self.pos + n].decode("utf-8", "surrogateescape")
        self.pos += n
        return s

    _SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}

    def _value(self, t):
        if t == 8:
            return self._string()
        if t == 9:
            et, n = self._unpack("<IQ")
            return [self._value(et) for _ in range(n)]
        return self._unpack(self._SCALARS[t])[0]

    def raw(self, name):
        t, dims, off = self.tensors[name]
        n = int(np.prod(dims))
        _, be, bb = TYPES[t]
        start = self.base + off
        return t, dims, self.data[start:start + n // be * bb]


class Dequantizer:
    """Tensors as float64 arrays in NumPy order (GGUF dims reversed), block types through ggml."""

    def __init__(self, ggml_base):
        self.ggml = ggml_base

    def __call__(self, f: Gguf, name):
        t, dims, raw = f.raw(name)
        n = int(np.prod(dims))
        tname = TYPES[t][0]
        if tname == "f32":
            out = np.frombuffer(raw, dtype="<f4").astype(np.float64)
        elif tname == "f16":
            out = np.frombuffer(raw, dtype="<f2").astype(np.float64)
        elif tname == "bf16":
            out = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        else:
            fn = getattr(self.ggml, f"dequantize_row_{tname}")
            fn.restype = None
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
            buf = np.frombuffer(raw, dtype=np.uint8).copy()
            res = np.empty(n, dtype=np.float32)
            fn(buf.ctypes.data, res.ctypes.data, n)
            out = res.astype(np.float64)
        return out.reshape(list(reversed(dims)))


def rmsnorm(x, w, eps):
    return x / np.sqrt(np.mean(x * x) + eps) * w


class ReferenceModel:
    """The forward pass in float64, one token at a time with a KV cache."""

    def __init__(self, path, ggml_base):
        f = Gguf(path)
        dq = Dequantizer(ggml_base)
        m = f.meta
        a = self.arch = m["general.architecture"]
        self.n_layer = m[f"{a}.block_count"]
        self.n_head = m[f"{a}.attention.head_count"]
        self.n_kv = m.get(f"{a}.attention.head_count_kv", self.n_head)
        self.hd = m.get(f"{a}.attention.key_length", m[f"{a}.embedding_length"] // self.n_head)
        self.n_rot = m.get(f"{a}.rope.dimension_count", self.hd)
        self.base = m.get(f"{a}.rope.freq_base", 10000.0)
        self.eps = m[f"{a}.attention.layer_norm_rms_epsilon"]
        self.neox = a != "llama"
        self.moe = m.get(f"{a}.expert_count", 0) > 0
        if self.moe:
            self.k_used = m[f"{a}.expert_used_count"]
        g = lambda n: dq(f, n)
        opt = lambda n, default=0.0: g(n) if n in f.tensors else default
        self.embd = g("token_embd.weight")
        self.out_norm = g("output_norm.weight")
        self.out = g("output.weight") if "output.weight" in f.tensors else self.embd
        self.out_bias = opt("output.bias")
        self.freq_factors = opt("rope_freqs.weight", 1.0)
        q_dim, kv_dim = self.n_head * self.hd, self.n_kv * self.hd
        self.layers = []
        for i in range(self.n_layer):
            p = f"blk.{i}."
            L = {k: g(p + k + ".weight") for k in ["attn_norm", "attn_output", "ffn_norm"]}
            if p + "attn_qkv.weight" in f.tensors:  # fused: rows q, then k, then v
                w = g(p + "attn_qkv.weight")
                b = opt(p + "attn_qkv.bias", np.zeros(q_dim + 2 * kv_dim))
                L["attn_q"], L["attn_k"], L["attn_v"] = np.split(w, [q_dim, q_dim + kv_dim])
                L["attn_q.bias"], L["attn_k.bias"], L["attn_v.bias"] = np.split(b, [q_dim, q_dim + kv_dim])
            else:
                for n in ["attn_q", "attn_k", "attn_v"]:
                    L[n] = g(p + n + ".weight")
                    L[n + ".bias"] = opt(p + n + ".bias")
            for n in ["attn_q_norm", "attn_k_norm"]:
                L[n] = opt(p + n + ".weight", None)
            names = ["ffn_gate_inp", "ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"] if self.moe else \
                ["ffn_gate", "ffn_up", "ffn_down"]
            for n in names:
                L[n] = g(p + n + ".weight")
            for n in ["attn_output", "ffn_gate", "ffn_up", "ffn_down"]:
                L[n + ".bias"] = opt(p + n + ".bias")
            self.layers.append(L)
        self.reset()

    def reset(self):
        self.k = [[] for _ in self.layers]
        self.v = [[] for _ in self.layers]
        self.pos = 0

    def rope(self, x):
        """x [heads, hd] at self.pos."""
        half = self.n_rot // 2
        i = np.arange(half)
        theta = self.pos * self.base ** (-2.0 * i / self.n_rot) / self.freq_factors
        c, s = np.cos(theta), np.sin(theta)
        y = x.copy()
        if self.neox:
            a, b = x[:, :half], x[:, half:self.n_rot]
            y[:, :half], y[:, half:self.n_rot] = a * c - b * s, a * s + b * c
        else:
            a, b = x[:, 0:self.n_rot:2], x[:, 1:self.n_rot:2]
            y[:, 0:self.n_rot:2], y[:, 1:self.n_rot:2] = a * c - b * s, a * s + b * c
        return y

    def ffn(self, L, xn):
        silu = lambda z: z / (1.0 + np.exp(-z))
        if not self.moe:
            gate = L["ffn_gate"] @ xn + L["ffn_gate.bias"]
            up = L["ffn_up"] @ xn + L["ffn_up.bias"]
            return L["ffn_down"] @ (silu(gate) * up) + L["ffn_down.bias"]
        logits = L["ffn_gate_inp"] @ xn
        p = np.exp(logits - logits.max())
        p /= p.sum()
        sel = np.argsort(-p, kind="stable")[:self.k_used]
        w = p[sel] / p[sel].sum()
        y = np.zeros_like(xn)
        for e, we in zip(sel, w):
            h = silu(L["ffn_gate_exps"][e] @ xn) * (L["ffn_up_exps"][e] @ xn)
            y += we * (L["ffn_down_exps"][e] @ h)
        return y

    def step(self, token):
        """Logits (float64 [n_vocab]) after `token` at the next position."""
        x = self.embd[token].copy()
        for li, L in enumerate(self.layers):
            xn = rmsnorm(x, L["attn_norm"], self.eps)
            q = (L["attn_q"] @ xn + L["attn_q.bias"]).reshape(self.n_head, self.hd)
            k = (L["attn_k"] @ xn + L["attn_k.bias"]).reshape(self.n_kv, self.hd)
            v = (L["attn_v"] @ xn + L["attn_v.bias"]).reshape(self.n_kv, self.hd)
            if L["attn_q_norm"] is not None:
                q = np.stack([rmsnorm(h, L["attn_q_norm"], self.eps) for h in q])
                k = np.stack([rmsnorm(h, L["attn_k_norm"], self.eps) for h in k])
            q, k = self.rope(q), self.rope(k)
            self.k[li].append(k)
            self.v[li].append(v)
            K, V = np.stack(self.k[li]), np.stack(self.v[li])  # [n_kv_rows, n_kv, hd]
            group = self.n_head // self.n_kv
            out = np.empty((self.n_head, self.hd))
            for h in range(self.n_head):
                g = h // group
                s = K[:, g, :] @ q[h] / np.sqrt(self.hd)
                p = np.exp(s - s.max())
                out[h] = (p / p.sum()) @ V[:, g, :]
            x = x + L["attn_output"] @ out.reshape(-1) + L["attn_output.bias"]
            x = x + self.ffn(L, rmsnorm(x, L["ffn_norm"], self.eps))
        self.pos += 1
        return self.out @ rmsnorm(x, self.out_norm, self.eps) + self.out_bias

    def logits_of(self, tokens):
        self.reset()
        return np.stack([self.step(t) for t in tokens])
