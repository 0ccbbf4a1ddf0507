"""Runs a model with k100-generate (greedy, ids and logits kept)."""
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from conftest import GENERATE


def generate(path, prompt, n, extra=()):
    """(ids, logits [n, vocab] float32, stdout) of greedy generation from `prompt` (token ids)."""
    with tempfile.TemporaryDirectory() as d:
        npy = Path(d) / "logits.npy"
        r = subprocess.run([GENERATE, str(path), "--tokens", ",".join(map(str, prompt)), "-n", str(n), "--temp", "0",
                            "--ignore-eos", "--ids", "--logits", str(npy), *extra],
                           capture_output=True, text=True, errors="replace")
        assert r.returncode == 0, r.stderr
        last = r.stdout.strip().splitlines()[-1]
        assert last.startswith("ids:"), r.stdout
        ids = [int(x) for x in last.split()[1:]]
        return ids, np.load(npy), r.stdout
