"""Fixtures of the k100lc_kernels.gguf tests: the sample files written by the
C++ writer (gguf_write_samples, path in $K100_GGUF_WRITE_SAMPLES) and ggml as
the oracle (libggml-base.so from the npm package, $K100_GGML_LIB or the build
tree's copy)."""
import ctypes
import os
import subprocess
from pathlib import Path

import pytest

BUILD = Path(os.environ.get("K100_BUILD_DIR", Path(__file__).resolve().parents[3] / "build"))
GGML_LIB = os.environ.get("K100_GGML_LIB") or str(
    BUILD / "oracles/llama/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so")


@pytest.fixture(scope="session")
def samples(tmp_path_factory) -> Path:
    writer = os.environ.get("K100_GGUF_WRITE_SAMPLES", str(BUILD / "tests/gguf_write_samples"))
    out = tmp_path_factory.mktemp("gguf_samples")
    subprocess.run([writer, str(out)], check=True)
    return out


@pytest.fixture(scope="session")
def ggml():
    """ctypes handle of ggml's base library; skipped (failed under CI=true) when it is missing."""
    try:
        return ctypes.CDLL(GGML_LIB)
    except OSError as e:
        reason = f"({e}); scripts/install-llama-oracle.sh installs it"
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true requires the ggml oracle, which is missing " + reason)
        # CTest's SKIP_REGULAR_EXPRESSION for this test matches this phrase
        pytest.skip("ggml oracle not installed " + reason)
