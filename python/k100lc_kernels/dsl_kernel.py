"""``@kernel``: a Python function written in the kernel language, compiled by
k100-cc on its first call and launched with NumPy arrays or device pointers.

    from k100lc_kernels import kernel
    from k100lc_kernels.dsl_types import ptr, f32, u32

    @kernel.inline
    def twice(x: f32) -> f32:
        return x + x

    @kernel
    def scale2(x: ptr[f32], y: ptr[f32], n: u32):
        i = gid()
        if i < n:
            y[i] = twice(x[i])

    scale2(x, y, len(x), grid=(len(x) + 63) // 64)   # y is filled in place

The source is the function's own text (``inspect.getsource``), dedented,
its decorator lines blanked and a docstring replaced by ``pass``, preceded
by its helpers: the functions decorated ``@kernel.inline`` in its module and
those given as ``@kernel(helpers=[...])``, each one the kernel (or another
included helper) calls by name, and ``NAME = value`` for each int or float
of the module (or an enclosing function) they read. It compiles once per process; the code object is loaded
once per Runtime. The kernel's symbol is ``<name>_k<12 hex digits of the
source's hash>``, so two kernels of the same name (or an edited one) never
collide in the engine's table.

A call ``f(*args, grid, workgroup=64, rt=None)`` launches on ``rt`` (default:
one Runtime shared by every decorated kernel) and waits for it. Arguments, in
the parameters' order (or by name):

* ``ptr[T]``: a device pointer (int), or a NumPy array of T's dtype
  (``bf16``: ``uint16`` bits), which is uploaded into a fresh buffer for this
  call. After the launch EVERY writable array argument is downloaded back into
  the array (inputs too: the kernel may write any pointer), then the buffers
  are freed; a read-only array is only uploaded.
* ``u32``/``s32``: a Python or NumPy integer in the type's range; ``f32``: an
  int or float, rounded to single precision.

``grid`` counts workgroups: an int, or a 2- or 3-tuple; ``workgroup`` an int
or a tuple of the same length (an int is the x size, the others 1).

Errors: a refused source is a ``k100lc_compiler.CompileError`` whose
diagnostics name the .py file and its line and column; a wrong argument
count, type or value is a TypeError/ValueError naming the parameter.
"""
from __future__ import annotations

import ast
import atexit
import hashlib
import inspect
import linecache
import math
import re
import shutil
import sys
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path

from . import dsl_arguments, dsl_types

_INLINE_MARK = "__k100_inline__"
_cache_dir: Path | None = None
_compiled: dict[str, Path] = {}  # source hash -> .hsaco, for this process
_default_rt = None


def _compiler():
    try:
        import k100lc_compiler
    except ModuleNotFoundError:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        import k100lc_compiler
    return k100lc_compiler


def _cache() -> Path:
    global _cache_dir
    if _cache_dir is None:
        _cache_dir = Path(tempfile.mkdtemp(prefix="k100lc-kernels-"))
        atexit.register(shutil.rmtree, _cache_dir, True)
    return _cache_dir


@dataclass
class _Segment:
    """Lines [first, first + count) of the compiled text are lines of `file` from `file_line` on."""
    first: int
    count: int
    file: str
    file_line: int
    indent: int
    # a renamed kernel: its def line in the compiled text, the column after the new name,
    # and how many columns longer the new name is
    def_line: int = 0
    name_end: int = 0
    name_shift: int = 0


