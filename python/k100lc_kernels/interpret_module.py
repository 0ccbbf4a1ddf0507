"""The top level of a kernel-language source for the interpreter: its
functions, which of them are kernels (not @inline, called by no function),
its constants, and compile-time constant evaluation (const_eval.cpp)."""
from __future__ import annotations

import ast

from .interpret_workgroup import InterpretError

BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}


class Module:
    """The top level of a source: functions, constants, which are kernels."""

    def __init__(self, text: str, where):
        self.where = where
        try:
            tree = ast.parse(text)
        except SyntaxError as e:
            raise InterpretError(f"{where(e.lineno or 0)}: {e.msg}") from None
        self.functions: dict[str, ast.FunctionDef] = {}
        self.constants: dict[str, object] = {}
        self.inline: set[str] = set()
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
                for d in node.decorator_list:
                    if (isinstance(d, ast.Name) and d.id == "inline") or (
                            isinstance(d, ast.Attribute) and d.attr == "inline"):
                        self.inline.add(node.name)
                continue
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.constants[node.targets[0].id] = const_eval(node.value, {}, self.constants, where)
                continue
            raise InterpretError(f"{where(node.lineno)}: only functions, constants (NAME = value) and imports "
                                 f"may stand at the top level, not {type(node).__name__}")
        called = {c.func.id for f in self.functions.values() for c in ast.walk(f)
                  if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
        self.kernels = [n for n in self.functions if n not in self.inline and n not in called]


def const_eval(node, names: dict, constants: dict, where):
    """A compile-time constant (const_eval.cpp): int64 integers, float64 floats."""
    def fail(why):
        raise InterpretError(f"{where(node.lineno)}: a compile-time constant is needed here; {why}")
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        if node.id in constants:
            return constants[node.id]
        fail(f"'{node.id}' is not a constant")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert)):
        a = const_eval(node.operand, names, constants, where)
        if isinstance(node.op, ast.USub):
            return -a
        if isinstance(a, float):
            fail("'~' takes integers")
        return ~a
    if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
        a = const_eval(node.left, names, constants, where)
        b = const_eval(node.right, names, constants, where)
        op = BINOPS[type(node.op)]
        if isinstance(a, float) or isinstance(b, float):
            if op not in "+-*/":
                fail(f"'{op}' does not take floats")
            return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else fail("division by zero")}[op]
        if op in ("/", "//", "%"):
            if b == 0:
                fail("division by zero")
            return a % b if op == "%" else a // b
        if op == "<<":
            if not (0 <= b <= 32 and 0 <= a <= 1 << 32):
                fail("the shift is out of range")
            return a << b
        r = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, ">>": lambda: a >> b,
             "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b}[op]()
        if op in "+-*" and abs(r) > 1 << 40:
            fail("the value is far outside 32 bits")
        return r
    fail("this expression is computed at run time")
