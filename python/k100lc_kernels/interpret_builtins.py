"""The built-ins of the kernel language in the interpreter: their typing
rules (builtins.h, typing_calls.cpp) and their lane semantics (ids, float
math, conversions, 16-bit loads, atomics applied in lane order, and the
cross-lane operations over each wave's active lanes)."""
from __future__ import annotations

import ast

import numpy as np

from . import interpret_values as V
from .interpret_compile import Typed
from .interpret_module import const_eval

BUILTINS = {
    "gid", "bid", "lid", "tid", "lane", "exp", "sqrt", "rsqrt", "fabs", "floor", "ceil", "trunc", "rint", "fract",
    "fma", "min", "max", "f32", "u32", "s32", "f16", "bf16", "ubyte", "s8", "load16", "f16_to_f32", "barrier",
    "lds", "atomic_add", "atomic_min", "atomic_max", "atomic_xchg", "atomic_cas", "shuffle", "broadcast",
    "wave_sum", "wave_max", "wave_min", "ballot", "dot2", "dot4", "dot8", "range", "static_range",
}
VALUE_ONLY = BUILTINS - {"barrier", "atomic_add", "atomic_min", "atomic_max", "atomic_xchg", "atomic_cas"}
_ARITY = {"gid": (0, 1), "bid": (0, 1), "lid": (0, 1), "tid": (0, 0), "lane": (0, 0), "fma": (3, 3),
          "min": (2, 2), "max": (2, 2), "load16": (2, 2), "barrier": (0, 0), "atomic_cas": (4, 4),
          "atomic_add": (3, 3), "atomic_min": (3, 3), "atomic_max": (3, 3), "atomic_xchg": (3, 3),
          "shuffle": (2, 2), "broadcast": (2, 2), "dot2": (3, 3), "dot4": (3, 3), "dot8": (3, 3)}
_FLOAT_MATH = {
    "exp": V.exp, "sqrt": V.sqrt, "rsqrt": V.rsqrt, "fabs": V.fabs,
    "floor": lambda x, t: np.floor(x), "ceil": lambda x, t: np.ceil(x), "trunc": lambda x, t: np.trunc(x),
    "rint": lambda x, t: np.rint(x), "fract": lambda x, t: x - np.floor(x),
}


def _full(st, v):
    return np.broadcast_to(np.asarray(v), (st.n,))


