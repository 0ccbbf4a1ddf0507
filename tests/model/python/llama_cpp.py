"""llama.cpp (libllama from the npm package node-llama-cpp, installed by
scripts/install-llama-oracle.sh into <build>/oracles/llama) as a test oracle
for whole models, through ctypes. CPU backend, f32 KV cache, flash attention
off (ORACLES.md section 8). The product never loads it."""
import ctypes
import os
from pathlib import Path

import numpy as np

BUILD = Path(os.environ.get("K100_BUILD_DIR", Path(__file__).resolve().parents[3] / "build"))
BIN_DIR = Path(os.environ.get("K100_LLAMA_BIN_DIR") or
               BUILD / "oracles/llama/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64")

GGML_TYPE_F32 = 0
FLASH_ATTN_DISABLED = 0


class ModelParams(ctypes.Structure):  # struct llama_model_params, 80 bytes in this build
    _fields_ = [("devices", ctypes.c_void_p), ("tensor_buft_overrides", ctypes.c_void_p),
                ("n_gpu_layers", ctypes.c_int32), ("split_mode", ctypes.c_int32), ("load_mode", ctypes.c_int32),
                ("lazy_mode", ctypes.c_int32), ("main_gpu", ctypes.c_int32), ("tensor_split", ctypes.c_void_p),
                ("progress_callback", ctypes.c_void_p), ("progress_callback_user_data", ctypes.c_void_p),
                ("kv_overrides", ctypes.c_void_p), ("vocab_only", ctypes.c_bool), ("check_tensors", ctypes.c_bool),
                ("use_extra_bufts", ctypes.c_bool), ("no_host", ctypes.c_bool), ("no_alloc", ctypes.c_bool),
                ("load_mtp", ctypes.c_bool)]


class ContextParams(ctypes.Structure):  # struct llama_context_params, 160 bytes in this build
    _fields_ = [("n_ctx", ctypes.c_uint32), ("n_batch", ctypes.c_uint32), ("n_ubatch", ctypes.c_uint32),
                ("n_seq_max", ctypes.c_uint32), ("n_rs_seq", ctypes.c_uint32), ("n_outputs_max", ctypes.c_uint32),
                ("n_outputs_max_per_seq", ctypes.c_uint32), ("n_threads", ctypes.c_int32),
                ("n_threads_batch", ctypes.c_int32), ("ctx_type", ctypes.c_int32),
                ("rope_scaling_type", ctypes.c_int32), ("pooling_type", ctypes.c_int32),
                ("attention_type", ctypes.c_int32), ("flash_attn_type", ctypes.c_int32),
                ("rope_freq_base", ctypes.c_float), ("rope_freq_scale", ctypes.c_float),
                ("yarn_ext_factor", ctypes.c_float), ("yarn_attn_factor", ctypes.c_float),
                ("yarn_beta_fast", ctypes.c_float), ("yarn_beta_slow", ctypes.c_float),
                ("yarn_orig_ctx", ctypes.c_uint32), ("defrag_thold", ctypes.c_float),
                ("cb_eval", ctypes.c_void_p), ("cb_eval_user_data", ctypes.c_void_p),
                ("type_k", ctypes.c_int32), ("type_v", ctypes.c_int32),
                ("abort_callback", ctypes.c_void_p), ("abort_callback_data", ctypes.c_void_p),
                ("embeddings", ctypes.c_bool), ("offload_kqv", ctypes.c_bool), ("no_perf", ctypes.c_bool),
                ("op_offload", ctypes.c_bool), ("swa_full", ctypes.c_bool), ("kv_unified", ctypes.c_bool),
                ("samplers", ctypes.c_void_p), ("n_samplers", ctypes.c_size_t), ("ctx_other", ctypes.c_void_p)]


class Batch(ctypes.Structure):  # struct llama_batch
    _fields_ = [("n_tokens", ctypes.c_int32), ("token", ctypes.POINTER(ctypes.c_int32)),
                ("embd", ctypes.c_void_p), ("pos", ctypes.c_void_p), ("n_seq_id", ctypes.c_void_p),
                ("seq_id", ctypes.c_void_p), ("logits", ctypes.c_void_p)]


assert ctypes.sizeof(ModelParams) == 80 and ctypes.sizeof(ContextParams) == 160

_LOG = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_log_lines = []


@_LOG
def _capture(level, text, user):
    if text:
        _log_lines.append(text.decode("utf-8", "replace"))


