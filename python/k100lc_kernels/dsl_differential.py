"""The same kernel compiled by k100-cc and run on the emulator (or a DCU),
and interpreted on NumPy; the two results compared. Used by the tests and
the fuzzer (fuzz.py).

Comparison rule: integer arrays must be equal; float arrays must be equal
bit for bit where the kernel uses only exactly rounded operations, and
within ``F32_RTOL`` (relative) / ``F32_ATOL`` (absolute) otherwise: the
compiled exp/rsqrt/reciprocal are hardware approximations (within 1 ulp),
which the interpreter computes correctly rounded, and a difference of an
ulp can grow through later arithmetic. NaNs must match NaNs.
"""
from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path

import numpy as np

from . import dsl_types
from .dsl_kernel import launch_arrays
from .interpret_module import Module
from .interpreter import interpret, load_program

F32_RTOL = 1e-5
F32_ATOL = 1e-6
_shared_rt = None


def parameter_types(program) -> list:
    """The interpreter's parameters as (name, dsl_types type) pairs, for launch_arrays."""
    out = []
    for name, t in program.params:
        if isinstance(t, tuple):
            out.append((name, dsl_types.PointerType(dsl_types.ELEMENT_TYPES[t[1]])))
        else:
            out.append((name, dsl_types.PARAMETER_SCALARS[t]))
    return out


class CompiledSource:
    """Every kernel of one source compiled by a single k100-cc run, loaded into a Runtime."""

    def __init__(self, text: str, rt=None, out_dir: Path | None = None):
        from .dsl_kernel import _compiler
        self.text = text
        self._tmp = None
        if out_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="k100lc-diff-")
            out_dir = Path(self._tmp.name)
        # kernel names are process-wide in the engine: compile each under a symbol of the source's hash
        tag = "_k" + hashlib.sha256(text.encode()).hexdigest()[:12]
        kernels = Module(text, lambda line: f"<fuzz source>:{line}").kernels
        self.symbols = {k: k + tag for k in kernels}
        renamed = re.sub(r"^(\s*def\s+)(\w+)(\s*\()",
                         lambda m: m[1] + self.symbols.get(m[2], m[2]) + m[3], text, flags=re.M)
        paths = {p.stem: p for p in _compiler().compile_source(renamed, out_dir)}
        self.paths = {k: paths[s] for k, s in self.symbols.items()}
        global _shared_rt
        if rt is None:
            if _shared_rt is None:  # the engine is one per process: one Runtime serves every source
                from .runtime import Runtime
                first = next(iter(self.paths.values()))
                _shared_rt = Runtime(hsaco=first)
            rt = _shared_rt
        self.rt = rt
        self._loaded = set()

    def run(self, kernel: str, args: list, grid, workgroup=64) -> None:
        """Launches `kernel` with `args` (arrays filled in place, as the decorator does)."""
        if kernel not in self._loaded:
            if not self.rt.has(self.symbols[kernel]):  # the same source compiled before in this process
                self.rt.load(self.paths[kernel])
            self._loaded.add(kernel)
        prog, _ = load_program(self.text, kernel)
        g = (grid,) if not isinstance(grid, (tuple, list)) else tuple(grid)
        w = (workgroup,) if not isinstance(workgroup, (tuple, list)) else tuple(workgroup)
        w = w + (1,) * (len(g) - len(w))
        launch_arrays(self.rt, self.symbols[kernel], kernel, parameter_types(prog), list(args), g, w)

    def close(self):
        """Removes the temporary directory of the compiled code objects."""
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def uses_approximations(text: str) -> bool:
    """Whether the source may compute a float through a hardware approximation."""
    return any(f"{n}(" in text for n in ("exp", "sqrt", "rsqrt")) or "/" in text.replace("//", "")


def mismatch(name: str, got: np.ndarray, want: np.ndarray, exact: bool) -> str | None:
    """None when the compiled result `got` agrees with the interpreted `want`, else a description."""
    if got.dtype.kind == "f":
        g, w = got.astype(np.float64), want.astype(np.float64)
        gn, wn = np.isnan(g), np.isnan(w)
        if exact:
            same = (got.view(np.uint32 if got.itemsize == 4 else np.uint16)
                    == want.view(np.uint32 if want.itemsize == 4 else np.uint16)) | (gn & wn)
        else:
            with np.errstate(all="ignore"):
                same = (gn & wn) | (~gn & ~wn & ((g == w) | (np.abs(g - w) <= F32_ATOL + F32_RTOL * np.abs(w))))
    else:
        same = got == want
    if same.all():
        return None
    bad = np.flatnonzero(~same.reshape(-1))
    k = int(bad[0])
    return (f"'{name}' differs at {bad.size} of {same.size} elements; first at [{k}]: compiled "
            f"{got.reshape(-1)[k]!r}, interpreted {want.reshape(-1)[k]!r}")


def compare(compiled: CompiledSource, kernel: str, args: list, grid, workgroup=64, exact=None) -> list[str]:
    """Runs `kernel` both ways on copies of `args`; the list of differences (empty: they agree)."""
    prog, _ = load_program(compiled.text, kernel)
    a1 = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    a2 = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compiled.run(kernel, a1, grid, workgroup)
    interpret(compiled.text, *a2, grid=grid, workgroup=workgroup, kernel=kernel)
    if exact is None:
        exact = not uses_approximations(compiled.text)
    out = []
    for (name, _), x, y in zip(prog.params, a1, a2):
        if isinstance(x, np.ndarray):
            d = mismatch(name, x, y, exact)
            if d:
                out.append(d)
    return out