def builtin_call(c, node: ast.Call, name: str) -> Typed:
    """The typed evaluator of a call of a built-in `name` (arguments checked as the compiler checks them)."""
    lo, hi = _ARITY.get(name, (1, 1))
    n = len(node.args)
    if name in ("range", "static_range"):
        c.error(node, f"{name}(...) is only allowed as the loop of 'for NAME in {name}(...)'")
    if name == "lds":
        c.error(node, "lds(n) declares an LDS array: write NAME = lds(n) at the top level of the kernel body")
    if not lo <= n <= hi:
        c.error(node, f"{name} takes {lo if lo == hi else f'{lo} to {hi}'} argument(s), got {n}")
    if name in ("gid", "bid", "lid", "tid", "lane"):
        d = 0
        if n:
            d = const_eval(node.args[0], c.frame.consts, c.mod.constants, c.mod.where)
            if d not in (0, 1, 2):
                c.error(node, f"the dimension of {name}() is 0 (x), 1 (y) or 2 (z)")
        attr = {"gid": "gid", "bid": "bid", "lid": "lid", "tid": "lid", "lane": "lane"}[name]
        if name == "lane":
            return Typed("u32", lambda st, m: st.lane)
        return Typed("u32", lambda st, m: getattr(st, attr)[d])
    if name == "barrier":
        line = node.lineno
        return Typed("void", lambda st, m: st.barrier(m, line))
    if name.startswith("atomic_"):
        return _atomic(c, node, name)
    if name == "load16":
        return _load16(c, node)
    if name == "ballot":
        return _ballot(c, node)
    args = [c.numeric(c.expr(a), a, f"an argument of {name}()") for a in node.args]
    if name in _FLOAT_MATH:
        t = _float_of(c, args[0], node.args[0], name)
        a = c.convert(args[0], t)
        f, fa = _FLOAT_MATH[name], a.fn
        return Typed(t, lambda st, m: f(fa(st, m), t))
    if name == "fma":
        for a, an in zip(args, node.args):
            _float_of(c, a, an, name)
        t = "f16" if any(a.type == "f16" for a in args) and not any(
            a.type == "f32" or (a.type != "f16" and a.lit is None) for a in args) else "f32"
        a, b, d = (c.convert(x, t).fn for x in args)
        f = V.fma_f16 if t == "f16" else V.fma_f32
        return Typed(t, lambda st, m: f(a(st, m), b(st, m), d(st, m)))
    if name in ("min", "max"):
        x, y = args
        if V.is_int(x.type) and V.is_int(y.type) and x.type != y.type and x.lit is None and y.lit is None:
            c.error(node, f"{name} of {x.type} and {y.type} is ambiguous; convert one side with u32(x) or s32(x)")
        t = c.common(x, y, node, f"{name}()")
        if t == "u64":
            c.error(node, f"{name}() takes numbers, not u64 masks")
        fa, fb = c.convert(x, t).fn, c.convert(y, t).fn
        if V.is_float(t):
            f = V.fmin if name == "min" else V.fmax
            return Typed(t, lambda st, m: f(fa(st, m), fb(st, m), t))
        f = np.minimum if name == "min" else np.maximum
        return Typed(t, lambda st, m: f(fa(st, m), fb(st, m)))
    if name in ("f32", "u32", "s32", "f16", "bf16"):
        if args[0].type == "u64" and name != "u32":
            c.error(node, f"{name}() of a u64 mask is not supported; take its low 32 bits with u32(x)")
        return c.convert(args[0], name)
    if name in ("ubyte", "s8", "f16_to_f32"):
        _need_int(c, args[0], node.args[0], name)
        fa = args[0].fn
        if name == "ubyte":
            return Typed("f32", lambda st, m: (np.asarray(fa(st, m)).astype(np.uint32) & np.uint32(0xFF)).astype(
                np.float32))
        if name == "s8":
            return Typed("s32", lambda st, m: (np.asarray(fa(st, m)).astype(np.uint32) & np.uint32(0xFF)).astype(
                np.uint8).view(np.int8).astype(np.int32))
        return Typed("f32", lambda st, m: V.f16_bits_to_f32(fa(st, m)))
    if name in ("shuffle", "broadcast", "wave_sum", "wave_max", "wave_min"):
        return _cross_lane(c, node, name, args)
    if name in ("dot2", "dot4", "dot8"):
        _need_int(c, args[0], node.args[0], name)
        _need_int(c, args[1], node.args[1], name)
        a, b = c.convert(args[0], "u32").fn, c.convert(args[1], "u32").fn
        acc_t = "f32" if name == "dot2" else "s32"
        if acc_t == "s32" and not V.is_int(args[2].type):
            c.error(node.args[2], f"the accumulator of {name}() is s32; convert with s32(x)")
        if args[2].type in ("bf16", "u64"):
            c.error(node.args[2], f"the accumulator of {name}() is {acc_t}")
        acc = c.convert(args[2], acc_t).fn
        if name == "dot2":
            return Typed("f32", lambda st, m: V.dot2(a(st, m), b(st, m), acc(st, m)))
        bits = 8 if name == "dot4" else 4
        return Typed("s32", lambda st, m: V.dot_int(a(st, m), b(st, m), acc(st, m), bits))
    c.error(node, f"unexpected built-in {name}")


def _float_of(c, a: Typed, node, name: str) -> str:
    if a.type == "bf16":
        c.error(node, f"{name}() on bf16 is not supported; convert with f32(x) first")
    if a.type == "u64":
        c.error(node, f"{name}() takes a number, not a u64 mask")
    return "f16" if a.type == "f16" else "f32"


def _need_int(c, a: Typed, node, name: str):
    if a.type not in ("u32", "s32"):
        c.error(node, f"the argument of {name}() must be u32 or s32, not {a.type}")


def _load16(c, node: ast.Call) -> Typed:
    mem = c.memory(node.args[0])
    if c.var_types[mem.slot][0] != "ptr":
        c.error(node.args[0], "the first argument of load16() must be a pointer parameter")
    off = c.numeric(c.expr(node.args[1]), node.args[1], "load16()")
    _need_int(c, off, node.args[1], "load16")
    s, name, line, fo = mem.slot, mem.name, node.lineno, off.fn

    def load(st, m):
        raw = st.memory[s].view(np.uint8)
        i = st.index_of(fo(st, m), m, line, "16-bit load (byte offset) from", name, raw.size - 1)
        out = np.zeros(st.n, np.uint32)
        out[m] = raw[i].astype(np.uint32) | (raw[i + 1].astype(np.uint32) << np.uint32(8))
        return out
    return Typed("u32", load)


_ATOMIC_OPS = {
    "atomic_add": lambda o, v: o + v,
    "atomic_min": lambda o, v: min(o, v),
    "atomic_max": lambda o, v: max(o, v),
    "atomic_xchg": lambda o, v: v,
}


