"""python3 -m k100lc_compiler build SOURCE [-o OUT_DIR] [--kernel NAME] [--emit-asm] | list SOURCE

``build`` compiles every kernel of SOURCE (a .kkl file) into OUT_DIR (default
build/compiler) and prints each ``.hsaco`` path, with ``--emit-asm`` the
assembly after each path; ``list`` prints the kernel names. Errors go to
standard error as k100-cc reports them (file:line:col, the line, a caret);
exit status 1.
"""
from __future__ import annotations

import argparse
import sys

from .driver import CompileError, compile_file, kernel_names


def main(argv: list[str] | None = None) -> int:
    """Runs the command line `argv` (default sys.argv[1:]); the exit status."""
    ap = argparse.ArgumentParser(prog="python3 -m k100lc_compiler",
                                 description="compiles kernels written in the kernel language (.kkl)")
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="compile into <name>.s, <name>.hsaco, <name>.catalog.json per kernel")
    b.add_argument("source")
    b.add_argument("-o", dest="out_dir", default="build/compiler")
    b.add_argument("--kernel", default=None, help="only the kernel of this name")
    b.add_argument("--emit-asm", action="store_true", help="print each kernel's assembly after its path")
    ls = sub.add_parser("list", help="print the kernel names")
    ls.add_argument("source")
    a = ap.parse_args(argv)
    try:
        if a.command == "list":
            for name in kernel_names(a.source):
                print(name)
            return 0
        for p in compile_file(a.source, a.out_dir, only=a.kernel):
            print(p)
            if a.emit_asm:
                sys.stdout.write(p.with_suffix(".s").read_text())
        return 0
    except CompileError as e:
        text = "\n".join(str(d) for d in e.diagnostics) if e.diagnostics else str(e)
        print(text, file=sys.stderr)
        return 1
    except FileNotFoundError as e:
        print(f"k100lc_compiler: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
