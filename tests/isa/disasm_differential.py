#!/usr/bin/env python3
"""llvm-mc's own disassembly of random words, re-assembled by k100-as.

For every encoding family, random instruction words (the family's fixed
prefix bits, everything else random, plus a literal dword) are disassembled by
llvm-mc. Every text it prints is then assembled by llvm-mc and by k100-as:
both must produce the same bytes, or both must reject the text (llvm prints
some encodings in forms its own assembler refuses).

Usage: disasm_differential.py K100_AS [--per-family N] [--seed S]
"""
import argparse
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "isa"))
sys.path.insert(0, HERE)
from mc_oracle import assemble as mc_assemble, disassemble as mc_disassemble  # noqa: E402
from asm_differential import k100_assemble  # noqa: E402

# Interpolation, image and export instructions are graphics-only: k100lc's
# table leaves them out on purpose.
GRAPHICS_ONLY = ("v_interp_", "image_", "exp ")

# family: (fixed bits, mask of fixed bits, dwords)
FAMILIES = {
    "SOP2": (0x80000000, 0xC0000000, 1),
    "SOPK": (0xB0000000, 0xF0000000, 1),
    "SOP1": (0xBE800000, 0xFF800000, 1),
    "SOPC": (0xBF000000, 0xFF800000, 1),
    "SOPP": (0xBF800000, 0xFF800000, 1),
    "SMEM": (0xC0000000, 0xFC000000, 2),
    "VOP1": (0x7E000000, 0xFE000000, 1),
    "VOP2": (0x00000000, 0x80000000, 1),
    "VOPC": (0x7C000000, 0xFE000000, 1),
    "VOP3": (0xD0000000, 0xFC000000, 2),
    "VOP3P": (0xD3800000, 0xFF800000, 2),
    "DS": (0xD8000000, 0xFC000000, 2),
    "MUBUF": (0xE0000000, 0xFC000000, 2),
    "MTBUF": (0xE8000000, 0xFC000000, 2),
    "FLAT": (0xDC000000, 0xFC000000, 2),
}


def words(fam, rng, n):
    fixed, mask, dws = FAMILIES[fam]
    out = []
    for _ in range(n):
        w0 = (rng.getrandbits(32) & ~mask) | fixed
        if fam == "VOP2" and (w0 >> 25) in (0x3E, 0x3F):
            w0 &= ~(1 << 30)  # keep it VOP2, not VOPC/VOP1
        ws = [w0] + [rng.getrandbits(32) for _ in range(dws - 1)]
        lit = rng.getrandbits(32)
        b = b"".join(w.to_bytes(4, "little") for w in ws)
        out.append((b, b + lit.to_bytes(4, "little")))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("k100_as")
    ap.add_argument("--mc", default=None)
    ap.add_argument("--per-family", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--show", type=int, default=30)
    args = ap.parse_args()
    mc = args.mc or shutil.which("llvm-mc-14") or shutil.which("llvm-mc")
    if not mc:
        print("SKIP: llvm-mc-14 not installed (apt-get install llvm-14)")
        return 0
    rng = random.Random(args.seed)
    texts = []
    per_family = {}
    skipped = 0
    # families whose random words rarely decode get more of them
    boost = {"VOP3": 10, "VOP3P": 8, "DS": 6, "FLAT": 6}
    for fam in FAMILIES:
        ws = words(fam, rng, args.per_family * boost.get(fam, 1))
        plain = mc_disassemble([w for w, _ in ws], mc=mc)
        with_lit = mc_disassemble([w for _, w in ws], mc=mc)
        n = 0
        for (a, b) in zip(plain, with_lit):
            r = a if a[0] != "ERROR" and a[1] else (b if b[0] != "ERROR" and b[1] else None)
            if r is not None:
                if r[0].split()[0].startswith(GRAPHICS_ONLY):
                    skipped += 1  # graphics-only instructions are not in the table
                    continue
                texts.append((fam, r[0]))
                n += 1
        per_family[fam] = n
    lines = [t for _, t in texts]
    ref = mc_assemble(lines, mc=mc)
    ours = k100_assemble(args.k100_as, lines)
    same = both_reject = 0
    diffs = []
    for (fam, t), r, o in zip(texts, ref, ours):
        if isinstance(r, bytes) and r == o:
            same += 1
        elif not isinstance(r, bytes) and not isinstance(o, bytes):
            both_reject += 1
        else:
            diffs.append((fam, t, r, o))
    print("decoded by llvm-mc per family: " + ", ".join(f"{k} {v}" for k, v in per_family.items()))
    print(f"texts: {len(lines)}, re-assembled identically: {same}, rejected by both: {both_reject}, "
          f"differences: {len(diffs)} (graphics-only texts skipped: {skipped})")
    for fam, t, r, o in diffs[:args.show]:
        rs = r.hex() if isinstance(r, bytes) else (r[1] if r else "none")
        os_ = o.hex() if isinstance(o, bytes) else (o[1] if o else "none")
        print(f"DIFF [{fam}] {t}\n      llvm-mc: {rs}\n      k100-as: {os_}")
    return 0 if not diffs else 1


if __name__ == "__main__":
    sys.exit(main())