def _atomic(c, node: ast.Call, name: str) -> Typed:
    mem = c.memory(node.args[0])
    kind, elem = c.var_types[mem.slot]
    if elem not in ("u32", "s32", "f32"):
        c.error(node.args[0], f"{name}() works on 32-bit elements (u32, s32, f32), not {elem}")
    if elem == "f32" and name in ("atomic_min", "atomic_max"):
        c.error(node, f"{name}() on f32 is not supported; f32 atomics are atomic_add, atomic_xchg and atomic_cas")
    idx = c.index(node.args[1])
    vals = []
    for a in node.args[2:]:
        v = c.numeric(c.expr(a), a, f"{name}()")
        if V.is_float(v.type) and not V.is_float(elem):
            c.error(a, f"the value of {name}() on {elem} must be an integer; convert with {elem}(x)")
        if v.type == "u64":
            c.error(a, "a u64 mask cannot be stored; take u32(x)")
        vals.append(c.convert(v, elem).fn)
    s, line, mname, fi, is_lds = mem.slot, node.lineno, mem.name, idx.fn, kind == "lds"
    dt = V.DTYPES[elem]
    op = _ATOMIC_OPS.get(name)

    def run(st, m):
        i = fi(st, m)
        args = [_full(st, f(st, m)).astype(dt) for f in vals]
        arr = st.lds[s] if is_lds else st.memory[s]
        ii = st.index_of(i, m, line, f"{name} on", mname, arr.size)
        if is_lds:
            st.race_access(s, ii, m, line, mname, True, True)
        lanes = np.flatnonzero(m)
        old = np.zeros(st.n, dt)
        if name == "atomic_cas":  # compares and stores bits (an f32 too)
            bits = arr.view(np.uint32)
            exp = args[0].view(np.uint32)
            new = args[1].view(np.uint32)
            old_bits = old.view(np.uint32)
            for k, lane in enumerate(lanes):
                j = ii[k]
                o = bits[j]
                old_bits[lane] = o
                if o == exp[lane]:
                    bits[j] = new[lane]
            return old
        v = args[0]
        with np.errstate(all="ignore"):
            for k, lane in enumerate(lanes):  # one lane after the other, in lane order
                j = ii[k]
                o = arr[j]
                old[lane] = o
                arr[j] = op(o, v[lane])
        return old
    return Typed(elem, run)


def _cross_lane(c, node: ast.Call, name: str, args) -> Typed:
    x = args[0]
    if x.type not in ("u32", "s32", "f32"):
        c.error(node.args[0], f"{name}() moves 32-bit values (u32, s32, f32), not {x.type}")
    t, fx, line = x.type, x.fn, node.lineno
    dt = V.DTYPES[t]
    if name in ("shuffle", "broadcast"):
        _need_int(c, args[1], node.args[1], name)
        fl = args[1].fn

        def move(st, m):
            vals = _full(st, fx(st, m)).astype(dt)
            src = (_full(st, fl(st, m)).astype(np.int64) & 63)
            out = np.zeros(st.n, dt)
            for w, lo, hi, act in st.wave_lanes(m):
                if not act.any():
                    continue
                s = src[lo:hi]
                if name == "broadcast":
                    first = s[act][0]
                    if (s[act] != first).any():
                        st.fail(line, "the lane of broadcast() differs between the lanes of a wave; use shuffle()")
                    if first >= hi - lo or not m[lo + first]:
                        st.fail(line, f"broadcast() reads lane {first} of wave {w}, which is not active there "
                                      "(its value is undefined in the compiled code)")
                # shuffle: an inactive (or missing) source lane gives 0, as ds_bpermute_b32
                ok = (s < hi - lo)
                ss = np.where(ok, s, 0)
                got = np.where(ok & m[lo:hi][ss], vals[lo:hi][ss], 0)
                out[lo:hi] = np.where(act, got, 0)
            return out
        return Typed(t, move)
    if len(args) != 1:
        c.error(node, f"{name} takes 1 argument")

    def reduce(st, m):
        vals = _full(st, fx(st, m)).astype(dt)
        out = np.zeros(st.n, dt)
        for w, lo, hi, act in st.wave_lanes(m):
            if not act.any():
                continue
            seq = vals[lo:hi][act]
            if name == "wave_sum":
                if t == "f32":  # the compiled loop adds lane after lane, from 0.0
                    acc = np.float32(0)
                    for v in seq:
                        acc = np.float32(acc + v)
                else:
                    acc = np.add.reduce(seq, dtype=dt)
            elif t == "f32":
                acc = np.float32(-np.inf if name == "wave_max" else np.inf)
                f = V.fmax if name == "wave_max" else V.fmin
                for v in seq:
                    acc = f(acc, v, t)
            else:
                acc = seq.max() if name == "wave_max" else seq.min()
            out[lo:hi] = acc
        return out
    return Typed(t, reduce)


def _ballot(c, node: ast.Call) -> Typed:
    cond = c.expr(node.args[0])
    if cond.type != "bool":
        c.error(node.args[0], "ballot() takes a comparison (e.g. ballot(x > 0))")
    fc = cond.fn

    def run(st, m):
        hold = _full(st, fc(st, m)) & m
        out = np.zeros(st.n, np.uint64)
        for w, lo, hi, act in st.wave_lanes(m):
            bits = np.left_shift(np.uint64(1), np.arange(hi - lo, dtype=np.uint64))
            out[lo:hi] = np.bitwise_or.reduce(np.where(hold[lo:hi], bits, np.uint64(0)))
        return out
    return Typed("u64", run)
