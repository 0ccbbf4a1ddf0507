"""Two DSL code objects and the kernel package in one process: the package's
scale_mul_k, then two decorated kernels (each its own code object, loaded
into the same Runtime), then the package kernel again, each against NumPy.
It runs in a child process so that its Runtime holds the package (the
decorator reads the kernels' source, so the script is a file)."""
import os
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[3]

BESIDE_PACKAGE = r"""
import os
from pathlib import Path
import numpy as np
from k100lc_kernels import Runtime, kernel
from k100lc_kernels.dsl_types import f32, gid, ptr, u32

@kernel
def add_half(x: ptr[f32], n: u32):
    i = gid()
    if i < n:
        x[i] = x[i] + 0.5

@kernel
def square_into(x: ptr[f32], y: ptr[f32], n: u32):
    i = gid()
    if i < n:
        y[i] = x[i] * x[i]

rt = Runtime(hsaco=Path(os.environ["K100_BUILD_DIR"]) / "k100lc_kernels.hsaco")
n = 100
xs = np.arange(n, dtype=np.float32)
px = rt.alloc(xs.nbytes)
rt.upload(px, xs)
rt.launch_by_contract("scale_mul_k", {"n": n}, {"x": px, "s": 0.375, "n": n})
want = xs * np.float32(0.375)
assert (rt.download(px, n) == want).all()
add_half(px, n, grid=2, rt=rt)
want = want + np.float32(0.5)
assert (rt.download(px, n) == want).all()
y = np.zeros(n, np.float32)
square_into(px, y, n, grid=2, rt=rt)
assert (y == want * want).all()
assert add_half.symbol != square_into.symbol
rt.launch_by_contract("scale_mul_k", {"n": n}, {"x": px, "s": 2.0, "n": n})
assert (rt.download(px, n) == want * np.float32(2.0)).all()
assert rt.has("scale_mul_k") and rt.has(add_half.symbol) and rt.has(square_into.symbol)
print("ok")
"""


def test_two_dsl_code_objects_beside_the_package(tmp_path):
    script = tmp_path / "beside_package.py"
    script.write_text(BESIDE_PACKAGE)
    env = dict(os.environ, PYTHONPATH=str(SOURCE / "python"))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
