"""``interpret``: a kernel of the language run on NumPy with the semantics of
the compiled code, one workgroup after the other (docs/DSL.md, "The NumPy
interpreter").

    from k100lc_kernels import interpret
    interpret(vadd, a, b, out, n, grid=(n + 63) // 64)            # a @kernel function
    interpret(text, a, b, out, n, grid=4, kernel="vadd")           # source text
    interpret("k.kkl", x, y, n, grid=2, workgroup=(16, 4))         # a .kkl file

Arguments follow the ``kernel`` decorator: by position or name; a
``ptr[T]`` takes a NumPy array of T's dtype (``bf16``: ``uint16`` bits)
and every writable array is written back in place when the kernel
finishes (a read-only one is only read); ``u32``/``s32`` integers in
range; ``f32`` a number rounded to single precision. ``grid`` counts
workgroups. A fault of the program (an out-of-bounds access naming the
parameter and index, an LDS race with ``lds_check``, a barrier that not
every wave reaches, integer division by zero, an endless loop) raises
``InterpretError`` naming the file and line; then no array is changed.
"""
from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np

from . import dsl_arguments, dsl_types
from .interpret_compile import Compiler, Program
from .interpret_module import Module
from .interpret_values import ELEMENT_DTYPES
from .interpret_workgroup import InterpretError, Workgroup

__all__ = ["interpret", "InterpretError", "load_program"]

_programs: dict[tuple, Program] = {}
_modules: dict[str, Module] = {}  # parsed sources, for many kernels of one text


def load_program(source_or_function, kernel: str | None = None) -> tuple[Program, str]:
    """The kernel typed and ready to run, and the name it is shown under:
    from a @kernel function (or a plain function written in the language),
    from source text plus ``kernel``, or from a .kkl path."""
    from .dsl_kernel import DslKernel
    src = source_or_function
    shown = None
    if inspect.isfunction(src):
        src = DslKernel(src)
    if isinstance(src, DslKernel):
        text, name, shown = src.source(), src.symbol, src.fn.__name__
        label = src.symbol
        if kernel is not None and kernel != shown:
            raise ValueError(f"interpret: kernel={kernel!r} but the function is {shown!r}")

        def where(line: int, k=src) -> str:
            f, n = k.location(line)
            return f"{f}:{n}"
    elif isinstance(src, (str, Path)):
        path = None
        if isinstance(src, Path) or ("\n" not in src and src.endswith((".kkl", ".py"))):
            path = Path(src)
            if not path.is_file():
                raise FileNotFoundError(f"interpret: no kernel source file {str(path)!r}")
            text = path.read_text()
        else:
            text = src
        label = str(path) if path else "<source>"

        def where(line: int, label=label) -> str:
            return f"{label}:{line}"
        name = kernel
    else:
        raise TypeError(f"interpret takes a @kernel function, source text or a .kkl path, not "
                        f"{type(source_or_function).__name__}")
    key = (text, name)
    if key in _programs:
        return _programs[key], shown or name
    module = _modules.get(text)
    if module is None or module.label != label:
        module = Module(text, where)
        module.label = label
        if len(_modules) > 8:
            _modules.clear()
        _modules[text] = module
    if name is None:
        if len(module.kernels) != 1:
            raise ValueError(f"interpret: the source defines the kernels {module.kernels}; choose one with kernel=")
        name = module.kernels[0]
    if name not in module.functions:
        raise ValueError(f"interpret: the source has no kernel {name!r} (kernels: {', '.join(module.kernels)})")
    prog = Compiler(module, name).compile()
    if shown:
        prog.name = shown
    if len(_programs) > 256:
        _programs.clear()
    _programs[key] = prog
    return prog, shown or name


def interpret(source_or_function, *args, grid, workgroup=64, kernel: str | None = None, lds_check: bool = True,
              **kwargs) -> None:
    """Runs the kernel on NumPy (see the module docstring); returns None, arrays are filled in place."""
    prog, shown = load_program(source_or_function, kernel)
    names = [n for n, _ in prog.params]
    values = dsl_arguments.bind_arguments(shown, names, args, kwargs)
    g, w = dsl_arguments.launch_dims(grid, workgroup)
    for what, dims in (("grid", g), ("workgroup", w)):
        for d in dims:
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
                raise ValueError(f"{shown}: {what} {dims} must hold positive integers")
    if int(np.prod(w)) > 1024:
        raise ValueError(f"{shown}: workgroup {w} has {int(np.prod(w))} work-items, more than 1024")
    memory, back = {}, []
    scalars = {}
    for slot, ((name, t), v) in enumerate(zip(prog.params, values)):
        if isinstance(t, tuple):
            want = np.dtype(ELEMENT_DTYPES[t[1]])
            if not isinstance(v, np.ndarray):
                raise TypeError(f"{dsl_arguments.describe(shown, name, f'ptr[{t[1]}]')} takes a NumPy array in "
                                f"interpret, not {type(v).__name__}")
            if v.dtype != want:
                raise TypeError(f"{dsl_arguments.describe(shown, name, f'ptr[{t[1]}]')} takes a {want} array, not "
                                f"{v.dtype} (convert it with .astype(np.{want}))")
            memory[slot] = np.array(v, copy=True).reshape(-1)  # a buffer of its own, as the decorator uploads
            if v.flags.writeable:
                back.append((slot, v))
        else:
            x = dsl_arguments.scalar_argument(shown, name, dsl_types.PARAMETER_SCALARS[t], v)
            scalars[slot] = np.float32(x) if t == "f32" else np.array(x, np.uint32).view(
                np.int32 if t == "s32" else np.uint32)[()]
    gz = tuple(g) + (1,) * (3 - len(g))
    wz = tuple(w) + (1,) * (3 - len(w))
    prog.grid = g
    with np.errstate(all="ignore"):
        for z in range(gz[2]):
            for y in range(gz[1]):
                for x in range(gz[0]):
                    st = Workgroup(prog, memory, (x, y, z), wz, gz, lds_check)
                    for slot, v in scalars.items():
                        st.vars[slot] = np.full(st.n, v)
                        st.defined[slot] = np.ones(st.n, bool)
                    prog.body(st, np.ones(st.n, bool))
    for slot, v in back:
        v[...] = memory[slot].reshape(v.shape)
