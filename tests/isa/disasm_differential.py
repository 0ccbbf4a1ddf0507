#!/usr/bin/env python3
"""Disassembly, both directions, against llvm-mc.

1. llvm's text, read by k100-as: for every encoding family (SDWA and DPP
   words of VOP1/VOP2/VOPC as families of their own), random instruction
   words (the family's fixed prefix bits, everything else random, plus a
   literal dword) are disassembled by llvm-mc. Every text it prints is then
   assembled by llvm-mc and by k100-as: both must produce the same bytes, or
   both must reject the text (llvm prints some encodings in forms its own
   assembler refuses).
2. k100's text, read by llvm-mc: the same random words, each alone and with
   the literal dword, and the words with every source modifier on every kind
   of source value of every VOP3, VOP3P, SDWA and DPP form
   (modifier_encodings.py) are disassembled by both. Both must decode a word
   or both refuse it; where both decode it, llvm-mc must assemble k100's text
   to the bytes it assembles its own text to (texts that are equal count as
   such without assembling). Every encoding of the matrix (VOP3, VOP3P, the
   SDWA and DPP forms of VOP1/VOP2/VOPC) must have words both decode: one
   that both refuse entirely would compare nothing.

llvm-mc "decodes" a few words it has no text for; they count as refused:
its text holds a comment (/*invalid immediate*/, /* Invalid dpp_ctrl value */,
/* row_xmask is not supported ... */), an SDWA dst_unused of 3 prints as
UNUSED_PAD (0), and it dies on an SDWA select of 7 (mc_oracle retries the
rest of the batch; only a few such words are given to it, the others count
as refused without asking again). Graphics-only instructions (interpolation,
image, export) are not in k100's table.

Cost with the defaults: 20,707 texts, 281,980 random words and 225,496
modifier words, 18 s on an idle 2-core machine (35 s on a loaded one).

Usage: disasm_differential.py K100_AS [--per-family N] [--seed S]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "isa"))
sys.path.insert(0, HERE)
from mc_oracle import CRASH, assemble as mc_assemble, disassemble as mc_disassemble  # noqa: E402
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
    # VOP1 / VOP2 / VOPC words whose src0 field is the SDWA (0xF9) or DPP
    # (0xFA) marker, and the second dword the marker stands for
    "VOP1_SDWA": (0x7E0000F9, 0xFE0001FF, 2),
    "VOP2_SDWA": (0x000000F9, 0x800001FF, 2),
    "VOPC_SDWA": (0x7C0000F9, 0xFE0001FF, 2),
    "VOP1_DPP": (0x7E0000FA, 0xFE0001FF, 2),
    "VOP2_DPP": (0x000000FA, 0x800001FF, 2),
    "VOPC_DPP": (0x7C0000FA, 0xFE0001FF, 2),
}


def words(fam, rng, n):
    fixed, mask, dws = FAMILIES[fam]
    out = []
    for _ in range(n):
        w0 = (rng.getrandbits(32) & ~mask) | fixed
        if fam.startswith("VOP2") and (w0 >> 25) in (0x3E, 0x3F):
            w0 &= ~(1 << 30)  # keep it VOP2, not VOPC/VOP1
        ws = [w0] + [rng.getrandbits(32) for _ in range(dws - 1)]
        if fam == "VOP1_SDWA" and rng.getrandbits(1):
            ws[1] &= 0x00FFFFFF  # no src1 fields: the only VOP1 SDWA words llvm decodes
        lit = rng.getrandbits(32)
        b = b"".join(w.to_bytes(4, "little") for w in ws)
        out.append((b, b + lit.to_bytes(4, "little")))
    return out


def norm(text):
    return " ".join(text.split())


def sdwa_dst_unused_3(w):
    """A VOP1/VOP2 SDWA word whose dst_unused field is 3, a value without a
    name: llvm-mc-14 prints it as UNUSED_PAD (0), a different encoding."""
    if len(w) < 8:
        return False
    w0 = int.from_bytes(w[:4], "little")
    return w0 >> 31 == 0 and w0 & 0x1FF == 0xF9 and w0 >> 25 != 0x3E and (w[5] >> 3) & 3 == 3


def llvm_has_text(w, t):
    """Whether llvm-mc decoded `w` as one instruction it has text for. A
    comment in its text (/*invalid immediate*/, /* Invalid dpp_ctrl value */,
    /* row_xmask is not supported ... */) and the words it dies on
    (mc_oracle.CRASH) are values it decodes but cannot print."""
    return t[0] != "ERROR" and t[1] and "/*" not in t[0] and not sdwa_dst_unused_3(w)


def sdwa_select_7(w):
    """An SDWA word with a select field of 7, which has no name: llvm-mc-14
    dies printing it."""
    if len(w) < 8:
        return False
    w0 = int.from_bytes(w[:4], "little")
    if w0 >> 31 or w0 & 0x1FF != 0xF9:
        return False
    vopc = w0 >> 25 == 0x3E
    return (not vopc and w[5] & 7 == 7) or w[6] & 7 == 7 or w[7] & 7 == 7


def llvm_disassemble(ws, mc, sample=3):
    """mc_disassemble of `ws`. The SDWA words with a select of 7 would each
    kill llvm-mc and cost a retry of their batch, so only the first `sample`
    of them are given to it (mc_oracle reports what it dies on); the others
    count as refused without asking it again."""
    aside = [i for i, w in enumerate(ws) if sdwa_select_7(w)]
    ask = [i for i, w in enumerate(ws) if not sdwa_select_7(w)] + aside[:sample]
    out = [("ERROR", CRASH + " (select 7, not asked again)")] * len(ws)
    for i, r in zip(ask, mc_disassemble([ws[i] for i in ask], mc=mc)):
        out[i] = r
    return out


def compare_printers(k100_as, mc, encodings, theirs=None):
    """(label, bytes) pairs -> counts and differences of k100's printed text
    against llvm's (`theirs`: llvm-mc's, when already known), judged by
    what llvm-mc assembles each to."""
    ws = [w for _, w in encodings]
    if theirs is None:
        theirs = llvm_disassemble(ws, mc)
    ours = [None if o is None or o.startswith(".long") else o for o in k100_disassemble(k100_as, ws)]
    counts = {"same text": 0, "same bytes": 0, "both refuse": 0, "graphics-only": 0}
    agreed = Counter()  # per label: words both decode to the same instruction
    diffs, pending = [], []
    for (label, w), t, o in zip(encodings, theirs, ours):
        llvm_ok = llvm_has_text(w, t)
        if llvm_ok and o is None and t[0].split()[0].startswith(GRAPHICS_ONLY):
            counts["graphics-only"] += 1  # not in k100's table
        elif not llvm_ok and o is None:
            counts["both refuse"] += 1
        elif not llvm_ok or o is None:
            diffs.append((label, w, t[0] if llvm_ok else "<refused>", o or "<refused>", "decode"))
        elif norm(t[0]) == norm(o):
            counts["same text"] += 1
            agreed[label] += 1
        else:
            pending.append((label, w, t[0], o))
    if pending:
        a = mc_assemble([p[2] for p in pending], mc=mc)
        b = mc_assemble([p[3] for p in pending], mc=mc)
        for (label, w, lt, kt), x, y in zip(pending, a, b):
            if isinstance(x, bytes) and x == y:
                counts["same bytes"] += 1
                agreed[label] += 1
            else:
                diffs.append((label, w, lt, kt, "reassembly"))
    return counts, diffs, agreed


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
    random_words = []  # (family, bytes) for direction 2: each word alone and with a literal dword
    random_llvm = []  # llvm-mc's result for each of them
    skipped = 0
    # families whose random words rarely decode get more of them
    boost = {"VOP3": 10, "VOP3P": 8, "DS": 6, "FLAT": 6}
    for fam in FAMILIES:
        ws = words(fam, rng, args.per_family * boost.get(fam, 1))
        plain = llvm_disassemble([w for w, _ in ws], mc)
        with_lit = llvm_disassemble([w for _, w in ws], mc)
        n = 0
        for (a, b), (w, wl) in zip(zip(plain, with_lit), ws):
            r = a if a[0] != "ERROR" and a[1] else (b if b[0] != "ERROR" and b[1] else None)
            if r is not None and r[0].split()[0].startswith(GRAPHICS_ONLY):
                skipped += 1  # graphics-only instructions are not in the table
                continue
            random_words += [(fam, w), (fam, wl)]
            random_llvm += [a, b]
            if r is not None:
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
    matrix = modifier_words(rows)
    random_counts, random_diffs, _ = compare_printers(args.k100_as, mc, random_words, random_llvm)
    matrix_counts, matrix_diffs, matrix_agreed = compare_printers(args.k100_as, mc, matrix)
    # a matrix encoding whose words all are refused by both would compare nothing
    untested = sorted(l for l in set(l for l, _ in matrix) if not matrix_agreed[l])
    print("direction 1 (llvm's text, assembled by both)")
    print("  decoded by llvm-mc per family: " + ", ".join(f"{k} {v}" for k, v in per_family.items()))
    print(f"  texts: {len(lines)}, re-assembled identically: {same}, rejected by both: {both_reject}, "
          f"differences: {len(diffs)} (graphics-only texts skipped: {skipped})")
    for fam, t, r, o in diffs[:args.show]:
        rs = r.hex() if isinstance(r, bytes) else (r[1] if r else "none")
        os_ = o.hex() if isinstance(o, bytes) else (o[1] if o else "none")
        print(f"DIFF [{fam}] {t}\n      llvm-mc: {rs}\n      k100-as: {os_}")
    fmt = lambda c: ", ".join(f"{k} {v}" for k, v in c.items())
    families = lambda ws: ", ".join(f"{f} {n}" for f, n in Counter(l for l, _ in ws).items())
    print("direction 2 (k100's text, read by llvm-mc)")
    print(f"  random words ({len(random_words)}: {families(random_words)}): {fmt(random_counts)}, "
          f"differences: {len(random_diffs)}")
    print(f"  source-modifier matrix ({len(matrix)} words: {families(matrix)}): {fmt(matrix_counts)}, "
          f"differences: {len(matrix_diffs)}")
    print("  matrix words both decode, per encoding: " + ", ".join(f"{l} {n}" for l, n in sorted(matrix_agreed.items())))
    for label, w, lt, kt, why in (random_diffs + matrix_diffs)[:args.show]:
        print(f"PRINT [{label}] {w.hex()} ({why})\n      llvm-mc: {lt}\n      k100:    {kt}")
    for label in untested:
        print(f"UNTESTED [{label}]: both refuse every word of this encoding in the matrix")
    return 0 if not diffs and not random_diffs and not matrix_diffs and not untested else 1


if __name__ == "__main__":
    sys.exit(main())
