#!/usr/bin/env python3
"""Disassembly, both directions, against llvm-mc.

1. llvm's text, read by k100-as: for every encoding family, random
   instruction words (the family's fixed prefix bits, everything else random,
   plus a literal dword) are disassembled by llvm-mc. Every text it prints is
   then assembled by llvm-mc and by k100-as: both must produce the same bytes,
   or both must reject the text (llvm prints some encodings in forms its own
   assembler refuses).
2. k100's text, read by llvm-mc: words with every source modifier on every
   kind of source value of every VOP3 and VOP3P form (modifier_encodings.py)
   are disassembled by both. Both must decode a word or both refuse it; where
   both decode it, llvm-mc must assemble k100's text to the bytes it
   assembles its own text to (texts that are equal count as such without
   assembling). The SDWA and DPP words of the same generator are not part of
   the check yet: k100's decoder still accepts some of them that llvm
   refuses (and the reverse).

Usage: disasm_differential.py K100_AS [--per-family N] [--seed S]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "isa"))
sys.path.insert(0, HERE)
from mc_oracle import assemble as mc_assemble, disassemble as mc_disassemble  # noqa: E402
from asm_differential import k100_assemble, k100_disassemble  # noqa: E402
from modifier_encodings import all_words as modifier_words  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import oracle  # noqa: E402

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


def norm(text):
    return " ".join(text.split())


def compare_printers(k100_as, mc, encodings):
    """(label, bytes) pairs -> counts and differences of k100's printed text
    against llvm's, judged by what llvm-mc assembles each to."""
    ws = [w for _, w in encodings]
    theirs = mc_disassemble(ws, mc=mc)
    ours = [None if o is None or o.startswith(".long") else o for o in k100_disassemble(k100_as, ws)]
    counts = {"same text": 0, "same bytes": 0, "both refuse": 0}
    diffs, pending = [], []
    for (label, w), t, o in zip(encodings, theirs, ours):
        # "/*invalid immediate*/" in llvm's text: it decoded a value it cannot print
        llvm_ok = t[0] != "ERROR" and t[1] and "/*invalid" not in t[0]
        if not llvm_ok and o is None:
            counts["both refuse"] += 1
        elif not llvm_ok or o is None:
            diffs.append((label, w, t[0] if llvm_ok else "<refused>", o or "<refused>", "decode"))
        elif norm(t[0]) == norm(o):
            counts["same text"] += 1
        else:
            pending.append((label, w, t[0], o))
    if pending:
        a = mc_assemble([p[2] for p in pending], mc=mc)
        b = mc_assemble([p[3] for p in pending], mc=mc)
        for (label, w, lt, kt), x, y in zip(pending, a, b):
            if isinstance(x, bytes) and x == y:
                counts["same bytes"] += 1
            else:
                diffs.append((label, w, lt, kt, "reassembly"))
    return counts, diffs


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
        return oracle.missing("llvm-mc-14 not installed (apt-get install llvm-14)")
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
    # direction 2: k100's text of the same random words and of the modifier matrix
    rows = [json.loads(l) for l in subprocess.run([args.k100_as, "--dump-table"], capture_output=True, text=True,
                                                  check=True).stdout.splitlines()]
    matrix = [(f, w) for f, w in modifier_words(rows) if f in ("VOP3", "VOP3P")]
    matrix_counts, matrix_diffs = compare_printers(args.k100_as, mc, matrix)
    print("decoded by llvm-mc per family: " + ", ".join(f"{k} {v}" for k, v in per_family.items()))
    print(f"texts: {len(lines)}, re-assembled identically: {same}, rejected by both: {both_reject}, "
          f"differences: {len(diffs)} (graphics-only texts skipped: {skipped})")
    for fam, t, r, o in diffs[:args.show]:
        rs = r.hex() if isinstance(r, bytes) else (r[1] if r else "none")
        os_ = o.hex() if isinstance(o, bytes) else (o[1] if o else "none")
        print(f"DIFF [{fam}] {t}\n      llvm-mc: {rs}\n      k100-as: {os_}")
    fmt = lambda c: ", ".join(f"{k} {v}" for k, v in c.items())
    print(f"k100 text of the source-modifier matrix ({len(matrix)} words: "
          + ", ".join(f"{f} {sum(1 for l, _ in matrix if l == f)}" for f in ("VOP3", "VOP3P"))
          + f"): {fmt(matrix_counts)}, differences: {len(matrix_diffs)}")
    for label, w, lt, kt, why in matrix_diffs[:args.show]:
        print(f"PRINT [{label}] {w.hex()} ({why})\n      llvm-mc: {lt}\n      k100:    {kt}")
    return 0 if not diffs and not matrix_diffs else 1


if __name__ == "__main__":
    sys.exit(main())