def _function_text(fn) -> tuple[list[str], str, int, int, ast.FunctionDef]:
    """The function's dedented lines, file, first line and indent width, and its syntax tree."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise TypeError(f"@kernel: the source of {getattr(fn, '__qualname__', fn)!r} is not available "
                        f"({e}); define it in a file") from None
    lines = [l.rstrip("\r\n") for l in lines]
    # dedent by the first line's indentation; a line indented less (a comment or a
    # continuation line at column 0) loses only the blanks it has
    prefix = lines[0][:len(lines[0]) - len(lines[0].lstrip())] if lines else ""
    indent = len(prefix)
    lines = [l[indent:] if l.startswith(prefix) else l.lstrip(" \t") for l in lines]
    try:
        tree = ast.parse("\n".join(lines) + "\n")
    except SyntaxError as e:
        raise TypeError(f"@kernel: the source of {fn.__qualname__!r} does not parse as a function "
                        f"({e.msg}, line {first + (e.lineno or 1) - 1})") from None
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TypeError(f"@kernel: {fn!r} is not a plain function (def)")
    return lines, inspect.getsourcefile(fn) or "<unknown>", first, indent, node


def _prepare(fn, helper: bool) -> tuple[list[str], str, int, int, ast.FunctionDef]:
    """The function's text as the language wants it: decorator lines blanked
    (``@inline`` for a helper), a docstring replaced by ``pass``; line numbers kept."""
    lines, file, first, indent, node = _function_text(fn)
    if node.decorator_list:
        start = min(d.lineno for d in node.decorator_list) - 1
        for i in range(start, node.lineno - 1):
            lines[i] = ""
        if helper:
            lines[start] = "@inline"
    body0 = node.body[0]
    if isinstance(body0, ast.Expr) and isinstance(body0.value, ast.Constant) and isinstance(body0.value.value, str):
        for i in range(body0.lineno - 1, body0.end_lineno):
            lines[i] = ""
        lines[body0.lineno - 1] = " " * body0.col_offset + "pass"
    return lines, file, first, indent, node


def _called_names(node: ast.FunctionDef) -> set[str]:
    return {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}


def _constants(functions) -> list[str]:
    """``NAME = value`` lines for the module-level (or enclosing) int and float
    constants the functions read: the language folds them where they are used."""
    found: dict[str, object] = {}
    for fn, tree in functions:
        local = {a.arg for a in tree.args.args} | {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        cv = inspect.getclosurevars(fn)
        for name, v in {**cv.globals, **cv.nonlocals}.items():
            if name not in read or name in local or isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            if isinstance(v, float) and not math.isfinite(v):
                raise TypeError(f"@kernel {fn.__qualname__}: the constant {name} = {v!r} is not a finite number")
            if isinstance(v, int) and not -(1 << 31) <= v < (1 << 32):
                raise TypeError(f"@kernel {fn.__qualname__}: the constant {name} = {v} does not fit 32 bits")
            if name in found and found[name] != v:
                raise TypeError(f"@kernel: the constant {name} is {found[name]!r} in one function and {v!r} in "
                                f"another ({fn.__qualname__}); give them different names")
            found[name] = v
    return [f"{name} = {found[name]!r}" for name in sorted(found)]


def _parameter_type(arg: ast.arg):
    text = ast.unparse(arg.annotation) if arg.annotation is not None else ""
    m = re.fullmatch(r"\s*ptr\s*\[\s*(\w+)\s*\]\s*", text)
    if m and m[1] in dsl_types.ELEMENT_TYPES:
        return dsl_types.PointerType(dsl_types.ELEMENT_TYPES[m[1]])
    if text.strip() in dsl_types.PARAMETER_SCALARS:
        return dsl_types.PARAMETER_SCALARS[text.strip()]
    return None  # the compiler has refused it already


class DslKernel:
    """A decorated kernel; see the module docstring."""

    def __init__(self, fn, helpers=()):
        if not inspect.isfunction(fn):
            raise TypeError(f"@kernel decorates a function, not {type(fn).__name__}")
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.helpers = list(helpers)
        for h in self.helpers:
            if not inspect.isfunction(h):
                raise TypeError(f"@kernel({fn.__name__}): helpers must be functions, not {h!r}")
        self._source = None
        self._segments: list[_Segment] = []
        self._params: list[tuple[str, object]] = []
        self.symbol = ""
        self._hsaco: Path | None = None
        self._loaded = weakref.WeakSet()

    # ------------------------------------------------------------ source
    def _helper(self, name: str, caller):
        """The helper `caller` calls by `name`: one given in helpers=, else one marked
        @kernel.inline in the caller's module; None when there is none."""
        for h in self.helpers:
            if h.__name__ == name:
                return h
        v = caller.__globals__.get(name)
        return v if inspect.isfunction(v) and getattr(v, _INLINE_MARK, False) else None

    def source(self) -> str:
        """The .kkl text compiled for this kernel (helpers first, then the kernel)."""
        if self._source is None:
            self._build_source()
        return self._source

    def _build_source(self) -> None:
        lines, file, first, indent, node = _prepare(self.fn, helper=False)
        order, todo, seen = [], [(self.fn, node)], {self.fn.__name__}
        prepared, funcs = {}, {}
        while todo:  # helpers reached from the kernel by name, transitively
            caller, tree = todo.pop()
            for name in sorted(_called_names(tree)):
                h = self._helper(name, caller)
                if h is not None and name not in seen:
                    seen.add(name)
                    prepared[name], funcs[name] = _prepare(h, helper=True), h
                    order.append(name)
                    todo.append((h, prepared[name][4]))
        constants = _constants([(self.fn, node)] + [(funcs[n], prepared[n][4]) for n in order])
        digest = hashlib.sha256("\n".join(lines).encode())
        for name in order:
            digest.update(b"\0" + "\n".join(prepared[name][0]).encode())
        digest.update(b"\0" + "\n".join(constants).encode())
        self.symbol = f"{self.fn.__name__}_k{digest.hexdigest()[:12]}"
        out, segments = (constants + [""]) if constants else [], []
        for name in order:
            h_lines, h_file, h_first, h_indent, _ = prepared[name]
            segments.append(_Segment(len(out) + 1, len(h_lines), h_file, h_first, h_indent))
            out += h_lines + [""]
        # the kernel under its symbol; columns after the name shift back by the added length
        d = node.lineno - 1
        m = re.match(r"(\s*def\s+)" + re.escape(self.fn.__name__) + r"\b", lines[d])
        seg = _Segment(len(out) + 1, len(lines), file, first, indent)
        if m:
            lines[d] = m[1] + self.symbol + lines[d][m.end():]
            seg.name_shift = len(self.symbol) - len(self.fn.__name__)
            seg.def_line, seg.name_end = seg.first + d, m.end() + 1 + seg.name_shift
        segments.append(seg)
        out += lines
        self._source = "\n".join(out) + "\n"
        self._segments = segments
        self._params = [(a.arg, _parameter_type(a)) for a in node.args.args]

    def location(self, line: int) -> tuple[str, int]:
        """(file, line) of a line of the compiled text (source())."""
        self.source()
        for s in self._segments:
            if s.first <= line < s.first + s.count:
                return s.file, s.file_line + line - s.first
        return "<kernel source>", line

    def _line(self, line: int, file: str) -> str:
        """'line N' of a compiled-text line as the .py file's line ('line N of FILE' in another file)."""
        for s in self._segments:
            if s.first <= line < s.first + s.count:
                n = s.file_line + line - s.first
                return f"line {n}" if s.file == file else f"line {n} of {s.file}"
        return f"line {line}"

    def _map(self, error):
        """The CompileError with lines, columns and source lines of the .py files."""
        for d in error.diagnostics:
            original_line = d.line
            for s in self._segments:
                if d.line and s.first <= d.line < s.first + s.count:
                    col = d.col
                    if d.line == s.def_line and col >= s.name_end:
                        col -= s.name_shift
                    d.file, d.line, d.col = s.file, s.file_line + d.line - s.first, col + s.indent
                    text = linecache.getline(s.file, d.line).rstrip("\r\n")
                    if text:
                        d.source_line, d.caret = text, " " * (d.col - 1) + "^"
                    break
            if original_line:
                d.message = re.sub(r"\bline (\d+)\b", lambda m: self._line(int(m[1]), d.file), d.message)
            d.message = d.message.replace(self.symbol, self.fn.__name__)
        text = "\n".join(str(d) for d in error.diagnostics) or str(error).replace(self.symbol, self.fn.__name__)
        return type(error)(text, error.diagnostics)

    def compile(self) -> Path:
        """Compiles the kernel (once per process); the path of its .hsaco."""
        if self._hsaco is not None:
            return self._hsaco
        source = self.source()
        key = self.symbol
        if key not in _compiled:
            cc = _compiler()
            out = _cache() / key
            try:
                paths = cc.compile_source(source, out, only=self.symbol, filename=self._segments[-1].file)
            except cc.CompileError as e:
                raise self._map(e) from None
            _compiled[key] = paths[0]
        self._hsaco = _compiled[key]
        return self._hsaco

    # ------------------------------------------------------------ launch
    def _runtime(self, rt):
        global _default_rt
        hsaco = self.compile()
        if rt is None:
            if _default_rt is None:
                from .runtime import Runtime
                _default_rt = Runtime(hsaco=hsaco)
            rt = _default_rt
        if rt not in self._loaded:
            rt.load(hsaco)  # a no-op when the engine has this file already
            self._loaded.add(rt)
        return rt

    def _what(self, name: str, t) -> str:
        return dsl_arguments.describe(self.fn.__name__, name, t)

    def _scalar(self, name: str, t, v) -> int | float:
        return dsl_arguments.scalar_argument(self.fn.__name__, name, t, v)

    def _bind(self, args, kwargs) -> list:
        return dsl_arguments.bind_arguments(self.fn.__name__, [n for n, _ in self._params], args, kwargs)

    @staticmethod
    def _dims(grid, workgroup) -> tuple[tuple, tuple]:
        return dsl_arguments.launch_dims(grid, workgroup)

    def __call__(self, *args, grid, workgroup=64, rt=None, **kwargs):
        self.compile()
        values = self._bind(args, kwargs)
        g, w = self._dims(grid, workgroup)
        rt = self._runtime(rt)
        launch_arrays(rt, self.symbol, self.fn.__name__, self._params, values, g, w)

    def __repr__(self) -> str:
        return f"<k100lc kernel {self.fn.__module__}.{self.fn.__qualname__}>"


