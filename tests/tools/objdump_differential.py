#!/usr/bin/env python3
"""k100-objdump against llvm-objdump-15, flag by flag, on real code objects.

The inputs are the code objects the emulator tests build with clang-15 and
ld.lld (BUILD/tests/emu/kernels; gfx906, the processor llvm-objdump knows).
For each one, each command line below is run through both tools as
a user types it, and the outputs must be identical: the same columns, widths,
section-type words, symbol flags and disassembly lines.

-d is compared on every object except those whose code holds a 32-bit
literal equal to an inline constant (a PC-relative sym@rel32@hi that
resolved to 0 or -1): llvm's printer writes those as the inline value (`0`,
`-1`), the k100 ISA printer as the literal it is (`0x0`, `0xffffffff`); the
other flags are compared on every object.

Usage: objdump_differential.py K100_OBJDUMP BUILD_DIR
"""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import oracle  # noqa: E402

FLAGS = [["-h"], ["-t"], ["-T"], ["-f"], ["-p"], ["-x"], ["-s"], ["-r"], ["-ht"], ["-fp"], ["-s", "-j", ".rodata"],
         ["-sj.text"], ["-C", "-t"], ["-t", "-T", "-h", "-s"]]
DISASSEMBLY = [["-d"], ["-dr"], ["-d", "--no-show-raw-insn"], ["-S"], ["-d", "-C"]]
# Objects with literals the two printers spell differently (see above): -d is not compared on them.
LITERAL_SPELLING = ("atomics_", "control_", "private_")


def out(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ours, build = sys.argv[1], sys.argv[2]
    llvm = shutil.which("llvm-objdump-15")
    if not llvm:
        return oracle.missing("llvm-objdump-15 is missing (apt-get install llvm-15)")
    objects = sorted(glob.glob(os.path.join(build, "tests", "emu", "kernels", "*.hsaco")))
    if not objects:
        return oracle.missing("no clang-built code objects in tests/emu/kernels (clang-15 and hipcc missing)")
    failures, runs = [], 0
    for obj in objects:
        stem = os.path.basename(obj)
        flag_sets = FLAGS + ([] if stem.startswith(LITERAL_SPELLING) else DISASSEMBLY)
        # a range and a symbol from the object's own symbol table
        rc, syms = out([llvm, "-t", obj])
        funcs = [l.split()[-1] for l in syms.splitlines() if " F .text" in l]
        if funcs and not stem.startswith(LITERAL_SPELLING):
            first = next(l for l in syms.splitlines() if l.endswith(" " + funcs[-1]))
            start = int(first.split()[0], 16)
            flag_sets = flag_sets + [["-d", f"--disassemble-symbols={funcs[-1]}"],
                                     ["-d", f"--start-address={start + 8:#x}", f"--stop-address={start + 40:#x}"]]
        for flags in flag_sets:
            a, b = out([llvm, *flags, obj]), out([ours, *flags, obj])
            runs += 1
            if a != b:
                la, lb = a[1].splitlines(), b[1].splitlines()
                where = next((i for i in range(max(len(la), len(lb)))
                              if i >= len(la) or i >= len(lb) or la[i] != lb[i]), 0)
                failures.append(f"{stem} {' '.join(flags)}: rc {a[0]} vs {b[0]}; line {where + 1}:\n"
                                f"    llvm-objdump-15: {la[where] if where < len(la) else '(end)'}\n"
                                f"    k100-objdump:    {lb[where] if where < len(lb) else '(end)'}")
    print(f"k100-objdump compared with llvm-objdump-15: {runs} command lines over {len(objects)} code objects")
    for f in failures[:30]:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
