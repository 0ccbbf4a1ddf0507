"""The README's Python quick start, run exactly as the README says (its
shell lines, with its Python block pasted on standard input), and the
package under interpreters without NumPy: importing Runtime names the Python
that has it.

Run by CTest with K100_BUILD_DIR and K100_SOURCE_DIR (see test_runtime.py).
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("K100_SOURCE_DIR", Path(__file__).resolve().parents[3]))
BUILD = Path(os.environ.get("K100_BUILD_DIR", SOURCE / "build"))


def quick_start_blocks():
    """(shell lines, Python code) of the README section "Quick start (Python)"."""
    text = (SOURCE / "README.md").read_text()
    start = text.index("## Quick start (Python)")
    section = text[start:text.index("\n## ", start + 1)]
    sh = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    py = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    return sh, py


def test_readme_quick_start_runs_as_pasted():
    sh, py = quick_start_blocks()
    assert "source env.sh" in sh and "python3" in sh  # what a reader types
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "RT_HSACO")}
    env["K100_BUILD_DIR"] = str(BUILD)
    r = subprocess.run(["bash", "-e", "-c", sh], input=py, capture_output=True, text=True, env=env,
                       cwd=SOURCE, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^backend (emu|hsa) max \|y - w x\| = ", r.stdout, re.M), r.stdout + r.stderr


def runtime_import(python, *flags):
    env = dict(os.environ, PYTHONPATH=str(SOURCE / "python"), K100_BUILD_DIR=str(BUILD))
    return subprocess.run([python, *flags, "-c", "import k100lc_kernels as k; print(len(k.kernels()))\n"
                           "from k100lc_kernels import Runtime"],
                          capture_output=True, text=True, env=env, cwd="/")


def test_without_numpy_importing_runtime_says_which_python():
    # Debian's Python without its site directories (-S) has no NumPy
    r = runtime_import("/usr/bin/python3", "-S")
    assert r.returncode != 0
    assert int(r.stdout.split()[0]) > 0  # the catalog helpers work without NumPy
    assert "k100lc_kernels.Runtime needs NumPy, which /usr/bin/python3" in r.stderr, r.stderr
    assert "/usr/lib/python3/dist-packages" in r.stderr, r.stderr


def other_python_without_numpy():
    for name in ("python3", "python3.11", "python3.12"):
        path = shutil.which(name)
        if path and Path(path).resolve() != Path("/usr/bin/python3").resolve():
            probe = subprocess.run([path, "-c", "import numpy"], capture_output=True)
            if probe.returncode != 0:
                return path
    return None


def test_another_python_without_numpy_is_told_to_use_debians():
    python = other_python_without_numpy()
    if python is None:
        pytest.skip("no interpreter without NumPy besides /usr/bin/python3 on PATH")
    r = runtime_import(python)
    assert r.returncode != 0
    assert "needs NumPy" in r.stderr and "run it with /usr/bin/python3" in r.stderr, r.stderr
