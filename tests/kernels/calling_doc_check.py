#!/usr/bin/env python3
"""Keeps docs/KERNEL_CALLING.md true: runs its Python blocks in order as one
program on the built package, checks that every kernel name it mentions is in
the catalog and that every kernel family has its section.

    calling_doc_check.py DOC K100-SELFTEST
"""
import re
import subprocess
import sys


def main(doc_path, selftest):
    text = open(doc_path, encoding="utf-8").read()
    listing = subprocess.run([selftest, "--list"], check=True, capture_output=True, text=True).stdout
    kernels = {}
    for line in listing.splitlines():
        name, family = line.split()
        kernels[name] = family
    problems = []
    for family in sorted(set(kernels.values())):
        if f"## Family `{family}`" not in text:
            problems.append(f"no section '## Family `{family}`'")
    for name in sorted(set(re.findall(r"`([a-z][a-z0-9_]*_k)`", text)) | set(re.findall(r'"([a-z][a-z0-9_]*_k)"', text))):
        if name not in kernels:
            problems.append(f"mentions `{name}`, which is not in the kernel library")
    if problems:
        sys.exit(f"{doc_path}:\n  " + "\n  ".join(problems))
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    if not blocks:
        sys.exit(f"{doc_path}: no Python blocks")
    namespace = {"__name__": "kernel_calling_doc"}
    line_of = {}
    for i, block in enumerate(blocks):
        start = text[: text.index(block)].count("\n") + 1
        line_of[i] = start
        try:
            exec(compile(block, f"{doc_path}:block{i + 1}(line {start})", "exec"), namespace)
        except Exception as e:  # report the block and re-raise with its traceback
            print(f"{doc_path}: the Python block at line {start} failed: {e!r}", file=sys.stderr)
            raise
        print(f"block {i + 1} (line {start}) ok")
    print(f"{len(blocks)} blocks ran, {len(kernels)} kernels known")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
