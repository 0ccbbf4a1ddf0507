"""The launch contract's second reader (k100lc_kernels.launch_contract): the same text as the
C++ side, its errors naming the kernel and the expression, the contracts the built package's
catalog carries, and a fast GEMV launched from its contract against NumPy.

Run by CTest with K100_BUILD_DIR (the built package and libfm_engine.so) and K100_BACKEND=emu.
"""
import os
import sys
from pathlib import Path

import numpy as np
import pytest

SOURCE = Path(os.environ.get("K100_SOURCE_DIR", Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(SOURCE / "python"))

from k100lc_kernels import catalog, gguf  # noqa: E402
from k100lc_kernels.launch_contract import LaunchContract, tile_shares  # noqa: E402

GEMV_LIKE = [
    "args w x y n k m split ws",
    "sizes n k m groups",
    "choose wg = 256",
    "choose split = 1",
    "let tiles = ceil_div(n, 64)",
    "workgroup = max(wg, 64 * split)",
    "let per = max(1, workgroup / 64 / split)",
    "choose parts = select(per == 1, tile_share_parts(tiles), 1)",
    "choose shared = select(parts > 1, tile_share_tiles(tiles), 0)",
    "grid = ceil_div(tiles, per) + select(per == 1, shared * (parts - 1), 0), groups",
    "arg split = split + select(parts > 1, 256 * parts + 65536 * shared, 0)",
    "workspace ws = select(parts > 1, groups * shared * (parts * 1024 + 64), 0)",
    "arg n = n", "arg k = k", "arg m = m",
]


def test_evaluates_geometry_derived_arguments_and_workspace():
    c = LaunchContract(GEMV_LIKE, "gemv_like_k")
    plan = c.evaluate({"n": 200, "k": 64, "m": 2, "groups": 3})
    assert (plan.workgroup, plan.grid) == (256, (1, 3, 1))
    assert plan.args["split"] == 1 and plan.workspaces["ws"] == 0
    # 272 tiles on the 120 CUs: P = 3, R = 32 (k100/quant/gemv_tile_shares.h)
    assert tile_shares(272) == (3, 32)
    plan = c.evaluate({"n": 17408, "k": 5120, "m": 1, "groups": 1}, {"wg": 64})
    assert plan.workgroup == 64 and plan.grid[0] == 272 + 32 * 2
    assert plan.args["split"] == 1 | 3 << 8 | 32 << 16
    assert plan.workspaces["ws"] == 32 * (3 * 1024 + 64)
    plan = c.evaluate({"n": 17408, "k": 5120, "m": 1, "groups": 1}, {"split": 8})
    assert (plan.workgroup, plan.grid[0], plan.args["split"]) == (512, 272 + 32 * 2, 8 | 3 << 8 | 32 << 16)
    plan = c.evaluate({"n": 17408, "k": 5120, "m": 1, "groups": 1}, {"split": 8, "parts": 1})
    assert (plan.workgroup, plan.grid[0], plan.args["split"], plan.workspaces["ws"]) == (512, 272, 8, 0)
    assert c.argv(plan, {"w": 10, "x": 11, "y": 12, "ws": 0}) == [10, 11, 12, 17408, 5120, 1, 8, 0]


def test_operators():
    c = LaunchContract("sizes a b; let q = a / b; let r = a % b; let neg = -a + 2 * (b - 1); "
                       "let lt = (a < b) + 10 * (a >= b); let p = pow2_floor(a); let mn = min(a, b, 3); "
                       "workgroup = 64; grid = 1", "ops_k")
    v = c.evaluate({"a": 13, "b": 4}).values
    assert (v["q"], v["r"], v["neg"], v["lt"], v["p"], v["mn"]) == (3, 1, -7, 10, 8, 3)


def test_shifts_for_power_of_two_counts():
    c = LaunchContract("args y cshift; sizes n splits; let sh = log2_ceil(splits); workgroup = 64; "
                       "grid = shl(ceil_div(n, 8), sh); arg cshift = sh", "shift_k")
    plan = c.evaluate({"n": 24, "splits": 16})
    assert (plan.args["cshift"], plan.grid[0]) == (4, 48)
    assert c.evaluate({"n": 8, "splits": 1}).args["cshift"] == 0
    assert c.evaluate({"n": 8, "splits": 5}).args["cshift"] == 3
    with pytest.raises(ValueError, match="log2_ceil of 0"):
        c.evaluate({"n": 8, "splits": 0})
    big = LaunchContract("sizes a b; workgroup = 64; grid = 1; let s = shl(a, b)", "shl_k")
    with pytest.raises(ValueError, match="shl by 63"):
        big.evaluate({"a": 1, "b": 63})
    with pytest.raises(ValueError, match="overflows"):
        big.evaluate({"a": 1 << 40, "b": 30})


@pytest.mark.parametrize("text, why", [
    ("sizes n; workgroup = 64; grid = ceil_div(nn, 64)", "expression 'ceil_div(nn, 64)': unknown name 'nn'"),
    ("sizes n; workgroup = 64; grid = ceil_dv(n, 64)", "unknown function 'ceil_dv'"),
    ("sizes n; workgroup = 64; grid = ceil_div(n)", "ceil_div takes 2 arguments, not 1"),
    ("sizes n; workgroup = 64 +; grid = n", "expression ends early"),
    ("args y n; sizes n; workgroup = 64; grid = n; arg count = n", "no argument 'count'"),
    ("sizes n; workgroup = 64", "no grid declared"),
    ("sizes n; threads = 64; grid = n", "unknown declaration 'threads'"),
])
def test_bad_contracts_name_kernel_and_expression(text, why):
    with pytest.raises(ValueError) as e:
        LaunchContract(text, "bad_k")
    assert "kernel 'bad_k'" in str(e.value) and why in str(e.value)


def test_bad_evaluations_are_refused():
    c = LaunchContract("sizes n; choose d = 1; workgroup = 64; grid = n / d", "eval_k")
    with pytest.raises(ValueError, match="kernel 'eval_k', grid, expression 'n / d': division by zero"):
        c.evaluate({"n": 5}, {"d": 0})
    with pytest.raises(ValueError, match="size 'n' not given"):
        c.evaluate({})
    with pytest.raises(ValueError, match="no choice 'split'"):
        c.evaluate({"n": 5}, {"split": 2})
    with pytest.raises(ValueError, match="0 is not a count of 1 or more"):
        c.evaluate({"n": 0})


def test_package_catalog_carries_contracts():
    # every fast GEMV of a GGUF type, and the W4A16 one over checkpoint rows
    gemvs = {e["lookup"] for e in catalog.kernels("_gemv_") if e["lookup"].endswith("_gemv_k") and "launch" in e}
    assert gemvs == {gguf.gemv_kernel(t) for t in gguf.GEMV_TYPES} | {"int4_gemv_k"}
    for e in catalog.kernels():
        if "launch" in e:
            LaunchContract(e["launch"], e["lookup"])  # every one reads
    c = catalog.launch_contract("q4_0_gemv_k")
    plan = c.evaluate({"n": 17408, "k": 5120, "m": 1, "groups": 1})
    assert (plan.workgroup, plan.grid[0]) == (256, 68)
    # the types that share tiles take `ws`, and their contracts say how large
    iq2s = catalog.launch_contract("iq2s_gemv_k")
    assert "ws" in iq2s.args and iq2s.evaluate({"n": 17408, "k": 5120, "m": 1, "groups": 1}, {"wg": 64}).workspaces["ws"] > 0


# The engine is one per process (its packages are process-wide): the launch runs in a child.
GEMV_BY_CONTRACT = """
import numpy as np
from k100lc_kernels import Runtime, gguf
# Q8_0 blocks by hand: f16 scale d, 32 int8 codes; y = W x against NumPy
n, k = 130, 96
rng = np.random.default_rng(3)
d = rng.uniform(0.01, 0.02, size=(n, k // 32)).astype(np.float16)
q = rng.integers(-127, 128, size=(n, k // 32, 32), dtype=np.int8)
blocks = np.zeros((n, k // 32, 34), np.uint8)
blocks[:, :, 0:2] = d.view(np.uint8).reshape(n, k // 32, 2)
blocks[:, :, 2:] = q.view(np.uint8)
w = (d.astype(np.float64)[:, :, None] * q).reshape(n, k)
x = rng.uniform(-1, 1, size=k).astype(np.float32)
packed = gguf.repack_for_gemv("q8_0", n, k, blocks.tobytes())
rt = Runtime()
pw, px, py = rt.alloc(packed.nbytes), rt.alloc(x.nbytes), rt.alloc(4 * n)
rt.upload(pw, packed)
rt.upload(px, x)
for split in (1, 2):
    plan = rt.launch_by_contract("q8_0_gemv_k", {"n": n, "k": k, "m": 1, "groups": 1},
                                 {"w": pw, "x": px, "y": py, "ids": 0, "x_stride": 0}, {"split": split})
    assert plan.workgroup == 256 and plan.args["split"] == split, plan
    y = rt.download(py, n)
    np.testing.assert_allclose(y, w @ x.astype(np.float64), rtol=1e-5, atol=1e-5)
# an f32 argument given to launch_by_contract reaches the kernel as that float (it was once cut to an int)
xs = np.arange(100, dtype=np.float32)
ps = rt.alloc(xs.nbytes)
rt.upload(ps, xs)
rt.launch_by_contract("scale_mul_k", {"n": 100}, {"x": ps, "s": 0.375, "n": 100})
assert (rt.download(ps, 100) == xs * np.float32(0.375)).all()
print("ok")
"""


def test_gemv_launched_by_its_contract():
    import subprocess
    env = dict(os.environ, PYTHONPATH=str(SOURCE / "python"))
    r = subprocess.run([sys.executable, "-c", GEMV_BY_CONTRACT], capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_k100_catalog_shows_contracts():
    import json
    import subprocess
    build = Path(os.environ.get("K100_BUILD_DIR", SOURCE / "build"))
    tools = Path(os.environ.get("K100_TOOLS_BIN", build / "bin"))
    out = subprocess.run([str(tools / "k100-catalog"), str(build / "k100lc_kernels.hsaco")], check=True,
                         capture_output=True, text=True).stdout
    shown = {e["lookup"]: e for e in json.loads(out)["kernels"]}
    assert shown["q4_0_gemv_k"]["launch"] == catalog.info("q4_0_gemv_k")["launch"]
    assert shown["q4_0_gemv_k"]["launch"][0] == "args w x y ids n k m x_stride split"
    assert any(line.startswith("workspace ws = ") for line in shown["iq2s_gemv_k"]["launch"])
