#!/usr/bin/env python3
"""Lines of kernel source per kernel.

Counts the source lines under kernels/ (C++ generators, registry entries and
host references, hand-written .s kernels and their .inc macros) that are
neither blank nor comment-only, and divides by the number of kernels the
registry holds (the `--list` output of k100-selftest, or --kernels N).

    scripts/kernel_source_lines.py [--root DIR] [--rev REV] [--kernels N] [--selftest PATH] [--files]
                                   [--family DIR ...]

--rev measures the kernels/ tree of a commit (read with `git archive`, the
checkout is not touched) the same way, e.g. the tree before the authoring
layer beside today's; the kernel count still comes from --kernels or this
build's k100-selftest, so give --kernels when the commit registered another
number of kernels.

--family DIR (repeatable) counts only kernels/DIR/**, for the kernels of
some families measured beside an older tree that held only those (give
--kernels with their number): `--family ops --family other --family gemv
--kernels 44` are the 44 kernels of `--rev 9346862 --kernels 44`.

The authoring layer itself (src/codegen) is a library like the assembler and
is not counted here; --also DIR adds another tree to the report (not to the
per-kernel figure) so its size can be stated beside it.
"""
import argparse
import os
import subprocess
import sys
import tarfile
import tempfile

CXX = (".cpp", ".h", ".hpp", ".inc.h")
ASM = (".s", ".inc")


def counted_lines(path):
    """Non-blank lines that are not only a comment (// or /* */ in C++, // or ; in assembly)."""
    asm = path.endswith(ASM)
    n = 0
    in_block = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.strip()
            if in_block:
                if "*/" in line:
                    in_block = False
                    line = line.split("*/", 1)[1].strip()
                else:
                    continue
            if not line:
                continue
            if line.startswith("//") or (asm and (line.startswith(";") or line.startswith("#"))):
                continue
            if line.startswith("/*"):
                if "*/" not in line:
                    in_block = True
                continue
            n += 1
    return n


def tree_lines(root):
    per_file = {}
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(CXX + ASM):
                p = os.path.join(dirpath, name)
                per_file[os.path.relpath(p, root)] = counted_lines(p)
    return per_file


def kernel_count(selftest):
    out = subprocess.run([selftest, "--list"], capture_output=True, text=True, check=True,
                         env=dict(os.environ, K100_BACKEND="emu")).stdout
    return sum(1 for line in out.splitlines() if line.strip() and not line.startswith("k100:"))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(here, ".."))
    ap.add_argument("--kernels", type=int, default=0, help="kernel count (default: ask k100-selftest --list)")
    ap.add_argument("--selftest", default="", help="path of k100-selftest (default: ROOT/build/bin)")
    ap.add_argument("--files", action="store_true", help="print the count of every file")
    ap.add_argument("--also", action="append", default=[], help="another tree to report beside (not counted)")
    ap.add_argument("--rev", default="", help="measure the kernels/ tree of this commit")
    ap.add_argument("--family", action="append", default=[], help="count only kernels/DIR (repeatable)")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    if a.rev:
        with tempfile.TemporaryDirectory() as tmp:
            archive = subprocess.run(["git", "-C", root, "archive", "--format=tar", a.rev, "kernels"],
                                     capture_output=True, check=True).stdout
            tar = os.path.join(tmp, "kernels.tar")
            with open(tar, "wb") as f:
                f.write(archive)
            with tarfile.open(tar) as tf:
                tf.extractall(tmp)
            per_file = tree_lines(os.path.join(tmp, "kernels"))
    else:
        per_file = tree_lines(os.path.join(root, "kernels"))
    if a.family:
        per_file = {n: c for n, c in per_file.items() if n.split(os.sep)[0] in a.family}
    total = sum(per_file.values())
    kernels = a.kernels or kernel_count(a.selftest or os.path.join(root, "build", "bin", "k100-selftest"))
    if a.files:
        for name, n in sorted(per_file.items()):
            print(f"{n:6d}  kernels/{name}")
    where = "kernels/{" + ",".join(a.family) + "}/**" if a.family else "kernels/**"
    print(f"kernel source lines (non-blank, non-comment, {where}): {total} in {len(per_file)} files")
    print(f"kernels: {kernels}")
    print(f"lines per kernel: {total / kernels:.1f}")
    for extra in ([] if a.rev else a.also):
        lines = sum(tree_lines(os.path.join(root, extra)).values())
        print(f"beside it, not counted: {extra}: {lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
