"""python3 -m k100lc_kernels [list [SUBSTR | FORMAT] | info NAME | selftest [flags] | generate -m MODEL.gguf|DIR [flags]]

``generate`` is k100-generate's command with its flags (``generate --help``).

``list FORMAT`` (a block format's name, "q4_K", "iq2_xxs") lists that format's
kernels, whose lookups use a short prefix ("q4k_dequant", "q4k_gemv_k").

``info NAME`` prints the catalog entry as indented JSON, with what the kernel
library's registry says of it (``family``, ``description``, ``semantics``,
``geometry``, ``limits``, ``tolerance``) when the build has it; an unknown
name is a KeyError naming the closest lookup (exit 1).
"""
from __future__ import annotations

import json
import sys

from .catalog import UnknownKernel, docs, info, kernels


def main(argv: list[str]) -> int:
    """Runs the command line; returns the exit status."""
    if not argv or argv[0] == "list":
        if len(argv) > 2:
            return usage()
        try:
            pattern = argv[1] if len(argv) == 2 else ""
            prefix = _format_prefix(pattern)
            entries = kernels(prefix + "_") if prefix else kernels(pattern)
            if prefix:
                print(f"# the kernels of format {pattern}: lookups {prefix}_*", file=sys.stderr)
        except FileNotFoundError as e:
            print(f"k100lc_kernels: {e}", file=sys.stderr)
            return 1
        for e in entries:
            print(f"{e['lookup']:<32} kernarg={e['kernarg_size']:4d} lds={e['group_segment']:5d} "
                  f"priv={e['private_segment']:4d}")
        return 0
    if argv[0] == "selftest":
        from .selftest import run

        return run(argv[1:])
    if argv[0] == "generate":
        from .model import generate

        return generate(argv[1:])
    if argv[0] == "info" and len(argv) == 2:
        try:
            entry = dict(info(argv[1]))
        except FileNotFoundError as e:
            print(f"k100lc_kernels: {e}", file=sys.stderr)
            return 1
        except UnknownKernel as e:
            print(f"k100lc_kernels info: KeyError: {e}", file=sys.stderr)
            return 1
        d = docs(entry.get("lookup", argv[1]))
        if d:
            for key in ("family", "description", "semantics", "geometry", "limits", "tolerance"):
                if d.get(key):
                    entry[key] = d[key]
        print(json.dumps(entry, indent=2, ensure_ascii=False))
        return 0
    return usage()


def _format_prefix(pattern: str):
    """The kernel prefix when `pattern` is a block format's name ("q4_K" -> "q4k"; lookups use the
    short prefix), else None (also when the quant library cannot be loaded)."""
    if not pattern:
        return None
    try:
        from . import gguf

        return gguf.kernel_prefix_of(pattern)
    except Exception:  # the listing works without libk100_quant.so
        return None


def usage() -> int:
    """Prints the usage line; returns 2."""
    print("usage: python3 -m k100lc_kernels [list|info NAME]\n"
          "       python3 -m k100lc_kernels selftest [--group a,b] [--only x,y] [--sweep] [--repeat N] [--json]\n"
          "       python3 -m k100lc_kernels generate -m MODEL.gguf|DIR [-p TEXT | -cnv] [-n N] [--temp T] ... (--help)",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
