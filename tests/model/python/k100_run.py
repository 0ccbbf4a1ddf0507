"""Runs a model with k100-generate (greedy, ids and logits kept) or serves it with k100-server."""
import contextlib
import json
import os
import signal
import subprocess
import tempfile
import urllib.request
from pathlib import Path

import numpy as np

import pytest

from conftest import GENERATE, TOOLS


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


@contextlib.contextmanager
def served(*args):
    """k100-server started with `args` on a free port, until the block ends (then stopped by SIGTERM, which must
    end it with status 0); yields (post, log): post(path, body) answers a JSON request, log the lines of standard
    error up to "listening on"."""
    server = subprocess.Popen([str(TOOLS / "k100-server"), *map(str, args), "--port", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        log = []
        for line in server.stderr:
            log.append(line)
            if "listening on http://" in line:
                break
        assert log and "listening on http://" in log[-1], "".join(log)
        url = log[-1].strip().split("listening on ")[1]

        def post(path, body):
            request = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=600) as response:
                return json.loads(response.read())

        yield post, log
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
