"""A kernel's launch contract, as the catalog carries it (``"launch"``: one declaration per line).

The same text the C++ side reads (k100/kernels/launch_contract.h): the named sizes a launch is
given, choices with their defaults, values computed from them, the workgroup and grid, the
arguments the host derives and the workspaces with their bytes::

    args w x y ids n k m x_stride split
    sizes n k m groups
    choose wg = 256
    choose split = 1
    let tiles = ceil_div(n, 64)
    workgroup = max(wg, 64 * split)
    let per = max(1, workgroup / 64 / split)
    grid = ceil_div(tiles, per), groups
    arg split = split
    arg n = n

``LaunchContract(lines, kernel).evaluate(sizes, choices)`` gives a ``Launch`` (workgroup, grid,
derived args, workspaces); ``argv(launch, given)`` the argument list in order. Every error is a
``ValueError`` naming the kernel, the declaration and the expression.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["LaunchContract", "Launch", "tile_shares"]

_FUNCTIONS = {"ceil_div": 2, "min": -1, "max": -1, "select": 3, "pow2_floor": 1, "log2_ceil": 1,
              "shl": 2, "tile_share_parts": 1, "tile_share_tiles": 1}
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_]\w*)|(<=|>=|==|!=|[-+*/%(),<>]))")
# The compute units of the K100_LC (k100/quant/gemv_tile_shares.h).
COMPUTE_UNITS = 120
MAX_SHARES = 4


def _on_cu(a: int, b: int, cus: int, c: int) -> int:
    def below(e):
        return e // cus + (1 if e % cus > c else 0)
    return below(b) - below(a)


def _busiest(tiles: int, cus: int, parts: int, shared: int) -> int:
    sharing = shared * parts
    total = sharing + (tiles - shared)
    return max(_on_cu(0, sharing, cus, c) + parts * _on_cu(sharing, total, cus, c) for c in range(cus))


def tile_shares(tiles: int, cus: int = COMPUTE_UNITS, max_parts: int = MAX_SHARES) -> tuple[int, int]:
    """(P, R) of the fast GEMVs' shared tiles (docs/GGUF.md "Shared tiles"): the last R of
    ``tiles`` tiles taken by P workgroups each so the busiest CU has the least work; (1, 0): none."""
    if tiles <= cus or tiles % cus == 0:
        return 1, 0
    best, best_load, best_parts = (1, 0), _busiest(tiles, cus, 1, 0), 1
    for p in range(2, max_parts + 1):
        for r in range(1, min(tiles, 2 * cus) + 1):
            if r * p + (tiles - r) > (tiles + cus - 1) // cus * cus:
                continue
            load = _busiest(tiles, cus, p, r)
            lhs, rhs = load * best_parts, best_load * p
            fewer = r * p < best[1] * best[0]
            if lhs < rhs or (lhs == rhs and best != (1, 0) and fewer):
                best, best_load, best_parts = (p, r), load, p
    return best


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


class _Expr:
    """One parsed expression: a tree of (op, ...) tuples."""

    def __init__(self, text: str, known: set, fail):
        self.text, self._fail = text, fail
        self._toks, pos = [], 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                raise fail(f"unexpected {text[pos:].strip()[0]!r}")
            self._toks.append(("num", int(m.group(1))) if m.group(1) else
                              ("id", m.group(2)) if m.group(2) else ("op", m.group(3)))
            pos = m.end()
        self._i, self._known = 0, known
        self.tree = self._compare()
        if self._i < len(self._toks):
            raise fail(f"unexpected {self._toks[self._i][1]!r}")

    def _peek(self, op):
        return self._i < len(self._toks) and self._toks[self._i] == ("op", op)

    def _eat(self, *ops):
        for op in ops:
            if self._peek(op):
                self._i += 1
                return op
        return None

    def _compare(self):
        left = self._additive()
        while (op := self._eat("<=", ">=", "==", "!=", "<", ">")):
            left = (op, left, self._additive())
        return left

    def _additive(self):
        left = self._term()
        while (op := self._eat("+", "-")):
            left = (op, left, self._term())
        return left

    def _term(self):
        left = self._unary()
        while (op := self._eat("*", "/", "%")):
            left = (op, left, self._unary())
        return left

    def _unary(self):
        if self._eat("-"):
            return ("neg", self._unary())
        return self._primary()

    def _primary(self):
        fail = self._fail
        if self._eat("("):
            e = self._compare()
            if not self._eat(")"):
                raise fail("')' missing")
            return e
        if self._i >= len(self._toks):
            raise fail("expression ends early")
        kind, v = self._toks[self._i]
        self._i += 1
        if kind == "num":
            return ("num", v)
        if kind == "id":
            if self._eat("("):
                if v not in _FUNCTIONS:
                    raise fail(f"unknown function {v!r}")
                args = []
                if not self._eat(")"):
                    args.append(self._compare())
                    while self._eat(","):
                        args.append(self._compare())
                    if not self._eat(")"):
                        raise fail(f"')' missing after the arguments of {v}")
                want = _FUNCTIONS[v]
                if (want >= 0 and len(args) != want) or not args:
                    raise fail(f"{v} takes {want if want >= 0 else 'one or more'} arguments, not {len(args)}")
                return ("call", v, args)
            if v not in self._known:
                raise fail(f"unknown name {v!r}")
            return ("name", v)
        raise fail(f"unexpected {v!r}")

    def evaluate(self, env: dict, fail) -> int:
        """The value for the names in `env`; `fail(why)` makes the error of a bad one."""
        self._fail = fail
        return self._eval(self.tree, env)

    def _eval(self, t, env):
        op = t[0]
        if op == "num":
            return t[1]
        if op == "name":
            return env[t[1]]
        if op == "neg":
            return -self._eval(t[1], env)
        if op == "call":
            name, args = t[1], t[2]
            v = [self._eval(a, env) for a in args] if name != "select" else None
            if name == "ceil_div":
                if v[1] <= 0:
                    raise self._fail(f"ceil_div by {v[1]}")
                return -(-v[0] // v[1]) if v[0] >= 0 else _trunc_div(v[0], v[1])
            if name == "min":
                return min(v)
            if name == "max":
                return max(v)
            if name == "select":
                return self._eval(args[1] if self._eval(args[0], env) != 0 else args[2], env)
            if name == "pow2_floor":
                p = 1
                while p * 2 <= v[0]:
                    p *= 2
                return p
            if name == "log2_ceil":
                if v[0] <= 0:
                    raise self._fail(f"log2_ceil of {v[0]}")
                return (v[0] - 1).bit_length()
            if name == "shl":
                if not 0 <= v[1] <= 62:
                    raise self._fail(f"shl by {v[1]} (0 to 62)")
                if v[0] < 0 or v[0] > (2**63 - 1) >> v[1]:
                    raise self._fail(f"shl({v[0]}, {v[1]}) overflows")
                return v[0] << v[1]
            parts, shared = tile_shares(v[0])
            return parts if name == "tile_share_parts" else shared
        a, b = self._eval(t[1], env), self._eval(t[2], env)
        if op in "/%" and b == 0:
            raise self._fail("division by zero")
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                "/": lambda: _trunc_div(a, b), "%": lambda: a - _trunc_div(a, b) * b,
                "<": lambda: int(a < b), "<=": lambda: int(a <= b), ">": lambda: int(a > b),
                ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b)}[op]()


def _split_top(s: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, c in enumerate(s):
        depth += c == "("
        depth -= c == ")"
        if c == "," and depth == 0:
            out.append(s[start:i].strip())
            start = i + 1
    out.append(s[start:].strip())
    return out


@dataclass
class Launch:
    """A contract evaluated for one launch."""
    workgroup: int = 0
    grid: tuple = (1, 1, 1)
    values: dict = field(default_factory=dict)
    args: dict = field(default_factory=dict)
    workspaces: dict = field(default_factory=dict)


class LaunchContract:
    """A kernel's launch contract read from its catalog lines (``catalog.info(name)["launch"]``)."""

    def __init__(self, lines, kernel: str):
        self.kernel, self.args, self.sizes, self.lines = kernel, [], [], []
        head = f"launch contract of kernel {kernel!r}"
        known, defined, have = set(), set(), set()
        text = "\n".join(lines) if not isinstance(lines, str) else lines
        for raw in text.replace(";", "\n").split("\n"):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue

            def fail_line(why, line=line):
                return ValueError(f"{head}, line {line!r}: {why}")
            words = line.split()
            if words[0] == "args":
                self.args = words[1:]
                continue
            if words[0] == "sizes":
                if self.lines or self.sizes:
                    raise fail_line("sizes come first, once")
                for w in words[1:]:
                    if not re.fullmatch(r"[A-Za-z_]\w*", w) or w in known:
                        raise fail_line(f"bad or repeated size {w!r}")
                    known.add(w)
                    self.sizes.append(w)
                continue
            if "=" not in line:
                raise fail_line("'=' missing")
            lhs, rhs = line.split("=", 1)
            lhs, rhs = lhs.split(), rhs.strip()
            if lhs[0] in ("choose", "let", "arg", "workspace"):
                if len(lhs) != 2 or not re.fullmatch(r"[A-Za-z_]\w*", lhs[1]):
                    raise fail_line(f"expected '{lhs[0]} NAME = EXPRESSION'")
                kind, name, texts = lhs[0], lhs[1], [rhs]
            elif lhs in (["workgroup"], ["grid"]):
                kind, name = lhs[0], ""
                if kind in have:
                    raise fail_line("declared twice")
                have.add(kind)
                texts = [rhs] if kind == "workgroup" else _split_top(rhs)
                if len(texts) > 3:
                    raise fail_line("a grid has at most 3 dimensions")
            else:
                raise fail_line(f"unknown declaration {words[0]!r} (sizes, choose, let, workgroup, grid, arg, workspace)")
            exprs = []
            for t in texts:
                def fail(why, t=t, line=line):
                    return ValueError(f"{head}, line {line!r}, expression {t!r}: {why}")
                exprs.append(_Expr(t, known, fail))
            if kind in ("choose", "let"):
                if name in known:
                    raise fail_line(f"{name!r} is declared twice")
                known.add(name)
            elif kind in ("arg", "workspace"):
                if self.args and name not in self.args:
                    raise fail_line(f"the kernel has no argument {name!r}")
                if name in defined:
                    raise fail_line(f"argument {name!r} is declared twice")
                defined.add(name)
            elif kind == "workgroup":
                known.add("workgroup")
            else:
                known.update(("grid_x", "grid_y", "grid_z"))
            self.lines.append((kind, name, exprs))
        if "workgroup" not in have or "grid" not in have:
            raise ValueError(f"{head}: no {'grid' if 'workgroup' in have else 'workgroup'} declared")

    def choices(self) -> list[str]:
        """The names a caller may set."""
        return [n for k, n, _ in self.lines if k == "choose"]

    def evaluate(self, sizes: dict, choices: dict | None = None) -> Launch:
        """Every line for these sizes (each declared size given, no other) and choices."""
        head = f"launch contract of kernel {self.kernel!r}"
        choices = dict(choices or {})
        missing = [s for s in self.sizes if s not in sizes]
        if missing:
            raise ValueError(f"{head}: size {missing[0]!r} not given")
        extra = [s for s in sizes if s not in self.sizes]
        if extra:
            raise ValueError(f"{head}: it has no size {extra[0]!r}")
        bad = [c for c in choices if c not in self.choices()]
        if bad:
            raise ValueError(f"{head}: it has no choice {bad[0]!r}")
        out = Launch(values={s: int(sizes[s]) for s in self.sizes})
        for kind, name, exprs in self.lines:
            where = f"{head}, {kind}{' ' + name if name else ''}"
            v = [e.evaluate(out.values, lambda why, e=e, where=where: ValueError(f"{where}, expression {e.text!r}: {why}"))
                 for e in exprs]
            for i, x in enumerate(v):
                if kind in ("workgroup", "grid") and not 1 <= x <= 0xFFFFFFFF:
                    raise ValueError(f"{where}, expression {exprs[i].text!r}: {x} is not a count of 1 or more")
                if kind in ("arg", "workspace") and x < 0:
                    raise ValueError(f"{where}, expression {exprs[i].text!r}: {x} is negative")
            if kind == "choose":
                out.values[name] = int(choices.get(name, v[0]))
            elif kind == "let":
                out.values[name] = v[0]
            elif kind == "workgroup":
                out.workgroup = out.values["workgroup"] = v[0]
            elif kind == "grid":
                out.grid = tuple(v + [1] * (3 - len(v)))
                out.values.update(zip(("grid_x", "grid_y", "grid_z"), out.grid))
            elif kind == "arg":
                out.args[name] = v[0]
            else:
                out.workspaces[name] = v[0]
        return out

    def argv(self, launch: Launch, given: dict) -> list:
        """The arguments in order: derived ones from `launch`, the others from `given` as given (a float
        stays a float: the runtime packs each value by the catalog's type of its argument)."""
        head = f"launch of kernel {self.kernel!r}"
        for name in given:
            if name not in self.args:
                raise ValueError(f"{head}: it has no argument {name!r}")
        out = []
        for a in self.args:
            if a in launch.args and a in given:
                raise ValueError(f"{head}: argument {a!r} is derived by the launch contract and given too")
            if a in launch.args:
                out.append(launch.args[a])
            elif a in given:
                out.append(given[a])
            else:
                raise ValueError(f"{head}: argument {a!r} not given")
        return out
