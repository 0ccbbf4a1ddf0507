"""A runaway emulated kernel: the instruction budget (set from Python and
from K100_EMU_BUDGET) ends it in a fault, and Ctrl-C (SIGINT to a process
waiting in sync()) cancels it and raises KeyboardInterrupt, leaving the
runtime usable.

Run by CTest with K100_BUILD_DIR, K100_TOOLS_BIN, K100_SOURCE_DIR and
K100_BACKEND=emu (see test_runtime.py).
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("K100_SOURCE_DIR", Path(__file__).resolve().parents[3]))
BUILD = Path(os.environ.get("K100_BUILD_DIR", SOURCE / "build"))
TOOLS = Path(os.environ.get("K100_TOOLS_BIN", BUILD / "bin"))
sys.path.insert(0, str(SOURCE / "python"))

from k100lc_kernels import Runtime  # noqa: E402

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
FOREVER = 0  # spin_k's trip count that never ends


@pytest.fixture(scope="module")
def spin(tmp_path_factory):
    out = tmp_path_factory.mktemp("spin") / "spin.hsaco"
    subprocess.run([str(TOOLS / "k100-as"), "-o", str(out), str(SOURCE / "tests/runtime/kernels/spin.s")], check=True)
    subprocess.run([str(TOOLS / "k100-catalog"), str(out), "-o", str(out.with_suffix(".catalog.json"))], check=True)
    return out


def child(code: str, **env) -> subprocess.Popen:
    e = dict(os.environ, PYTHONPATH=str(SOURCE / "python"), K100_BACKEND="emu")
    e.update(env)
    return subprocess.Popen([PY, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)


def test_budget_from_python(spin):
    rt = Runtime(spin)
    default = rt.instruction_budget
    assert default > 1_000_000
    try:
        rt.instruction_budget = 20_000
        assert rt.instruction_budget == 20_000
        rt.launch("spin_k", 1, 64, [1_000_000])
        with pytest.raises(RuntimeError, match="instruction budget of 20000 wave-instructions exhausted"):
            rt.sync()
        rt.launch("spin_k", 1, 64, [100])  # within the budget
        rt.sync()
        with pytest.raises(ValueError):
            rt.instruction_budget = -1
    finally:
        rt.instruction_budget = 0
    assert rt.instruction_budget == default


def test_budget_from_the_environment(spin):
    code = (f"from k100lc_kernels import Runtime\nrt = Runtime({str(spin)!r})\nprint(rt.instruction_budget)\n"
            "rt.launch('spin_k', 1, 64, [1000000])\nrt.sync()\n")
    p = child(code, K100_EMU_BUDGET="5000")
    out, err = p.communicate(timeout=120)
    assert out.splitlines()[0] == "5000"
    assert p.returncode != 0 and "instruction budget of 5000" in err, err
    p = child(code, K100_EMU_BUDGET="lots")
    out, err = p.communicate(timeout=120)
    assert p.returncode != 0 and "K100_EMU_BUDGET=lots is not a positive number" in err, err


def test_ctrl_c_during_sync_interrupts_a_runaway_kernel(spin):
    code = (f"from k100lc_kernels import Runtime\nrt = Runtime({str(spin)!r}, instruction_budget=1 << 62)\n"
            f"rt.launch('spin_k', 1, 64, [{FOREVER}])\n"
            "rt.launch('spin_k', 1, 64, [10])  # queued behind it\n"
            "try:\n    print('waiting', flush=True)\n    rt.sync()\n    print('sync returned')\n"
            "except KeyboardInterrupt:\n    print('KeyboardInterrupt', flush=True)\n"
            "rt.launch('spin_k', 1, 64, [1000])\nrt.sync()\nprint('usable after it')\n")
    p = child(code)
    try:
        assert p.stdout.readline().strip() == "waiting"
        # the kernel never ends: once the child is past print(), it waits in
        # sync() for good; the pause lets it get there (it is not a measurement)
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)  # a hang guard, not a timing assertion
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert out.splitlines() == ["KeyboardInterrupt", "usable after it"], (out, err)
