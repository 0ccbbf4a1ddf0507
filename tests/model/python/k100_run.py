"""Runs a model with k100-generate (greedy, ids and logits kept)."""
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

import pytest

from conftest import GENERATE


def generate(path, prompt, n, extra=()):
    """(ids, logits [n, vocab] float32, stdout) of greedy generation from `prompt` (token ids)."""
    with tempfile.TemporaryDirectory() as d:
        npy = Path(d) / "logits.npy"
        r = subprocess.run([GENERATE, str(path), "--tokens", ",".join(map(str, prompt)), "-n", str(n), "--temp", "0",
                            "--ignore-eos", "--ids", "--logits", str(npy), *extra],
                           capture_output=True, text=True, errors="replace")
        if r.returncode != 0 and "is not in the loaded kernel packages" in r.stderr:
            # a build without the block-type kernels (kernels/gguf): those models cannot run
            reason = "kernel package without the kernels this model needs: " + r.stderr.strip().splitlines()[-1]
            if os.environ.get("CI") == "true":
                pytest.fail("CI=true: " + reason)
            pytest.skip(reason)
        assert r.returncode == 0, r.stderr
        lines = [line for line in r.stderr.splitlines() if line.startswith("ids:")]  # --ids goes to stderr
        assert len(lines) == 1, r.stderr
        ids = [int(x) for x in lines[0].split()[1:]]
        return ids, np.load(npy), r.stdout


def row_error(a, ref):
    """max |a - ref| of each row, in float64."""
    return np.abs(a.astype(np.float64) - ref.astype(np.float64)).max(axis=1)
