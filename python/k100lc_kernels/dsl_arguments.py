"""Argument conventions shared by the kernel decorator (dsl_kernel.py) and
the interpreter (interpret.py): binding by position or name, scalar values
checked against their parameter's type, and grid/workgroup shapes."""
from __future__ import annotations

import inspect
import struct

_U32 = (1 << 32) - 1


def describe(fname: str, name: str, t) -> str:
    """How messages name a parameter: `fname: parameter 'name' (type)`."""
    return f"{fname}: parameter '{name}' ({t})"


def scalar_argument(fname: str, name: str, t, v) -> int | float:
    """A scalar argument for a u32/s32/f32 parameter `t` (a dsl_types.ScalarType):
    an f32 as a float rounded to single precision, an integer as its 32 bits."""
    import numpy as np
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{describe(fname, name, t)} takes a number, not {type(v).__name__}")
    if t.kind == "f":
        try:
            return struct.unpack("<f", struct.pack("<f", float(v)))[0]
        except OverflowError:
            raise ValueError(f"{describe(fname, name, t)}: {v!r} does not fit f32") from None
    if isinstance(v, (float, np.floating)):
        raise TypeError(f"{describe(fname, name, t)} takes an integer, not the float {v!r}")
    v = int(v)
    lo, hi = (0, _U32) if t.kind == "u" else (-(1 << 31), (1 << 31) - 1)
    if not lo <= v <= hi:
        raise ValueError(f"{describe(fname, name, t)}: {v} is out of range [{lo}, {hi}]")
    return v & _U32


def bind_arguments(fname: str, names: list[str], args, kwargs) -> list:
    """The arguments in parameter order, from positions and names."""
    sig = f"{fname}({', '.join(names)})"
    if len(args) > len(names):
        raise TypeError(f"{sig} takes {len(names)} arguments, {len(args)} given")
    values = list(args) + [inspect.Parameter.empty] * (len(names) - len(args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{sig} has no parameter '{k}'")
        i = names.index(k)
        if values[i] is not inspect.Parameter.empty:
            raise TypeError(f"{sig}: parameter '{k}' given twice")
        values[i] = v
    missing = [n for n, v in zip(names, values) if v is inspect.Parameter.empty]
    if missing:
        raise TypeError(f"{sig}: missing argument{'s' if len(missing) > 1 else ''} for "
                        f"{', '.join(repr(m) for m in missing)}")
    return values


def launch_dims(grid, workgroup) -> tuple[tuple, tuple]:
    """(grid, workgroup) as tuples of the same length (1 to 3); the grid counts workgroups."""
    g = (grid,) if not isinstance(grid, (tuple, list)) else tuple(grid)
    if not 1 <= len(g) <= 3:
        raise ValueError(f"grid must be an int or a 2- or 3-tuple, not {grid!r}")
    w = (workgroup,) if not isinstance(workgroup, (tuple, list)) else tuple(workgroup)
    if len(w) > len(g):
        raise ValueError(f"workgroup {workgroup!r} has more dimensions than grid {grid!r}")
    w = w + (1,) * (len(g) - len(w))
    return g, w
