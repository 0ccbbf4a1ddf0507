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
    """RMSNorm over the last axis (each row of a batch on its own)."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


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
        if not self.moe:
            gate = L["ffn_gate"] @ xn + L["ffn_gate.bias"]
            up = L["ffn_up"] @ xn + L["ffn_up.bias"]
            return L["ffn_down"] @ (silu(gate) * up) + L["ffn_down.bias"]
        return routed_experts(L, xn, self.k_used)

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

    def rope_rows(self, x, pos):
        """x [rows, heads, hd] at positions pos [rows]."""
        half = self.n_rot // 2
        i = np.arange(half)
        theta = pos[:, None] * self.base ** (-2.0 * i / self.n_rot) / self.freq_factors  # [rows, half]
        c, s = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
        y = x.copy()
        if self.neox:
            a, b = x[:, :, :half], x[:, :, half:self.n_rot]
            y[:, :, :half], y[:, :, half:self.n_rot] = a * c - b * s, a * s + b * c
        else:
            a, b = x[:, :, 0:self.n_rot:2], x[:, :, 1:self.n_rot:2]
            y[:, :, 0:self.n_rot:2], y[:, :, 1:self.n_rot:2] = a * c - b * s, a * s + b * c
        return y

    def prompt_logits(self, tokens, rows=None, chunk=512):
        """Logits (float64 [len(rows), n_vocab]) after each position in `rows` (default: all) of `tokens`, every
        position's layer computed at once with causal attention (query row i sees key rows 0..i), queries taken
        `chunk` rows at a time; the same mathematics as step() without the per-token loop, for long prompts."""
        n = len(tokens)
        pos = np.arange(n)
        x = self.embd[np.asarray(tokens)].copy()  # [n, E]
        group = self.n_head // self.n_kv
        for L in self.layers:
            xn = rmsnorm(x, L["attn_norm"], self.eps)
            q = (xn @ L["attn_q"].T + L["attn_q.bias"]).reshape(n, self.n_head, self.hd)
            k = (xn @ L["attn_k"].T + L["attn_k.bias"]).reshape(n, self.n_kv, self.hd)
            v = (xn @ L["attn_v"].T + L["attn_v.bias"]).reshape(n, self.n_kv, self.hd)
            if L["attn_q_norm"] is not None:
                q = rmsnorm(q, L["attn_q_norm"], self.eps)
                k = rmsnorm(k, L["attn_k_norm"], self.eps)
            q, k = self.rope_rows(q, pos), self.rope_rows(k, pos)
            out = np.empty((n, self.n_head, self.hd))
            for r0 in range(0, n, chunk):
                r1 = min(n, r0 + chunk)
                for h in range(self.n_head):
                    g = h // group
                    s = q[r0:r1, h, :] @ k[:r1, g, :].T / np.sqrt(self.hd)  # [r1 - r0, r1]
                    s[pos[r0:r1, None] < pos[None, :r1]] = -np.inf
                    p = np.exp(s - s.max(axis=1, keepdims=True))
                    out[r0:r1, h, :] = (p / p.sum(axis=1, keepdims=True)) @ v[:r1, g, :]
            x = x + out.reshape(n, -1) @ L["attn_output"].T + L["attn_output.bias"]
            xn = rmsnorm(x, L["ffn_norm"], self.eps)
            x = x + (np.stack([self.ffn(L, r) for r in xn]) if self.moe else self._ffn_rows(L, xn))
        sel = pos if rows is None else np.asarray(rows)
        return rmsnorm(x[sel], self.out_norm, self.eps) @ self.out.T + self.out_bias

    def _ffn_rows(self, L, xn):
        gate = xn @ L["ffn_gate"].T + L["ffn_gate.bias"]
        up = xn @ L["ffn_up"].T + L["ffn_up.bias"]
        return (silu(gate) * up) @ L["ffn_down"].T + L["ffn_down.bias"]


def routed_experts(L, xn, k_used):
    """Softmax over all experts' router logits, the top k_used renormalised, their SwiGLU outputs weighted."""
    logits = L["ffn_gate_inp"] @ xn
    p = np.exp(logits - logits.max())
    p /= p.sum()
    sel = np.argsort(-p, kind="stable")[:k_used]
    w = p[sel] / p[sel].sum()
    y = np.zeros_like(xn)
    for e, we in zip(sel, w):
        h = silu(L["ffn_gate_exps"][e] @ xn) * (L["ffn_up_exps"][e] @ xn)
        y += we * (L["ffn_down_exps"][e] @ h)
    return y