class Llama:
    """The loaded libraries; load() gives a Model."""

    def __init__(self):
        self.ggml = ctypes.CDLL(str(BIN_DIR / "libggml.v0.4.0.so"), mode=ctypes.RTLD_GLOBAL)
        self.lib = ctypes.CDLL(str(BIN_DIR / "libllama.v0.4.0.so"))
        L = self.lib
        L.llama_log_set.argtypes = [_LOG, ctypes.c_void_p]
        L.llama_log_set(_capture, None)
        self.ggml.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
        self.ggml.ggml_backend_load_all_from_path(str(BIN_DIR).encode())
        L.llama_model_default_params.restype = ModelParams
        L.llama_context_default_params.restype = ContextParams
        L.llama_model_load_from_file.argtypes = [ctypes.c_char_p, ModelParams]
        L.llama_model_load_from_file.restype = ctypes.c_void_p
        L.llama_model_free.argtypes = [ctypes.c_void_p]
        L.llama_init_from_model.argtypes = [ctypes.c_void_p, ContextParams]
        L.llama_init_from_model.restype = ctypes.c_void_p
        L.llama_free.argtypes = [ctypes.c_void_p]
        L.llama_batch_get_one.argtypes = [ctypes.POINTER(ctypes.c_int32), ctypes.c_int32]
        L.llama_batch_get_one.restype = Batch
        L.llama_decode.argtypes = [ctypes.c_void_p, Batch]
        L.llama_decode.restype = ctypes.c_int32
        L.llama_get_logits_ith.argtypes = [ctypes.c_void_p, ctypes.c_int32]
        L.llama_get_logits_ith.restype = ctypes.POINTER(ctypes.c_float)
        L.llama_model_get_vocab.argtypes = [ctypes.c_void_p]
        L.llama_model_get_vocab.restype = ctypes.c_void_p
        L.llama_vocab_n_tokens.argtypes = [ctypes.c_void_p]
        L.llama_vocab_n_tokens.restype = ctypes.c_int32
        L.llama_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32),
                                     ctypes.c_int32, ctypes.c_bool, ctypes.c_bool]
        L.llama_tokenize.restype = ctypes.c_int32

    def load(self, path, n_ctx=128):
        return Model(self, path, n_ctx)


class Model:
    """One model and one context: decode tokens one at a time, read logits."""

    def __init__(self, llama, path, n_ctx):
        self.L = llama.lib
        _log_lines.clear()
        mp = self.L.llama_model_default_params()
        mp.n_gpu_layers = 0
        self.model = self.L.llama_model_load_from_file(str(path).encode(), mp)
        if not self.model:
            raise RuntimeError(f"libllama refused {path}:\n" + "".join(_log_lines[-20:]))
        cp = self.L.llama_context_default_params()
        cp.n_ctx = n_ctx
        cp.n_batch = n_ctx
        cp.n_ubatch = n_ctx
        # one thread: a tiny model gains nothing from more, and spinning threads
        # on a loaded machine slow every decode down several-fold
        cp.n_threads = cp.n_threads_batch = 1
        cp.type_k = cp.type_v = GGML_TYPE_F32
        cp.flash_attn_type = FLASH_ATTN_DISABLED
        cp.no_perf = True
        self.ctx = self.L.llama_init_from_model(self.model, cp)
        if not self.ctx:
            raise RuntimeError("llama_init_from_model failed:\n" + "".join(_log_lines[-20:]))
        self.vocab = self.L.llama_model_get_vocab(self.model)
        self.n_vocab = self.L.llama_vocab_n_tokens(self.vocab)

    def close(self):
        if self.ctx:
            self.L.llama_free(self.ctx)
            self.ctx = None
        if self.model:
            self.L.llama_model_free(self.model)
            self.model = None

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def step(self, token):
        """Decodes one token (the next position); returns its logits (float32 [n_vocab])."""
        arr = (ctypes.c_int32 * 1)(int(token))
        rc = self.L.llama_decode(self.ctx, self.L.llama_batch_get_one(arr, 1))
        if rc != 0:
            raise RuntimeError(f"llama_decode returned {rc}")
        p = self.L.llama_get_logits_ith(self.ctx, -1)
        return np.ctypeslib.as_array(p, shape=(self.n_vocab,)).copy()

    def logits_of(self, tokens):
        """Logits after every token of the sequence (teacher forcing): float32 [len, n_vocab]."""
        return np.stack([self.step(t) for t in tokens])

    def greedy(self, prompt, n):
        """Greedy generation: (ids, logits rows), row i the logits generated token i was chosen from."""
        logits = None
        for t in prompt:
            logits = self.step(t)
        ids, rows = [], []
        for _ in range(n):
            rows.append(logits)
            ids.append(int(np.argmax(logits)))
            logits = self.step(ids[-1])
        return ids, np.stack(rows)

    def tokenize(self, text, add_special=True):
        buf = (ctypes.c_int32 * 4096)()
        b = text.encode()
        n = self.L.llama_tokenize(self.vocab, b, len(b), buf, 4096, add_special, False)
        return list(buf[:n])


def load_or_skip():
    """The oracle, or a pytest skip (a failure under CI=true) saying why it is missing."""
    import pytest
    try:
        return Llama()
    except OSError as e:
        reason = f"llama oracle not installed ({e}); scripts/install-llama-oracle.sh installs it"
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true requires the llama oracle, which is missing: " + reason)
        pytest.skip(reason)
