"""Fixtures of the model tests: the tools (k100-generate writes the random
models and runs them), the llama oracle and ggml's dequantisers (skipped
without them, failed under CI=true), and the models, written once per
session."""
import ctypes
import os
import subprocess
from pathlib import Path

import pytest

import llama_cpp
from reference_model import Gguf

BUILD = llama_cpp.BUILD
TOOLS = Path(os.environ.get("K100_TOOLS_BIN", BUILD / "bin"))
GENERATE = str(TOOLS / "k100-generate")


@pytest.fixture(scope="session")
def llama():
    return llama_cpp.load_or_skip()


@pytest.fixture(scope="session")
def ggml():
    try:
        return ctypes.CDLL(str(llama_cpp.BIN_DIR / "libggml-base.so"))
    except OSError as e:
        reason = f"llama oracle not installed ({e}); scripts/install-llama-oracle.sh installs it"
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true requires the ggml oracle, which is missing: " + reason)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def model_file(tmp_path_factory):
    """model_file(arch, type) -> path of a random model written by our GGUF writer (cached)."""
    root = tmp_path_factory.mktemp("models")
    made = {}

    def make(arch, wtype, *extra):
        key = (arch, wtype) + extra
        if key not in made:
            path = root / ("_".join(key) + ".gguf")
            subprocess.run([GENERATE, "--write-random-model", str(path), "--arch", arch, "--type", wtype, *extra],
                           check=True, capture_output=True)
            made[key] = path
        return made[key]

    return make


@pytest.fixture(scope="session")
def vocab(model_file):
    """The byte-level BPE vocabulary of the project's random qwen2 model: (raw GGUF kvs, tokens, types, merges,
    bos, eos, its ChatML chat template)."""
    f = Gguf(model_file("qwen2", "f32"))
    kvs = [(k, v) for k, v in f.raw_kv.items() if k.startswith("tokenizer.") and k != "tokenizer.ggml.pre"]
    m = f.meta
    return kvs, list(m["tokenizer.ggml.tokens"]), [int(t) for t in m["tokenizer.ggml.token_type"]], \
        list(m["tokenizer.ggml.merges"]), int(m["tokenizer.ggml.bos_token_id"]), int(m["tokenizer.ggml.eos_token_id"]), \
        m["tokenizer.chat_template"]
