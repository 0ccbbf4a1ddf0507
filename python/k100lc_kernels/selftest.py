"""``python3 -m k100lc_kernels selftest``: every kernel's self-test cases.

The cases and their host references live in the C++ kernel registry; this runs
them in-process through ``libk100_selftest.so`` (next to ``libfm_engine.so`` in
the build directory, or ``$K100LC_SELFTEST``), on the backend the runtime
picks (``K100_BACKEND=auto|emu|hsa``), so the same command validates the
emulator here and a real K100_LC later. Flags: ``--group a,b``, ``--only x,y``,
``--sweep``, ``--repeat N``, ``--json``, ``--list``, ``--verbose``. The last
line is ``N passed, M failed``.
"""
from __future__ import annotations

import ctypes
import os
import sys

from ._paths import selftest_library


def library_path() -> str:
    """libk100_selftest.so to load: K100LC_SELFTEST, the installed one or the build directory's."""
    return str(selftest_library())


def run(args: list[str]) -> int:
    """Runs the self-test with k100-selftest's flags; returns its exit status."""
    path = library_path()
    if not os.path.exists(path):
        print(f"k100lc_kernels selftest: {path} does not exist; build the project first "
              "(./k100lc.sh demo, or cmake --build build)", file=sys.stderr)
        return 2
    lib = ctypes.CDLL(path)
    lib.k100_selftest_main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    lib.k100_selftest_main.restype = ctypes.c_int
    argv = ["k100lc_kernels selftest", *args]
    c_argv = (ctypes.c_char_p * len(argv))(*[a.encode() for a in argv])
    sys.stdout.flush()
    sys.stderr.flush()
    return int(lib.k100_selftest_main(len(argv), c_argv))
