"""Random VALID programs of the kernel language for differential fuzzing
(fuzz.py): the same seed gives the same program.

A program is one kernel (and an inline helper) over a fixed signature:

    def NAME(iu: ptr[u32], is_: ptr[s32], if_: ptr[f32], ou: ptr[u32], os_: ptr[s32], of: ptr[f32],
             cnt: ptr[u32], ext: ptr[s32], fsum: ptr[f32], n: u32, k: s32, kf: f32, w: u32,
             b8: ptr[u8], h16: ptr[s16], ob8: ptr[u8], oh16: ptr[s16])

Each work-item has a unique flat index g (2-D ids when the workgroup is
2-D), reads its inputs at g (and gathers from the inputs, never from an
output: another wave may be writing it), and stores every variable it
created at the top level into its own output slots at the end (two of them
also into the narrow ob8/oh16). The body has two phases:

* phase A, where every lane of the workgroup is active: LDS arrays written,
  a barrier, read at another work-item's index, a barrier (also inside
  uniform loops), LDS atomics, shuffle/broadcast;
* phase B: arithmetic on u32/s32/f32 with uniform and varying values,
  nested varying if/elif/else, uniform and varying for/while loops with
  break/continue, early return, global atomics whose final values do not
  depend on their order (integer add/min/max, f32 adds of small integers),
  wave reductions over the active lanes, helper calls (one with a loop,
  called from static_range unrolled loops), u8/s16 loads at computed indices.

Validity is by construction: uniform variables are created at the top
level and assigned only uniform values in uniform control flow (the region
rule), divisors are odd or non-zero constants, loops have bounded trips,
indices stay in range, a variable is read only where it is assigned on
every path, and no result depends on the order of other lanes' work
(atomics' old values are not used, LDS is read only after a barrier).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

SLOTS = 8  # output slots per type per work-item
PARAMS = ("iu: ptr[u32], is_: ptr[s32], if_: ptr[f32], ou: ptr[u32], os_: ptr[s32], of: ptr[f32], "
          "cnt: ptr[u32], ext: ptr[s32], fsum: ptr[f32], n: u32, k: s32, kf: f32, w: u32, "
          "b8: ptr[u8], h16: ptr[s16], ob8: ptr[u8], oh16: ptr[s16]")
KEYS = 4  # slots of cnt and fsum (ext has 2 * KEYS: max, then min)


@dataclass
class Shape:
    """A launch: grid (workgroups per dimension) and workgroup size."""
    grid: tuple
    workgroup: tuple

    @property
    def group_size(self) -> int:
        """Work-items per workgroup."""
        s = 1
        for d in self.workgroup:
            s *= d
        return s

    @property
    def width(self) -> int:  # work-items in x over the whole grid
        """Work-items in x over the whole grid."""
        return self.grid[0] * self.workgroup[0]

    @property
    def items(self) -> int:
        """Work-items of the whole launch."""
        s = self.group_size
        for d in self.grid:
            s *= d
        return s


@dataclass
class Program:
    """A generated kernel: its seed, name, complete source text, launch shape, whether it uses approximate operations (compared with a tolerance) and the features it exercises."""
    seed: int
    name: str
    text: str        # the kernel (and its helper), a complete source
    shape: Shape
    approximate: bool  # uses exp/sqrt/rsqrt/division (compared with a tolerance)
    features: set = field(default_factory=set)


class _Scope:
    def __init__(self, parent=None):
        self.vars = dict(parent.vars) if parent else {}   # name -> (type, uniform)
        self.parent = parent


class Generator:
    """Writes one random valid program from a seed (the same seed, the same program): typed expressions over the variables in scope, uniform and varying control flow respecting the region rule, LDS, atomics and cross-lane operations."""
    def __init__(self, seed: int, f16: bool = False):
        self.r = random.Random(seed)
        self.seed = seed
        self.lines: list[str] = []
        self.count = 0
        self.approx = False
        self.features: set = set()
        self.f16 = f16  # also f16/bf16 values and ballot
        self.phase_b = False
        self.lds_arrays: list = []
        self.items = self.lds_size = 1

    # ------------------------------------------------------------ helpers
    def fresh(self, prefix: str) -> str:
        """A new variable name with the given prefix."""
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, depth: int, text: str):
        """Appends a source line indented to `depth`."""
        self.lines.append("    " * depth + text)

    def pick(self, scope, t: str, uniform_only: bool = False):
        """A random variable of type t in scope (only uniform ones when asked), or None."""
        names = [n for n, (tt, u) in scope.vars.items() if tt == t and (u or not uniform_only)]
        return self.r.choice(names) if names else None

    # ------------------------------------------------------------ expressions
    def leaf(self, scope, t: str, uniform: bool) -> str:
        """A variable, literal or id of type t: an expression without operators."""
        r = self.r
        v = self.pick(scope, t, uniform)
        if v is not None and r.random() < 0.6:
            return v
        if not uniform and r.random() < 0.12:
            self.features.add("gather")
            idx = f"({self.leaf(scope, 'u32', False)}) % {self.items}"
            if t == "u32":
                lds = [a for a, e in self.lds_arrays if e == "u32" and self.phase_b]
                if lds and r.random() < 0.5:
                    a = r.choice(lds)
                    return f"{a}[({self.leaf(scope, 'u32', False)}) % {self.lds_size}]"
                return f"b8[{idx}]" if r.random() < 0.3 else f"iu[{idx}]"  # u8 loads zero-extend
            if t == "s32":
                if r.random() < 0.3:
                    return f"h16[{idx}]"  # s16 loads sign-extend
                return f"is_[s32({idx})]"
            lds = [a for a, e in self.lds_arrays if e == "f32" and self.phase_b]
            if lds and r.random() < 0.5:
                return f"{r.choice(lds)}[({self.leaf(scope, 'u32', False)}) % {self.lds_size}]"
            return f"if_[{idx}]"
        if t == "u32":
            opts = [str(r.choice([0, 1, 2, 3, 7, 31, 100, 255, 1000, 65535, 0x7FFFFFFF, 0xFFFFFFFF, r.randrange(1 << 32)])),
                    "n", "bid(0)", "w"]
            if not uniform:
                opts += ["lane()", "tid()", "gid(0)", "g"]
            return r.choice(opts)
        if t == "s32":
            opts = ["k", f"-{r.choice([1, 3, 8, 100, 2147483648])}", f"s32({r.randrange(1 << 31)})"]
            if not uniform:
                opts += ["s32(lane()) - 32"]
            return r.choice(opts)
        return r.choice(["kf", "0.5", "-1.25", "3.0", "0.0", "1e-3", "-7.5", "2.0", "100.0"])

    def expr(self, scope, t: str, depth: int, uniform: bool = False) -> str:
        """A random expression of type t, at most `depth` operators deep; uniform when asked."""
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(scope, t, uniform)
        a = lambda: self.expr(scope, t, depth - 1, uniform)  # noqa: E731
        if t in ("u32", "s32"):
            c = r.randrange(16)
            if c < 4:
                if t == "s32" and r.random() < 0.2:  # u32 with s32 promotes to s32
                    return f"({self.expr(scope, 'u32', depth - 1, uniform)} {r.choice(['+', '-', '*'])} {a()})"
                return f"({a()} {r.choice(['+', '-', '*', '+', '-'])} {a()})"
            if c < 6:
                return f"({a()} {r.choice(['&', '|', '^'])} {a()})"
            if c == 6:
                return f"({a()} {r.choice(['<<', '>>'])} {self.expr(scope, 'u32', depth - 1, uniform)})"
            if c == 7:
                op = r.choice(["//", "%", "/"])
                d = r.choice([f"({a()} | 1)", str(r.choice([3, 7, 10, 64, 1000, 4096])),
                              "(n | 1)" if t == "u32" else "(k | 1)",
                              f"-{r.choice([3, 7, 64])}" if t == "s32" else "5"])
                self.features.add("division")
                return f"({a()} {op} {d})"
            if c == 8:
                return f"{r.choice(['min', 'max'])}({a()}, {a()})"
            if c == 9:
                cond = self.cond(scope, depth - 1, uniform)
                return f"({a()} if {cond} else {a()})"
            if c == 10:
                other = "s32" if t == "u32" else "u32"
                return f"{t}({self.expr(scope, other, depth - 1, uniform)})"
            if c == 11 and not uniform:
                self.features.add("float_to_int")
                return f"{t}({self.expr(scope, 'f32', depth - 1, False)})"
            if c == 12:
                return f"(~{a()})" if r.random() < 0.5 else f"(0 - {a()})"
            if c == 13 and not uniform and t == "s32":
                return f"s8({self.expr(scope, 'u32', depth - 1, uniform)})"
            if c == 14 and not uniform:
                self.features.add("wave")
                return f"{r.choice(['wave_sum', 'wave_max', 'wave_min'])}({a()})"
            if c == 15 and not uniform:
                if self.f16 and t == "u32" and r.random() < 0.5:
                    self.features.add("ballot")
                    return f"u32(ballot({self.cond(scope, depth - 1, False)}) >> {r.randrange(33)})"
                self.features.add("shuffle")  # inactive source lanes give 0 on both sides
                return f"shuffle({a()}, (lane() + {r.randrange(64)}) & 63)"
            return a()
        # f32 (always varying)
        c = r.randrange(15)
        if c < 5:
            return f"({a()} {r.choice(['+', '-', '*'])} {a()})"
        if c == 5:
            return f"fma({a()}, {a()}, {a()})"
        if c == 6:
            return f"{r.choice(['min', 'max'])}({a()}, {a()})"
        if c == 7:
            return f"{r.choice(['floor', 'ceil', 'trunc', 'rint', 'fract', 'fabs'])}({a()})"
        if c == 8:
            return f"f32({self.expr(scope, r.choice(['u32', 's32']), depth - 1, uniform)})"
        if c == 9:
            self.approx = True
            self.features.add("approx")
            return r.choice([f"({a()} / (fabs({a()}) + 1.0))", f"sqrt(fabs({a()}))", f"rsqrt(fabs({a()}) + 0.5)",
                             f"exp(min(max({a()}, -20.0), 20.0))", f"({a()} / 3.0)"])
        if c == 10:
            return f"({a()} if {self.cond(scope, depth - 1, False)} else {a()})"
        if c == 11:
            return f"ubyte({self.expr(scope, 'u32', depth - 1, False)})"
        if c == 12:
            self.features.add("wave")
            return f"{r.choice(['wave_sum', 'wave_max', 'wave_min'])}({a()})"
        if c == 13:
            return f"(-{a()})"
        if c == 14 and self.f16:
            self.features.add("f16")
            return r.choice([f"f32(f16({a()}) * f16({a()}) + f16(0.5))", f"f32(bf16({a()}))",
                             f"f32(fma(f16({a()}), f16({a()}), f16({a()})))"])
        return a()

    def cond(self, scope, depth: int, uniform: bool) -> str:
        """A random comparison (or combination of comparisons), uniform when asked."""
        r = self.r
        c = r.randrange(10)
        if c < 7 or depth <= 0:
            t = r.choice(["u32", "s32"] + ([] if uniform else ["f32"]))
            return f"({self.expr(scope, t, min(depth, 1), uniform)} {r.choice(['<', '<=', '>', '>=', '==', '!='])} " \
                   f"{self.expr(scope, t, min(depth, 1), uniform)})"
        if c < 9:
            return f"({self.cond(scope, depth - 1, uniform)} {r.choice(['and', 'or'])} " \
                   f"{self.cond(scope, depth - 1, uniform)})"
        return f"(not {self.cond(scope, depth - 1, uniform)})"

    # ------------------------------------------------------------ statements
    def assign(self, scope, depth: int, uniform_ctx: bool, region_top: bool):
        """Create or update a variable. Uniform ones only at the top level in uniform control flow."""
        r = self.r
        t = r.choice(["u32", "u32", "s32", "f32"])
        existing = [n for n, (tt, u) in scope.vars.items() if tt == t and (not u or (uniform_ctx and region_top))
                    and not n.startswith(("q", "g")) and n not in ("n", "k", "kf", "w")]
        if existing and r.random() < 0.7:
            name = r.choice(existing)
            uniform = scope.vars[name][1]
            op = r.choice(["=", "=", "+=", "-=", "*="] + (["^=", "|="] if t != "f32" else []))
            self.emit(depth, f"{name} {op} {self.expr(scope, t, 2, uniform)}")
            return
        name = self.fresh({"u32": "x", "s32": "y", "f32": "z"}[t])
        uniform = t != "f32" and uniform_ctx and region_top and r.random() < 0.4
        value = self.expr(scope, t, 2, uniform)
        if t == "s32" and not uniform:
            value = f"s32({value}) + (s32(lane()) - s32(lane()))"  # varying from the start
        elif t == "u32" and not uniform:
            value = f"({value}) + (lane() - lane())"
        self.emit(depth, f"{name} = {value}")
        scope.vars[name] = (t, uniform)

    def block(self, scope, depth: int, nest: int, in_loop: bool, uniform_ctx: bool, region_top: bool,
              count: int):
        """Emits a random statement list at `depth`: assignments, ifs, loops, atomics, with break/continue only inside loops."""
        r = self.r
        start = len(self.lines)
        for _ in range(count):
            c = r.randrange(20)
            if c < 8 or nest >= 3:
                self.assign(scope, depth, uniform_ctx, region_top)
            elif c < 11:
                self.if_stmt(scope, depth, nest, in_loop, uniform_ctx, region_top)
            elif c < 13:
                self.for_stmt(scope, depth, nest, uniform_ctx)
            elif c == 13:
                self.while_stmt(scope, depth, nest)
            elif c == 14 and in_loop:
                self.emit(depth, f"if {self.cond(scope, 1, False)}:")
                self.emit(depth + 1, r.choice(["break", "continue"]))
            elif c == 15:
                self.atomic(scope, depth)
            elif c == 16 and r.random() < 0.3:
                self.emit(depth, f"if {self.cond(scope, 1, False)}:")
                self.emit(depth + 1, "return")
                self.features.add("return")
            elif c == 18 and uniform_ctx and region_top and nest < 2:
                self.uniform_loop(scope, depth, nest)
            elif c == 19 and r.random() < 0.5:
                v = self.pick(scope, "u32")
                if v and not v.startswith(("q", "g")) and v not in ("n", "w") and not scope.vars[v][1]:
                    st = self.fresh("s")
                    self.emit(depth, f"for {st} in static_range({r.choice(['3', '1, 7, 2', '4, 0, -1'])}):")
                    self.emit(depth + 1, f"{v} = {self.mix_name}({v}, s32({st}) + {self.expr(scope, 's32', 1)})")
                    self.features.add("static_range")
            elif c == 17:
                v = self.pick(scope, "f32")
                if v and v != "kf":  # parameters cannot be assigned
                    self.emit(depth, f"{v} = {self.helper_name}({v}, {self.expr(scope, 'u32', 1)})")
                    self.features.add("helper")
            else:
                self.assign(scope, depth, uniform_ctx, region_top)
        if len(self.lines) == start:  # a block needs a statement
            self.assign(scope, depth, uniform_ctx, region_top)

    def if_stmt(self, scope, depth, nest, in_loop, uniform_ctx, region_top):
        """Emits an if/elif/else whose branches are random blocks."""
        r = self.r
        uniform = uniform_ctx and r.random() < 0.3
        self.emit(depth, f"if {self.cond(scope, 2, uniform)}:")
        self.block(_Scope(scope), depth + 1, nest + 1, in_loop, uniform_ctx and uniform, region_top and uniform,
                   r.randint(1, 3))
        if r.random() < 0.3:
            self.emit(depth, f"elif {self.cond(scope, 1, uniform)}:")
            self.block(_Scope(scope), depth + 1, nest + 1, in_loop, uniform_ctx and uniform,
                       region_top and uniform, r.randint(1, 2))
        if r.random() < 0.5:
            self.emit(depth, "else:")
            self.block(_Scope(scope), depth + 1, nest + 1, in_loop, uniform_ctx and uniform,
                       region_top and uniform, r.randint(1, 2))

    def for_stmt(self, scope, depth, nest, uniform_ctx):
        """Emits a for loop over range() with constant step and random bounds, its body a random block."""
        r = self.r
        q = self.fresh("q")
        varying = r.random() < 0.5
        if varying:
            x = self.pick(scope, "u32") or "lane()"
            rng = r.choice([f"range(0, ({x}) & 7)", f"range(({x}) & 3, 9, 2)", f"range(({x}) & 7, 0, -1)",
                            f"range(s32(({x}) & 7) - 3, 4)"])
            self.features.add("varying_loop")
        else:
            rng = r.choice(["range(3)", "range(1, (n & 3) + 2)", "range(k & 3, 5)", "range(6, 0, -2)",
                            "range(-2, 2)"])
        self.emit(depth, f"for {q} in {rng}:")
        inner = _Scope(scope)
        t = "s32" if ("k" in rng or "-" in rng) else "u32"
        inner.vars[q] = (t, not varying and uniform_ctx)
        self.block(inner, depth + 1, nest + 1, True, uniform_ctx and not varying, False, r.randint(1, 3))

    def uniform_loop(self, scope, depth, nest):
        """A loop the whole wave runs alike (uniform bounds, no exit inside) updating a uniform accumulator
        created before it in the same region, and per-lane values."""
        r = self.r
        acc = self.fresh("x")
        self.emit(depth, f"{acc} = {self.expr(scope, 'u32', 1, True)}")
        scope.vars[acc] = ("u32", True)
        if r.random() < 0.5:
            q = self.fresh("q")
            bounds = r.choice(['range(4)', 'range(n & 3, 6)', 'range(5, 0, -1)'])
            self.emit(depth, f"for {q} in {bounds}:")
            inner = _Scope(scope)
            inner.vars[q] = ("s32" if "-" in bounds else "u32", True)
            self.emit(depth + 1, f"{acc} = ({acc} * {r.choice([3, 5, 0x9E3779B9])}) ^ (u32({q}) + n)")
        else:
            q = self.fresh("x")
            self.emit(depth, f"{q} = u32(0)")
            self.emit(depth, f"while {q} < (n & 3) + 1:")
            inner = _Scope(scope)
            self.emit(depth + 1, f"{q} += 1")
            self.emit(depth + 1, f"{acc} = {acc} + {q} * {self.expr(inner, 'u32', 1, True)}")
            scope.vars[q] = ("u32", True)
        for _ in range(r.randint(1, 2)):  # per-lane work, no exits: the loop stays uniform
            self.assign(inner, depth + 1, False, False)
        self.features.add("uniform_loop")

    def while_stmt(self, scope, depth, nest):
        """Emits a while loop bounded by a counter, its body a random block."""
        r = self.r
        c = self.fresh("c")
        src = self.pick(scope, "u32") or "lane()"
        self.emit(depth, f"{c} = (({src}) & 7) + (lane() - lane())")
        self.emit(depth, f"while {c} > 0:")
        self.emit(depth + 1, f"{c} = {c} - 1")  # first: every trip counts down, continue included
        inner = _Scope(scope)
        self.block(inner, depth + 1, nest + 1, True, False, False, r.randint(1, 3))
        self.features.add("while")

    def atomic(self, scope, depth):
        """Emits an atomic whose final memory value does not depend on the order of the lanes."""
        r = self.r
        key = f"(({self.expr(scope, 'u32', 1)}) & {KEYS - 1})"
        c = r.randrange(4)
        if c == 0:
            self.emit(depth, f"atomic_add(cnt, {key}, ({self.expr(scope, 'u32', 1)}) & 255)")
        elif c == 1:  # max on ext[0..KEYS), min on ext[KEYS..): mixed on one element they would depend on order
            if r.random() < 0.5:
                self.emit(depth, f"atomic_max(ext, {key}, {self.expr(scope, 's32', 1)})")
            else:
                self.emit(depth, f"atomic_min(ext, {key} + {KEYS}, {self.expr(scope, 's32', 1)})")
        elif c == 2:
            self.emit(depth, f"atomic_add(fsum, {key}, f32(({self.expr(scope, 'u32', 1)}) & 15))")
        else:
            self.emit(depth, f"atomic_add(cnt, {key}, 1)")
        self.features.add("atomic")

    # ------------------------------------------------------------ the program
    def program(self, name: str) -> Program:
        """The whole kernel named `name`: parameters, body and the stores of its results."""
        r = self.r
        two_d = r.random() < 0.3
        if two_d:
            shape = Shape((r.randint(1, 2), r.randint(1, 2)), r.choice([(16, 4), (32, 2), (8, 8), (32, 4)]))
        else:
            shape = Shape((r.randint(1, 3),), (r.choice([64, 64, 128, 32, 96]),))
        self.helper_name = f"{name}_h"
        self.mix_name = f"{name}_mix"
        self.items = shape.items
        self.lds_size = shape.group_size
        self.lds_arrays = []  # read in phase B only: after the last barrier nothing writes them
        L = []
        L.append("@inline")
        L.append(f"def {self.helper_name}(v: f32, m: u32) -> f32:")
        L.append("    if (m & 3) == 0:")
        L.append("        return v * 0.5")
        L.append("    return fma(v, 0.25, f32(m & 15))")
        L.append("")
        L.append("@inline")
        L.append(f"def {name}_mix(a: u32, b: s32) -> u32:")
        L.append("    acc = a")
        L.append("    for i in range(b & 3):")
        L.append("        acc = (acc << 3) ^ (acc >> 2) ^ u32(i)")
        L.append("    return acc + u32(b)")
        L.append("")
        L.append(f"def {name}({PARAMS}):")
        self.lines = []
        top = _Scope()
        for p in ("n", "w"):
            top.vars[p] = ("u32", True)
        top.vars["k"] = ("s32", True)
        top.vars["kf"] = ("f32", False)
        size = shape.group_size
        if two_d:
            self.emit(1, "g = gid(1) * w + gid(0)")
            self.emit(1, f"t = lid(1) * {shape.workgroup[0]} + lid(0)")
        else:
            self.emit(1, "g = gid(0)")
            self.emit(1, "t = tid()")
        top.vars["g"] = ("u32", False)
        top.vars["t"] = ("u32", False)
        self.emit(1, "x0 = iu[g]")
        self.emit(1, "y0 = is_[g]")
        self.emit(1, "z0 = if_[g]")
        top.vars.update({"x0": ("u32", False), "y0": ("s32", False), "z0": ("f32", False)})
        # phase A: every lane active
        if r.random() < 0.6:
            self.lds_section(top, size)
        if r.random() < 0.4:
            self.cross_lane(top, shape)
        # phase B
        self.phase_b = True
        self.block(top, 1, 0, False, True, True, r.randint(4, 9))
        # outputs
        outs = {"u32": [], "s32": [], "f32": []}
        for v, (t, u) in top.vars.items():
            if v in ("n", "w", "k", "kf"):
                continue
            outs[t].append(v)
        for t, arr in (("u32", "ou"), ("s32", "os_"), ("f32", "of")):
            chosen = outs[t][-SLOTS:]
            for j, v in enumerate(chosen):
                self.emit(1, f"{arr}[g * {SLOTS} + {j}] = {v}")
        # narrow stores keep the low bits (into arrays nothing reads: another wave may still gather from inputs)
        self.emit(1, f"ob8[g] = {self.r.choice(outs['u32'])} + u32({self.r.choice(outs['s32'])})")
        self.emit(1, f"oh16[g] = {self.r.choice(outs['s32'])}")
        text = "\n".join(L + self.lines) + "\n"
        return Program(self.seed, name, text, shape, self.approx, self.features)

    def lds_section(self, top, size):
        """Emits LDS arrays written, synchronised by barrier() and read back at other lanes' indices."""
        r = self.r
        self.features.add("lds")
        elem = r.choice(["u32", "f32"])
        sh = self.fresh("sh")
        # LDS declarations go to the top of the body: insert after the ids
        self.lines.insert(2, f"    {sh} = lds({size}{', u32' if elem == 'u32' else ''})")
        self.lds_arrays.append((sh, elem))
        loop = r.random() < 0.4
        d = 1
        if loop:
            q = self.fresh("q")
            self.emit(1, f"for {q} in range(2):")  # a uniform loop around barriers
            d = 2
        self.emit(d, f"{sh}[t] = {self.expr(top, elem, 2)}")
        self.emit(d, "barrier()")
        v = self.fresh("x" if elem == "u32" else "z")
        if loop:
            self.emit(d, f"{v}l = {sh}[(t + {r.randrange(1, size)}) % {size}]")
            self.emit(d, "barrier()")
            self.emit(d, f"x0 = x0 + u32({v}l)" if elem == "u32" else f"z0 = z0 + {v}l")
        else:
            self.emit(d, f"{v} = {sh}[(t + {r.randrange(1, size)}) % {size}]")
            self.emit(d, "barrier()")
            top.vars[v] = (elem, False)
        if r.random() < 0.5:  # LDS atomics, read after a barrier
            ca = self.fresh("ca")
            self.lines.insert(2, f"    {ca} = lds({KEYS}, u32)")
            self.emit(1, f"if t < {KEYS}:")
            self.emit(2, f"{ca}[t] = 0")
            self.emit(1, "barrier()")
            self.emit(1, f"if {self.cond(top, 1, False)}:")
            self.emit(2, f"atomic_add({ca}, x0 & {KEYS - 1}, (g & 7) + 1)")
            self.emit(1, "barrier()")
            v2 = self.fresh("x")
            self.emit(1, f"{v2} = {ca}[t & {KEYS - 1}] + (lane() - lane())")
            self.emit(1, "barrier()")
            top.vars[v2] = ("u32", False)
            self.features.add("lds_atomic")

    def cross_lane(self, top, shape):
        """Emits shuffles, broadcasts, wave reductions (and ballots with f16 on) whose results are stored."""
        r = self.r
        self.features.add("cross_lane")
        lanes = shape.group_size % 64 or 64  # a lane every wave has
        t = r.choice(["u32", "s32", "f32"])
        v = self.fresh({"u32": "x", "s32": "y", "f32": "z"}[t])
        src = r.choice([f"(lane() + {r.randrange(1, 64)}) & 63", "lane() ^ 1", f"{r.randrange(64)}",
                        "63 - lane()"])
        if r.random() < 0.5:
            self.emit(1, f"{v} = shuffle({self.expr(top, t, 1)}, {src})")
        else:
            self.emit(1, f"{v} = broadcast({self.expr(top, t, 1)}, {r.randrange(lanes)})")
            if t != "f32":  # a broadcast is uniform; make the variable per lane
                self.lines[-1] += " + (lane() - lane())" if t == "u32" else " + (s32(lane()) - s32(lane()))"
        top.vars[v] = (t, False)


def generate(seed: int, f16: bool = False) -> Program:
    """The program of this seed (f16: also f16/bf16 values and ballot)."""
    return Generator(seed, f16).program(f"fz{seed}")