def launch_arrays(rt, symbol: str, fname: str, params, values, g: tuple, w: tuple) -> None:
    """Launches the loaded kernel `symbol` with `values` for `params` ((name,
    dsl_types type) pairs): arrays uploaded into buffers of their own and every
    writable one downloaded back after the launch; waits for the kernel."""
    import numpy as np
    argv, owned, back = [], [], []
    try:
        for (name, t), v in zip(params, values):
            if isinstance(t, dsl_types.PointerType):
                if isinstance(v, np.ndarray):
                    want = np.dtype(t.element.numpy_dtype)
                    if v.dtype != want:
                        raise TypeError(f"{dsl_arguments.describe(fname, name, t)} takes a {want} array, not "
                                        f"{v.dtype} (convert it with .astype(np.{want}))")
                    p = rt.alloc(v.nbytes)
                    owned.append(p)
                    rt.upload(p, np.ascontiguousarray(v))
                    if v.flags.writeable:
                        back.append((p, v))
                    argv.append(p)
                elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                    argv.append(int(v))
                else:
                    raise TypeError(f"{dsl_arguments.describe(fname, name, t)} takes a NumPy array or a device "
                                    f"pointer (int), not {type(v).__name__}")
            else:
                argv.append(dsl_arguments.scalar_argument(fname, name, t, v))
        if len(g) == 1:
            rt.launch(symbol, g[0], w[0], argv)
        elif len(g) == 2:
            rt.launch2d(symbol, g[0], g[1], w[0], w[1], argv)
        else:
            rt.launch3d(symbol, *g, *w, argv)
        rt.sync()
        for p, v in back:
            out = rt.download(p, v.size, v.dtype)
            v[...] = out.reshape(v.shape)
    finally:
        for p in owned:
            rt.free(p)


class _KernelDecorator:
    """``@kernel``, ``@kernel(helpers=[...])`` and ``@kernel.inline``."""

    def __call__(self, fn=None, *, helpers=()):
        if fn is None:
            return lambda f: DslKernel(f, helpers)
        return DslKernel(fn, helpers)

    @staticmethod
    def inline(fn):
        """Marks a helper: inlined into every decorated kernel of its module that calls it."""
        if not inspect.isfunction(fn):
            raise TypeError(f"@kernel.inline decorates a function, not {type(fn).__name__}")
        setattr(fn, _INLINE_MARK, True)
        return fn


kernel = _KernelDecorator()
