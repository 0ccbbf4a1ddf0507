"""The interpreter's front end: a kernel of the language (Python's ``ast`` of
the source) checked and typed as k100-cc types it (typing.h: literals,
promotion, conversions, helpers inlined at each call, ``static_range``
unrolled, module constants folded), and turned into Python closures over
NumPy lane vectors that interpret_workgroup.Workgroup runs.

An expression becomes ``Typed(type, fn, lit)``: ``fn(st, m)`` gives its value
for the lanes of mask ``m`` (other lanes hold anything); ``lit`` is the value
of an integer or float literal (the compiler folds and converts those at
compile time). A statement becomes ``fn(st, m)``.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

import numpy as np

from . import interpret_values as V
from .interpret_module import BINOPS, Module, const_eval
from .interpret_workgroup import InterpretError

MAX_TRIPS = 1 << 20  # loop trips per workgroup before the interpreter calls the loop endless
MAX_UNROLLED = 1 << 16


@dataclass
class Typed:
    """A typed expression: its type, and the function computing its per-lane value, or its literal, or the memory it names."""
    type: str                # u32 s32 f32 f16 bf16 u64 bool void, or "mem"
    fn: object = None        # fn(st, m) -> value
    lit: object = None       # an int (bits) or float literal
    slot: int = -1           # a memory name: its slot
    name: str = ""


@dataclass
class Frame:
    """What a kernel or inlined helper sees: its names' slots, static_range counters, result slot and loop depth."""
    fn: ast.FunctionDef | None = None
    names: dict = field(default_factory=dict)    # name -> slot
    consts: dict = field(default_factory=dict)   # static_range counters
    result: int = -1
    returns: str | None = None
    loops: int = 0


@dataclass
class Program:
    """A kernel ready to run: its parameters, variable slots, LDS arrays and body."""
    name: str
    params: list          # (name, type) with type "u32"/"s32"/"f32" or ("ptr", elem)
    var_types: list       # per slot: a value type, or ("ptr", elem) / ("lds", elem)
    var_names: list
    lds: dict             # slot -> (elem, count)
    body: object
    where: object         # where(line) -> "file:line"
    grid: tuple = (1,)


_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_CMP_FN = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
           ">=": np.greater_equal}
ELEMENTS = ("f32", "f16", "bf16", "u32", "s32", "u16", "s16", "u8", "s8")


def _const(value):
    return lambda st, m: value


def _sequence(fns):
    """Statements one after the other; lanes that left (break, continue, return) drop out."""
    def run(st, m):
        for f in fns:
            if st.off.any():
                m = m & ~st.off
                if not m.any():
                    return
            f(st, m)
    return run