def silu(z):
    return z / (1.0 + np.exp(-z))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def softplus(z):
    return np.where(z > 20.0, z, np.log1p(np.exp(np.minimum(z, 20.0))))


class HybridReferenceModel:
    """The float64 forward pass of the hybrid architectures (qwen35, qwen35moe, qwen3next), one token at a time:
    Gated DeltaNet layers stepping their recurrence (conv state of the last d_conv - 1 raw input rows, a
    d_state x d_state matrix per value head) and gated attention layers with a KV cache, written out from the
    architectures' definitions:

    * DeltaNet: [q|k|v] = W_qkv x and z = W_gate x (or both from the legacy ssm_in, rows per key head q, k, v, z);
      b, a per value head from ssm_beta / ssm_alpha (qwen3next: ssm_ba, per key head its value heads' b then a);
      causal depthwise conv over the last d_conv rows (tap d_conv - 1 the current one, no bias), SiLU; q and k
      L2-normalised per head (x / max(|x|, eps)); beta = sigmoid(b), decay = exp(ssm_a * softplus(a + dt_bias));
      value head h reads key head h mod n_k (qwen35*) or h // (n_v / n_k) (qwen3next); S = decay S,
      S += beta (v - S k) k^T, o = S q / sqrt(d_state); RMSNorm per head (one shared weight) times SiLU(z);
      ssm_out.
    * Attention: attn_q rows per head [query | gate]; q, k RMSNorm per head; NeoX RoPE over the first n_rot dims
      (qwen35*: interleaved multi-section, text positions (p, p, p, 0)); softmax attention scaled by
      1/sqrt(head_dim); times sigmoid(gate); attn_output.
    * Residuals around both, post_attention_norm before the FFN: SwiGLU (qwen35) or softmax top-k experts
      renormalised plus the shared expert times sigmoid(w . x) (qwen35moe, qwen3next).
    One epsilon (attention.layer_norm_rms_epsilon) for every RMS and L2 norm; the norms' weights used as stored."""

    def __init__(self, path, ggml_base):
        f = Gguf(path)
        dq = Dequantizer(ggml_base)
        m = f.meta
        a = self.arch = m["general.architecture"]
        g = lambda n: dq(f, n)
        self.n_layer = m[f"{a}.block_count"]
        self.n_head = m[f"{a}.attention.head_count"]
        self.n_kv = m[f"{a}.attention.head_count_kv"]
        self.hd = m[f"{a}.attention.key_length"]
        self.n_rot = m[f"{a}.rope.dimension_count"]
        self.base = m.get(f"{a}.rope.freq_base", 10000.0)
        self.eps = m[f"{a}.attention.layer_norm_rms_epsilon"]
        self.sections = list(m[f"{a}.rope.dimension_sections"]) if a != "qwen3next" else None
        self.d_conv = m[f"{a}.ssm.conv_kernel"]
        self.ds = m[f"{a}.ssm.state_size"]
        self.n_k = m[f"{a}.ssm.group_count"]
        self.n_v = m[f"{a}.ssm.time_step_rank"]
        interval = m.get(f"{a}.full_attention_interval", 4)
        self.recurrent = [(i + 1) % interval != 0 for i in range(self.n_layer)]
        self.moe = a in ("qwen35moe", "qwen3next")
        if self.moe:
            self.k_used = m[f"{a}.expert_used_count"]
        self.embd = g("token_embd.weight")
        self.out_norm = g("output_norm.weight")
        self.out = g("output.weight") if "output.weight" in f.tensors else self.embd
        nk, nv, ds, r = self.n_k, self.n_v, self.ds, self.n_v // self.n_k
        self.layers = []
        for i in range(self.n_layer):
            p = f"blk.{i}."
            L = {"attn_norm": g(p + "attn_norm.weight"), "post_norm": g(p + "post_attention_norm.weight")}
            if self.recurrent[i]:
                if p + "ssm_in.weight" in f.tensors:
                    w = g(p + "ssm_in.weight").reshape(nk, 2 * ds + 2 * r * ds, -1)
                    q, k, v, z = np.split(w, [ds, 2 * ds, 2 * ds + r * ds], axis=1)
                    L["qkv"] = np.concatenate([x.reshape(-1, w.shape[-1]) for x in (q, k, v)])
                    L["gate"] = z.reshape(-1, w.shape[-1])
                else:
                    L["qkv"], L["gate"] = g(p + "attn_qkv.weight"), g(p + "attn_gate.weight")
                if p + "ssm_ba.weight" in f.tensors:
                    ba = g(p + "ssm_ba.weight").reshape(nk, 2 * r, -1)
                    L["beta"], L["alpha"] = ba[:, :r].reshape(nv, -1), ba[:, r:].reshape(nv, -1)
                else:
                    L["beta"], L["alpha"] = g(p + "ssm_beta.weight"), g(p + "ssm_alpha.weight")
                for n in ["ssm_conv1d.weight", "ssm_dt.bias", "ssm_a", "ssm_norm.weight", "ssm_out.weight"]:
                    L[n.split(".")[0]] = g(p + n)
            else:
                for n in ["attn_q", "attn_k", "attn_v", "attn_q_norm", "attn_k_norm", "attn_output"]:
                    L[n] = g(p + n + ".weight")
            if self.moe:
                for n in ["ffn_gate_inp", "ffn_gate_exps", "ffn_up_exps", "ffn_down_exps", "ffn_gate_inp_shexp",
                          "ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp"]:
                    L[n] = g(p + n + ".weight")
            else:
                for n in ["ffn_gate", "ffn_up", "ffn_down"]:
                    L[n] = g(p + n + ".weight")
            self.layers.append(L)
        self.reset()

    def reset(self):
        conv_dim = 2 * self.n_k * self.ds + self.n_v * self.ds
        self.conv = [np.zeros((self.d_conv - 1, conv_dim)) for _ in self.layers]
        self.state = [np.zeros((self.n_v, self.ds, self.ds)) for _ in self.layers]  # [head][v dim][k dim]
        self.k = [[] for _ in self.layers]
        self.v = [[] for _ in self.layers]
        self.pos = 0

    def rope_positions(self):
        """The position each rotated pair i < n_rot / 2 turns by: p, or (qwen35*, interleaved sections) 0 for
        pairs of the fourth section or past the first three."""
        half = self.n_rot // 2
        if self.sections is None:
            return np.full(half, float(self.pos))
        s = self.sections
        total = sum(s)
        out = np.empty(half)
        for i in range(half):
            sector = i % total
            text = (sector % 3 == 0 and sector < 3 * s[0]) or (sector % 3 == 1 and sector < 3 * s[1]) or \
                (sector % 3 == 2 and sector < 3 * s[2])
            out[i] = self.pos if text else 0.0
        return out

    def rope(self, x):
        half = self.n_rot // 2
        theta = self.rope_positions() * self.base ** (-2.0 * np.arange(half) / self.n_rot)
        c, s = np.cos(theta), np.sin(theta)
        y = x.copy()
        a, b = x[:, :half], x[:, half:self.n_rot]
        y[:, :half], y[:, half:self.n_rot] = a * c - b * s, a * s + b * c
        return y

    def l2(self, x):
        return x / np.maximum(np.sqrt(np.sum(x * x, axis=-1, keepdims=True)), self.eps)

    def delta_net(self, li, L, xn):
        nk, nv, ds = self.n_k, self.n_v, self.ds
        mixed = L["qkv"] @ xn
        z = (L["gate"] @ xn).reshape(nv, ds)
        window = np.vstack([self.conv[li], mixed[None, :]])  # [d_conv][channels], the last row this token's
        self.conv[li] = window[1:]
        conv = silu(np.einsum("cj,jc->c", L["ssm_conv1d"], window))
        q = self.l2(conv[:nk * ds].reshape(nk, ds))
        k = self.l2(conv[nk * ds:2 * nk * ds].reshape(nk, ds))
        v = conv[2 * nk * ds:].reshape(nv, ds)
        beta = sigmoid(L["beta"] @ xn)
        decay = np.exp(L["ssm_a"] * softplus(L["alpha"] @ xn + L["ssm_dt"]))
        out = np.empty((nv, ds))
        for h in range(nv):
            kh = h // (nv // nk) if self.arch == "qwen3next" else h % nk
            S = self.state[li][h] * decay[h]
            S += np.outer(beta[h] * (v[h] - S @ k[kh]), k[kh])
            self.state[li][h] = S
            o = S @ q[kh] / np.sqrt(ds)
            out[h] = rmsnorm(o, L["ssm_norm"], self.eps) * silu(z[h])
        return L["ssm_out"] @ out.reshape(-1)

    def attention(self, li, L, xn):
        hd = self.hd
        qg = (L["attn_q"] @ xn).reshape(self.n_head, 2 * hd)
        q, gate = qg[:, :hd], qg[:, hd:]
        k = (L["attn_k"] @ xn).reshape(self.n_kv, hd)
        v = (L["attn_v"] @ xn).reshape(self.n_kv, hd)
        q = self.rope(np.stack([rmsnorm(h, L["attn_q_norm"], self.eps) for h in q]))
        k = self.rope(np.stack([rmsnorm(h, L["attn_k_norm"], self.eps) for h in k]))
        self.k[li].append(k)
        self.v[li].append(v)
        K, V = np.stack(self.k[li]), np.stack(self.v[li])
        group = self.n_head // self.n_kv
        out = np.empty((self.n_head, hd))
        for h in range(self.n_head):
            s = K[:, h // group, :] @ q[h] / np.sqrt(hd)
            p = np.exp(s - s.max())
            out[h] = (p / p.sum()) @ V[:, h // group, :]
        return L["attn_output"] @ (out * sigmoid(gate)).reshape(-1)

    def ffn(self, L, xn):
        if not self.moe:
            return L["ffn_down"] @ (silu(L["ffn_gate"] @ xn) * (L["ffn_up"] @ xn))
        y = routed_experts(L, xn, self.k_used)
        shared = L["ffn_down_shexp"] @ (silu(L["ffn_gate_shexp"] @ xn) * (L["ffn_up_shexp"] @ xn))
        return y + sigmoid(L["ffn_gate_inp_shexp"] @ xn) * shared

    def step(self, token):
        """Logits (float64 [n_vocab]) after `token` at the next position."""
        x = self.embd[token].copy()
        for li, L in enumerate(self.layers):
            xn = rmsnorm(x, L["attn_norm"], self.eps)
            x = x + (self.delta_net(li, L, xn) if self.recurrent[li] else self.attention(li, L, xn))
            x = x + self.ffn(L, rmsnorm(x, L["post_norm"], self.eps))
        self.pos += 1
        return self.out @ rmsnorm(x, self.out_norm, self.eps)

    def logits_of(self, tokens):
        self.reset()
        return np.stack([self.step(t) for t in tokens])