class Compiler:
    """Types one kernel and builds its closures (see the module docstring)."""

    def __init__(self, module: Module, kernel: str):
        self.mod = module
        self.kname = kernel
        self.var_types: list = []
        self.var_names: list = []
        self.lds: dict = {}
        self.lds_bytes = 0
        self.frames = [Frame()]
        self.inlining: list[str] = []
        self.block_depth = 0
        self.unrolled = 0

    # ------------------------------------------------------------ basics
    def error(self, node, message: str):
        """Raises InterpretError at the node's file, line and column."""
        line = getattr(node, "lineno", 0)
        col = getattr(node, "col_offset", -1) + 1
        raise InterpretError(f"{self.mod.where(line)}:{col}: {message} (kernel '{self.kname}')")

    @property
    def frame(self) -> Frame:
        """The innermost frame (kernel or inlined helper)."""
        return self.frames[-1]

    def new_var(self, name: str, t) -> int:
        """A new variable slot of type t."""
        self.var_types.append(t)
        self.var_names.append(name)
        return len(self.var_types) - 1

    def compile(self) -> Program:
        """The kernel's Program: its parameters checked and its body compiled."""
        f = self.mod.functions[self.kname]
        params = []
        for a in f.args.args:
            t = self.annotation(a.annotation, a, allow_ptr=True)
            if not isinstance(t, tuple) and t not in ("u32", "s32", "f32"):
                self.error(a, f"parameter '{a.arg}' must be u32, s32, f32 or ptr[T]")
            self.frame.names[a.arg] = self.new_var(a.arg, t)
            params.append((a.arg, t))
        body = self.block(f.body)
        return Program(self.kname, params, self.var_types, self.var_names, self.lds, body, self.mod.where)

    def annotation(self, node, owner, allow_ptr: bool):
        """The type an annotation names (a pointer only where allowed)."""
        if node is None:
            self.error(owner, f"'{getattr(owner, 'arg', '?')}' needs a type annotation (u32, s32, f32, ptr[f32], ...)")
        if isinstance(node, ast.Name) and node.id in ("u32", "s32", "f32", "f16", "bf16", "u64"):
            return node.id
        if (allow_ptr and isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and node.value.id == "ptr" and isinstance(node.slice, ast.Name) and node.slice.id in ELEMENTS):
            return ("ptr", node.slice.id)
        self.error(node, f"unknown type {ast.unparse(node)!r}")

    def numeric(self, tv: Typed, node, what: str) -> Typed:
        """tv, refused unless it is a number."""
        if tv.type == "mem":
            self.error(node, f"'{tv.name}' is a pointer or an LDS array and cannot be used as a number in {what}; "
                             f"index it: {tv.name}[i]")
        if tv.type == "void":
            self.error(node, f"this call has no value; {what} needs a number")
        if tv.type == "bool":
            self.error(node, f"a comparison result cannot be used as a number in {what}; write (1 if c else 0)")
        return tv

    def convert(self, tv: Typed, to: str) -> Typed:
        """tv converted to type `to` as compiled code converts."""
        frm = tv.type
        if frm == to:
            return tv
        if isinstance(tv.lit, int) and V.is_float(to) and to != "bf16":
            v = float(np.int32(np.uint32(tv.lit).view(np.int32))) if frm == "s32" else float(tv.lit)
            return self.literal(to, v)
        if isinstance(tv.lit, int) and V.is_int(to) and V.is_int(frm):
            bits = tv.lit
            if to == "u64" and frm == "s32" and bits >= 1 << 31:
                bits = (bits - (1 << 32)) & ((1 << 64) - 1)
            return self.literal(to, bits)
        if isinstance(tv.lit, float) and to == "f32" and frm == "f16":
            return self.literal(to, tv.lit)
        fn = tv.fn
        return Typed(to, lambda st, m: V.convert(fn(st, m), frm, to))

    def literal(self, t: str, value) -> Typed:
        """A literal of type t."""
        c = V.constant(t, value)
        lit = (int(value) & ((1 << 64) - 1 if t == "u64" else 0xFFFFFFFF)) if V.is_int(t) else float(
            np.float32(value)) if t == "f32" else float(value)
        return Typed(t, _const(c), lit)

    def common(self, a: Typed, b: Typed, node, what: str) -> str:
        """The type both operands of a binary operation are converted to."""
        x, y = a.type, b.type
        if "bf16" in (x, y):
            self.error(node, f"{what} on bf16 values is not supported; convert with f32(x) first")
        if "u64" in (x, y):
            other = y if x == "u64" else x
            if other in ("u64", "u32"):
                return "u64"
            self.error(node, f"{what} mixes a u64 mask with {other}; u64 values combine only with u64 and u32")
        for t in ("f32", "f16", "s32"):
            if t in (x, y):
                return t
        return "u32"

    # ------------------------------------------------------------ expressions
    def expr(self, node) -> Typed:
        """Any expression node, typed."""
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                self.error(node, f"{v!r} is not supported; numbers are integer or float literals")
            if isinstance(v, int):
                if v >= 1 << 32:
                    self.error(node, f"integer literal {v} does not fit in 32 bits; integers are u32 or s32")
                return self.literal("u32", v)
            return self.literal("f32", v)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.BinOp):
            if type(node.op) not in BINOPS:
                self.error(node, f"the operator {type(node.op).__name__} is not part of the language")
            return self.binary(BINOPS[type(node.op)], self.expr(node.left), self.expr(node.right), node)
        if isinstance(node, ast.BoolOp):
            vals = [self.expr(v) for v in node.values]
            for v, n in zip(vals, node.values):
                if v.type != "bool":
                    self.error(n, "'and'/'or' combine comparisons; for an integer write x != 0")
            op = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            fns = [v.fn for v in vals]

            def both(st, m):  # every side is evaluated, as compiled
                r = fns[0](st, m)
                for f in fns[1:]:
                    r = op(r, f(st, m))
                return r
            return Typed("bool", both)
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                self.error(node, "chained comparisons are not supported; write (a < b) and (b < c)")
            if type(node.ops[0]) not in _CMPOPS:
                self.error(node, f"the comparison {type(node.ops[0]).__name__} is not part of the language")
            return self.compare(_CMPOPS[type(node.ops[0])], self.expr(node.left), self.expr(node.comparators[0]), node)
        if isinstance(node, ast.IfExp):
            return self.if_exp(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript):
            return self.load(node)
        self.error(node, f"{type(node).__name__} is not part of the language")

    def name(self, node: ast.Name) -> Typed:
        """A name: a variable, constant, parameter or static_range counter."""
        f = self.frame
        if node.id in f.names:
            s = f.names[node.id]
            t = self.var_types[s]
            if isinstance(t, tuple):
                return Typed("mem", slot=s, name=node.id)
            if t == "void":
                self.error(node, f"'{node.id}' has no value")
            line, nm = node.lineno, node.id

            def read(st, m):
                d = st.defined[s]
                if not d[m].all():
                    lane_index = int(np.flatnonzero(m & ~d)[0])
                    st.fail(line, f"'{nm}' is read before it is assigned on this path ({st.item(lane_index)}); "
                                  "assign it on every path that reaches this read")
                return st.vars[s]
            return Typed(t, read)
        if node.id in f.consts:
            v = f.consts[node.id]
            return self.literal("s32" if v < 0 else "u32", v)
        if node.id in self.mod.constants:
            v = self.mod.constants[node.id]
            if isinstance(v, float):
                return self.literal("f32", v)
            return self.literal("s32" if v < 0 else "u32", v)
        self.error(node, f"unknown name '{node.id}'; a variable must be assigned before it is read")

    def unary(self, node: ast.UnaryOp) -> Typed:
        """-x, ~x and not x."""
        a = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            if a.type != "bool":
                self.error(node, "'not' takes a comparison; for an integer write x == 0")
            fn = a.fn
            return Typed("bool", lambda st, m: np.logical_not(fn(st, m)))
        if isinstance(node.op, ast.UAdd):
            self.error(node, "unary '+' is not part of the language")
        self.numeric(a, node, "a unary operator")
        t = a.type
        if t == "bf16":
            self.error(node, "arithmetic on bf16 values is not supported; convert with f32(x) first")
        if isinstance(node.op, ast.Invert):
            if not V.is_int(t):
                self.error(node, "'~' needs an integer")
            fn = a.fn
            return Typed(t, lambda st, m: np.invert(fn(st, m)))
        if isinstance(a.lit, int) and t != "u64":
            v = a.lit
            if t == "u32" and v > 0x80000000:
                self.error(node, f"-{v} does not fit in 32 bits (s32 reaches -2147483648)")
            nt = "s32" if t == "u32" else t
            return self.literal(nt, (~v + 1) & 0xFFFFFFFF)
        if isinstance(a.lit, float):
            return self.literal(t, -a.lit)
        fn = a.fn
        return Typed(t, lambda st, m: V.negate(fn(st, m), t))

    def binary(self, op: str, a: Typed, b: Typed, node) -> Typed:
        """An arithmetic, bit or shift operation with the language's promotion and wrap-around rules."""
        self.numeric(a, node, f"'{op}'")
        self.numeric(b, node, f"'{op}'")
        fa, fb = a.fn, b.fn
        if op in ("&", "|", "^", "<<", ">>"):
            for x in (a, b):
                if not V.is_int(x.type):
                    self.error(node, f"'{op}' needs integers (u32, s32 or u64), not {x.type}")
        if op in ("<<", ">>"):
            t, left = a.type, op == "<<"
            return Typed(t, lambda st, m: V.shift(fa(st, m), fb(st, m), left, t))
        t = self.common(a, b, node, f"'{op}'")
        if t == "u64" and op in ("*", "/", "//", "%"):
            self.error(node, f"'{op}' on u64 masks is not supported")
        if V.is_float(t) and op in ("//", "%"):
            self.error(node, f"'{op}' on floats is not supported; write floor(a / b)")
        if V.is_int(t) and op in ("/", "//", "%") and b.lit == 0:
            self.error(node, "division by zero")
        a, b = self.convert(a, t), self.convert(b, t)
        fa, fb = a.fn, b.fn
        line = node.lineno
        if op in ("&", "|", "^"):
            f = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op]
            return Typed(t, lambda st, m: f(fa(st, m), fb(st, m)))
        if op in ("+", "-", "*"):
            f = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
            return Typed(t, lambda st, m: f(fa(st, m), fb(st, m)))
        if V.is_float(t):  # a / b: a times the reciprocal of b (DSL.md; the emulator's reciprocal is exact)
            return Typed(t, lambda st, m: fa(st, m) * V.reciprocal(fb(st, m), t))
        rem = op == "%"

        def div(st, m):
            x, y = fa(st, m), fb(st, m)
            zero = np.broadcast_to(np.asarray(y) == 0, m.shape) & m
            if zero.any():
                st.fail(line, f"integer division by zero ({st.item(int(np.flatnonzero(zero)[0]))}); the compiled "
                              "code gives an unspecified value")
            return V.divide(x, y, t, rem)
        return Typed(t, div)

    def compare(self, op: str, a: Typed, b: Typed, node) -> Typed:
        """A comparison, giving bool."""
        self.numeric(a, node, f"'{op}'")
        self.numeric(b, node, f"'{op}'")
        t = self.common(a, b, node, f"comparison '{op}'")
        if t == "u64" and op not in ("==", "!="):
            self.error(node, "u64 masks compare only with == and !=")
        a, b = self.convert(a, t), self.convert(b, t)
        fa, fb, f = a.fn, b.fn, _CMP_FN[op]
        return Typed("bool", lambda st, m: f(fa(st, m), fb(st, m)))

    def condition(self, node, allow_literal: bool) -> Typed:
        """An if/while condition (bool, or a number compared with 0)."""
        c = self.expr(node)
        if c.type == "bool":
            return c
        if allow_literal and isinstance(c.lit, int) and isinstance(node, ast.Constant):
            if c.lit == 0:
                self.error(node, "'while 0' never runs; remove the loop")
            return Typed("bool", _const(True))
        self.error(node, "a condition must be a comparison (or and/or/not of comparisons)")

    def if_exp(self, node: ast.IfExp) -> Typed:
        """`a if c else b` (both sides evaluated)."""
        c = self.condition(node.test, False)
        a, b = self.expr(node.body), self.expr(node.orelse)
        if a.type == "bool" and b.type == "bool":
            t = "bool"
        else:
            self.numeric(a, node, "a conditional expression")
            self.numeric(b, node, "a conditional expression")
            t = self.common(a, b, node, "a conditional expression")
            a, b = self.convert(a, t), self.convert(b, t)
        fc, fa, fb = c.fn, a.fn, b.fn
        return Typed(t, lambda st, m: np.where(fc(st, m), fa(st, m), fb(st, m)))

    def memory(self, node) -> Typed:
        """The pointer parameter or LDS array an expression names."""
        if not isinstance(node, ast.Name):
            self.error(node, "only a pointer parameter or an LDS array can be indexed")
        tv = self.name(node)
        if tv.type != "mem":
            self.error(node, f"'{node.id}' is not a pointer or an LDS array; only those can be indexed")
        return tv

    def index(self, node) -> Typed:
        """An index expression converted to an integer."""
        i = self.numeric(self.expr(node), node, "an index")
        if i.type not in ("u32", "s32"):
            self.error(node, f"an index must be u32 or s32, not {i.type}; convert with u32(x)")
        return i

    def load(self, node: ast.Subscript) -> Typed:
        """p[i] from global memory or LDS, bounds-checked."""
        mem = self.memory(node.value)
        idx = self.index(node.slice)
        kind, elem = self.var_types[mem.slot]
        s, name, line, fi = mem.slot, mem.name, node.lineno, idx.fn
        if kind == "lds":
            count = self.lds[s][1]
            if idx.lit is not None:
                i = idx.lit - (1 << 32) if idx.type == "s32" and idx.lit >= 1 << 31 else idx.lit
                if not 0 <= i < count:
                    self.error(node.slice, f"index {i} is outside LDS array '{name}' of {count} elements")

            def lds_load(st, m):
                arr = st.lds[s]
                ii = st.index_of(fi(st, m), m, line, "load from LDS array", name, arr.size)
                st.race_access(s, ii, m, line, name, False, False)
                out = np.zeros(st.n, arr.dtype)
                out[m] = arr[ii]
                return out
            return Typed(elem, lds_load)
        t = V.LOADED_TYPE.get(elem, elem)
        dt = V.DTYPES[t]

        def global_load(st, m):
            arr = st.memory[s]
            ii = st.index_of(fi(st, m), m, line, "load from", name, arr.size)
            out = np.zeros(st.n, dt)
            out[m] = arr[ii]  # u8/u16 zero-extend, s8/s16 sign-extend
            return out
        return Typed(t, global_load)

    def call(self, node: ast.Call) -> Typed:
        """A call: a built-in or an inline helper."""
        if not isinstance(node.func, ast.Name):
            self.error(node, "only built-ins and helpers can be called")
        if node.keywords:
            self.error(node, "keyword arguments are not supported")
        name = node.func.id
        from .interpret_builtins import BUILTINS, builtin_call
        if name in BUILTINS:
            return builtin_call(self, node, name)
        if name in self.mod.functions and name != self.kname:
            return self.inline(node, self.mod.functions[name])
        self.error(node, f"unknown function '{name}'; calls are to built-ins (DSL.md) or to helpers defined at "
                         "the top level")

    def inline(self, node: ast.Call, h: ast.FunctionDef) -> Typed:
        """A helper function's body inlined at its call with its own frame."""
        if h.name in self.inlining:
            self.error(node, f"recursive call of helper '{h.name}'; helpers are inlined, write a loop")
        if len(node.args) != len(h.args.args):
            self.error(node, f"helper '{h.name}' takes {len(h.args.args)} arguments, got {len(node.args)}")
        f = Frame(fn=h)
        binds = []
        for a, p in zip(node.args, h.args.args):
            tv = self.expr(a)
            want = self.annotation(p.annotation, p, allow_ptr=True) if p.annotation is not None else None
            if tv.type == "mem":
                if want is not None and want != self.var_types[tv.slot]:
                    self.error(a, f"helper parameter '{p.arg}' is {want} but '{tv.name}' is "
                                  f"{self.var_types[tv.slot]}")
                f.names[p.arg] = tv.slot
                continue
            if isinstance(want, tuple):
                self.error(a, f"helper parameter '{p.arg}' is a pointer; pass a pointer parameter")
            self.numeric(tv, a, "a helper argument")
            if want is not None:
                if V.is_float(tv.type) and V.is_int(want):
                    self.error(a, f"helper parameter '{p.arg}' is {want} but the argument is {tv.type}; convert "
                                  f"with {want}(x)")
                tv = self.convert(tv, want)
            s = self.new_var(p.arg, tv.type)
            f.names[p.arg] = s
            binds.append(self.write(s, tv.fn))
        returns_value = bool(h.body) and isinstance(h.body[-1], ast.Return) and h.body[-1].value is not None
        if returns_value:
            f.result = self.new_var(h.name, "void")
            if h.returns is not None:
                f.returns = self.annotation(h.returns, h, allow_ptr=False)
        self.frames.append(f)
        self.inlining.append(h.name)
        saved_depth, self.block_depth = self.block_depth, 1
        body = self.block(h.body)
        self.block_depth = saved_depth
        self.inlining.pop()
        self.frames.pop()

        def run(st, m):
            saved_off, saved_gone = st.off, st.gone
            for b in binds:
                b(st, m)
            body(st, m)
            st.off, st.gone = saved_off, saved_gone
        if not returns_value:
            return Typed("void", run)
        r = f.result
        if self.var_types[r] == "void":
            self.error(node, f"helper '{h.name}' has no value")

        def value(st, m):
            run(st, m)
            return st.vars[r]
        return Typed(self.var_types[r], value)

    # ------------------------------------------------------------ statements
    def write(self, slot: int, fn):
        """A step that assigns fn's value to variable `slot` in the active lanes."""
        dt = V.DTYPES[self.var_types[slot]]

        def assign(st, m):
            v = fn(st, m)
            st.vars[slot] = np.where(m, v, st.vars[slot]).astype(dt, copy=False)
            st.defined[slot] = st.defined[slot] | m
        return assign

    def block(self, stmts) -> object:
        """A statement list compiled to one step."""
        return _sequence([f for f in (self.statement(s) for s in stmts) if f is not None])

    def statement(self, s):
        """One statement compiled to a step."""
        if isinstance(s, ast.Pass):
            return None
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                self.error(s, "strings are not part of the language (a docstring: write a # comment)")
            if not isinstance(s.value, ast.Call):
                self.error(s, "this expression has no effect; assign it to a variable or store it (p[i] = v)")
            tv = self.call(s.value)
            from .interpret_builtins import VALUE_ONLY
            if isinstance(s.value.func, ast.Name) and s.value.func.id in VALUE_ONLY:
                self.error(s, f"the result of {s.value.func.id}(...) is unused; assign it to a variable")
            fn = tv.fn
            return lambda st, m: (fn(st, m), None)[1]
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if len(targets) != 1 or isinstance(targets[0], (ast.Tuple, ast.List)):
                self.error(s, "assign one target at a time")
            target = targets[0]
            if s.value is None:
                self.error(s, "a typed local needs a value: x: f32 = 0.0")
            if (isinstance(s, ast.Assign) and isinstance(target, ast.Name) and isinstance(s.value, ast.Call)
                    and isinstance(s.value.func, ast.Name) and s.value.func.id == "lds"):
                return self.lds_declaration(target, s.value)
            value = self.expr(s.value)
            if isinstance(target, ast.Name):
                ann = self.annotation(s.annotation, s, allow_ptr=False) if isinstance(s, ast.AnnAssign) else None
                return self.assign_name(target, value, ann, s)
            if isinstance(target, ast.Subscript):
                return self.store(target, value, s)
            self.error(s, "only a name or p[i] can be assigned")
        if isinstance(s, ast.AugAssign):
            if not isinstance(s.target, ast.Name):
                self.error(s, "x op= v takes a variable name; write p[i] = p[i] op v for memory")
            if type(s.op) not in BINOPS:
                self.error(s, "this operator is not part of the language")
            lhs = self.name(s.target)
            if lhs.type == "mem":
                self.error(s, f"'{s.target.id}' is a pointer or LDS array; update an element")
            r = self.binary(BINOPS[type(s.op)], lhs, self.expr(s.value), s)
            return self.assign_name(s.target, r, None, s)
        if isinstance(s, ast.If):
            return self.if_stmt(s)
        if isinstance(s, ast.While):
            if s.orelse:
                self.error(s, "while ... else is not supported")
            c = self.condition(s.test, True)
            self.frame.loops += 1
            self.block_depth += 1
            body = self.block(s.body)
            self.block_depth -= 1
            self.frame.loops -= 1
            return self.loop(None, c.fn, body, s.lineno)
        if isinstance(s, ast.For):
            return self.for_stmt(s)
        if isinstance(s, (ast.Break, ast.Continue)):
            what = "break" if isinstance(s, ast.Break) else "continue"
            if self.frame.loops == 0:
                self.error(s, f"'{what}' outside a loop")
            if isinstance(s, ast.Break):
                def brk(st, m):
                    st.off = st.off | m
                    st.breaks[-1] = st.breaks[-1] | m
                return brk

            def cont(st, m):
                st.off = st.off | m
            return cont
        if isinstance(s, ast.Return):
            return self.return_stmt(s)
        self.error(s, f"{type(s).__name__} is not part of the language")

    def assign_name(self, target: ast.Name, value: Typed, ann, s):
        """An assignment to a name, declaring the variable at its first value."""
        n = target.id
        from .interpret_builtins import BUILTINS
        if n in BUILTINS or n in self.mod.functions or n in self.mod.constants or n in self.frame.consts:
            self.error(target, f"'{n}' is a built-in, helper or constant; choose another variable name")
        slot = self.frame.names.get(n, -1)
        if slot >= 0:
            t = self.var_types[slot]
            if isinstance(t, tuple):
                self.error(target, f"'{n}' is a pointer or LDS array; store an element: {n}[i] = v")
            if slot < len(self.mod.functions[self.kname].args.args) and len(self.frames) == 1:
                self.error(target, f"parameter '{n}' cannot be assigned; copy it into a local variable")
        if value.type == "mem":
            self.error(s, "local pointers are not supported; index the parameter directly")
        if value.type == "bool":
            self.error(s, "a comparison result cannot be stored in a variable; write (1 if c else 0)")
        if value.type == "void":
            self.error(s, "this call has no value to assign")
        frm = value.type
        to = frm
        if ann is not None:
            to = ann
            if slot >= 0 and self.var_types[slot] != to:
                self.error(s, f"'{n}' is already {self.var_types[slot]}; an annotation cannot change its type")
            if V.is_float(frm) and V.is_int(to):
                self.error(s, f"cannot initialise {to} '{n}' with a {frm} value; convert with {to}(v)")
        elif slot >= 0:
            to = self.var_types[slot]
            literal = isinstance(value.lit, int) and frm in ("u32", "s32")
            ok = (frm == to or (V.is_float(to) and V.is_int(frm) and frm != "u64")
                  or (to == "f32" and V.is_float(frm)) or (to == "u64" and frm == "u32")
                  or (V.is_int(to) and V.is_int(frm) and literal and "u64" not in (to, frm)))
            if not ok:
                self.error(getattr(s, "value", s), f"'{n}' is {to} and the value is {frm}; convert explicitly with "
                                                  f"{to}(v)")
        value = self.convert(value, to)
        if slot < 0:
            slot = self.new_var(n, to)
            self.frame.names[n] = slot
        return self.write(slot, value.fn)

    def store(self, target: ast.Subscript, value: Typed, s):
        """p[i] = v into global memory or LDS, bounds-checked."""
        mem = self.memory(target.value)
        idx = self.index(target.slice)
        self.numeric(value, s, "a store")
        kind, elem = self.var_types[mem.slot]
        if value.type == "u64":
            self.error(s, "a u64 mask cannot be stored; take u32(v)")
        if elem not in V.FLOATS and V.is_float(value.type):
            self.error(s, f"storing a {value.type} value into '{mem.name}' (ptr[{elem}]) needs an explicit "
                          "conversion: u32(v) or s32(v)")
        if V.is_float(elem) or elem in ("u32", "s32"):
            value = self.convert(value, elem)
        slot, name, line, fi, fv = mem.slot, mem.name, s.lineno, idx.fn, value.fn
        if kind == "lds" and idx.lit is not None:
            count = self.lds[slot][1]
            i = idx.lit - (1 << 32) if idx.type == "s32" and idx.lit >= 1 << 31 else idx.lit
            if not 0 <= i < count:
                self.error(target.slice, f"index {i} is outside LDS array '{name}' of {count} elements")
        dt = V.ELEMENT_DTYPES[elem]
        is_lds = kind == "lds"

        def store(st, m):
            i, v = fi(st, m), fv(st, m)
            arr = st.lds[slot] if is_lds else st.memory[slot]
            ii = st.index_of(i, m, line, "store into LDS array" if is_lds else "store into", name, arr.size)
            if is_lds:
                st.race_access(slot, ii, m, line, name, True, False)
            vals = np.broadcast_to(np.asarray(v), (st.n,))[m]
            if vals.dtype != dt:  # a narrow element keeps the low bits
                vals = vals.astype(dt)
            arr[ii] = vals  # several lanes on one element: the highest lane's value stays
        return store

    def lds_declaration(self, target: ast.Name, call: ast.Call):
        """`name = lds(n[, type])`: an LDS array of the workgroup."""
        if self.block_depth != 0 or len(self.frames) > 1:
            self.error(call, "declare LDS arrays at the top level of the kernel body (NAME = lds(n))")
        if not 1 <= len(call.args) <= 2:
            self.error(call, "lds takes 1 or 2 arguments (NAME = lds(n) or lds(n, u32|s32|f32))")
        n = const_eval(call.args[0], self.frame.consts, self.mod.constants, self.mod.where)
        if isinstance(n, float) or n <= 0:
            self.error(call, f"the size of lds() must be a positive number of elements, got {n}")
        elem = "f32"
        if len(call.args) == 2:
            a = call.args[1]
            if not (isinstance(a, ast.Name) and a.id in ("f32", "u32", "s32")):
                self.error(a, "the element type of lds() is f32, u32 or s32")
            elem = a.id
        if target.id in self.frame.names:
            self.error(target, f"'{target.id}' is already defined; each LDS array needs a new name")
        offset = (self.lds_bytes + 15) & ~15
        end = offset + n * 4
        if end > 65536:
            self.error(call, f"LDS array '{target.id}' does not fit: the kernel would use {end} bytes of LDS, more "
                             "than the 65536 a workgroup has")
        self.lds_bytes = end
        slot = self.new_var(target.id, ("lds", elem))
        self.lds[slot] = (elem, n)
        self.frame.names[target.id] = slot
        return None

    def if_stmt(self, s: ast.If):
        """if/elif/else under masks: each branch runs for the lanes its condition holds in."""
        c = self.condition(s.test, False)
        self.block_depth += 1
        then = self.block(s.body)
        orelse = self.block(s.orelse) if s.orelse else None
        self.block_depth -= 1
        fc = c.fn

        def run(st, m):
            cond = np.broadcast_to(fc(st, m), m.shape)
            t = m & cond
            if t.any():
                then(st, t)
            if orelse is not None:
                e = m & ~cond
                if e.any():
                    orelse(st, e)
        return run

    def loop(self, header, cond, body, line: int):
        """A loop: `header(st, active)` (for) or `cond` (while) says which lanes stay; runs while any lane is in."""
        def run(st, m):
            saved_off = st.off
            st.breaks.append(np.zeros(st.n, bool))
            active = m
            while True:
                if header is not None:
                    active = active & ~header(st, active)
                elif cond is not None:
                    active = active & np.broadcast_to(cond(st, active), active.shape)
                if not active.any():
                    break
                st.trips += 1
                if st.trips > st.max_trips:
                    st.fail(line, f"more than {st.max_trips} loop trips in one workgroup: an endless loop?")
                body(st, active)
                st.off = saved_off | st.gone | st.breaks[-1]
                active = active & ~st.off
            st.breaks.pop()
            st.off = saved_off | st.gone
        return run

    def for_stmt(self, s: ast.For):
        """for over range(): the counter per lane, lanes leaving at their own trip count."""
        if s.orelse:
            self.error(s, "for ... else is not supported")
        it = s.iter
        if not (isinstance(s.target, ast.Name) and isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id in ("range", "static_range")):
            self.error(s, "a for loop is 'for NAME in range(...)' or 'for NAME in static_range(...)'")
        if not 1 <= len(it.args) <= 3:
            self.error(it, f"{it.func.id} takes 1 to 3 arguments")
        name = s.target.id
        if it.func.id == "static_range":
            return self.static_for(s, name, it)
        args = [self.expr(a) for a in it.args[:2]]
        step = 1
        if len(it.args) == 3:
            step = const_eval(it.args[2], self.frame.consts, self.mod.constants, self.mod.where)
            if isinstance(step, float) or step == 0:
                self.error(it.args[2], "the step of range() must be a non-zero integer constant")
        for a, n in zip(args, it.args):
            self.numeric(a, n, "range()")
            if a.type not in ("u32", "s32"):
                self.error(n, f"range bounds must be u32 or s32, not {a.type}")
        start = self.literal("u32", 0) if len(args) == 1 else args[0]
        stop = args[0] if len(args) == 1 else args[1]
        t = "s32" if "s32" in (start.type, stop.type) or step < 0 else "u32"
        start, stop = self.convert(start, t), self.convert(stop, t)
        slot = self.frame.names.get(name, -1)
        if slot >= 0:
            if self.var_types[slot] != t:
                self.error(s, f"the loop counter '{name}' would be {t} but '{name}' is already "
                              f"{self.var_types[slot]}; use another name")
        else:
            slot = self.new_var(name, t)
            self.frame.names[name] = slot
        self.frame.loops += 1
        self.block_depth += 1
        body = self.block(s.body)
        self.block_depth -= 1
        self.frame.loops -= 1
        dt = V.DTYPES[t]
        stp = V.constant(t, step & 0xFFFFFFFF)
        fstart, fstop = start.fn, stop.fn
        cmp = np.greater_equal if step > 0 else np.less_equal
        lim_box = []

        def header(st, active):
            # counter += step; lanes whose counter reached the bound leave (the counter keeps that value)
            nxt = (st.vars[slot] + stp).astype(dt)
            st.vars[slot] = np.where(active, nxt, st.vars[slot])
            return cmp(nxt, lim_box[-1])
        loop = self.loop(header, None, body, s.lineno)

        def run(st, m):
            first, lim = fstart(st, m), fstop(st, m)  # bounds evaluated once, before the first trip
            st.vars[slot] = np.where(m, (np.asarray(first, dt) - stp).astype(dt), st.vars[slot])
            st.defined[slot] = st.defined[slot] | m
            lim_box.append(np.broadcast_to(np.asarray(lim, dt), (st.n,)))
            try:
                loop(st, m)
            finally:
                lim_box.pop()
        return run

    def static_for(self, s: ast.For, name: str, it: ast.Call):
        """for over static_range(): the body unrolled with the counter as a constant."""
        b = [const_eval(a, self.frame.consts, self.mod.constants, self.mod.where) for a in it.args]
        if any(isinstance(x, float) for x in b):
            self.error(it, "static_range() bounds are integers")
        start, stop, step = (0, b[0], 1) if len(b) == 1 else (b[0], b[1], b[2] if len(b) == 3 else 1)
        if step == 0:
            self.error(it, "the step of static_range() must not be 0")
        if name in self.frame.names or name in self.mod.constants or name in self.frame.consts:
            self.error(s, f"the static_range counter '{name}' would hide an existing name; choose another")
        values = list(range(start, stop, step))
        self.unrolled += len(values)
        if len(values) > 4096 or self.unrolled > MAX_UNROLLED:
            self.error(s, "static_range() unrolls too many iterations; use range(...)")
        for node in ast.walk(ast.Module(body=s.body, type_ignores=[])):
            if isinstance(node, (ast.Break, ast.Continue)):
                self.error(node, "'break'/'continue' inside static_range is not supported")
        out = []
        self.block_depth += 1
        for v in values:
            self.frame.consts[name] = v
            out.append(self.block(s.body))
        self.block_depth -= 1
        self.frame.consts.pop(name, None)
        return _sequence(out)

    def return_stmt(self, s: ast.Return):
        """return: the lanes end (in a helper, its result is set)."""
        f = self.frame
        assign = None
        if f.fn is None:
            if s.value is not None:
                self.error(s.value, "a kernel returns nothing; results are stored through pointer parameters")
        elif f.result < 0:
            if s.value is not None:
                self.error(s.value, f"helper '{f.fn.name}' returns a value here but does not end with "
                                    "'return <value>'")
        else:
            if s.value is None:
                self.error(s, f"helper '{f.fn.name}' returns a value on its last line, so every return needs one")
            v = self.numeric(self.expr(s.value), s.value, "a return value")
            r = f.result
            cur = self.var_types[r]
            want = f.returns or (v.type if cur == "void" else cur)
            if (V.is_float(v.type) and V.is_int(want)) or ((v.type == "u64") != (want == "u64")):
                self.error(s.value, f"helper '{f.fn.name}' returns {want} but this value is {v.type}")
            if cur == "void":
                self.var_types[r] = want
            assign = self.write(r, self.convert(v, want).fn)

        def ret(st, m):
            if assign is not None:
                assign(st, m)
            st.off = st.off | m
            st.gone = st.gone | m
        return ret
