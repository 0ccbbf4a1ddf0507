#!/usr/bin/env python3
"""Stage 1 of the GFX9 table derivation: enumerate every opcode of every
encoding family through llvm-mc's disassembler (gfx906) and record the
mnemonic and the operand text printed for a probe encoding.

Each family lists its fields (name, bit position, width, probe value). LLVM
rejects encodings whose unused fields are not zero, so for every opcode the
probes try all subsets of the optional fields, largest first, and keep the
first one llvm-mc decodes completely. Which probe values show up in the text
tells which fields the instruction uses.

Output: JSON on stdout (list of records), consumed by derive_table.py.
"""
import itertools
import json
import sys

from mc_oracle import disassemble

# name -> (fixed bits of the word, opcode (pos, width), count, fields, literal?)
# fields: (name, pos, width, probe) with pos counted over the 64-bit word.
FAMILIES = {
    "SOP2": (0x80000000, (23, 7), 0x60, [("sdst", 16, 7, 8), ("ssrc0", 0, 8, 20), ("ssrc1", 8, 8, 40)]),
    "SOPK": (0xB0000000, (23, 5), 0x1D, [("sdst", 16, 7, 8), ("simm16", 0, 16, 0x1234)]),
    "SOP1": (0xBE800000, (8, 8), 0x100, [("sdst", 16, 7, 8), ("ssrc0", 0, 8, 20)]),
    "SOPC": (0xBF000000, (16, 7), 0x80, [("ssrc0", 0, 8, 20), ("ssrc1", 8, 8, 40)]),
    "SOPP": (0xBF800000, (16, 7), 0x80, [("simm16", 0, 16, 3)]),
    "SMEM": (0xC0000000, (18, 8), 0x100, [("sdata", 6, 7, 8), ("sbase", 0, 6, 10), ("imm", 17, 1, 1),
                                           ("offset", 32, 21, 0x40)]),
    "VOP1": (0x7E000000, (9, 8), 0x100, [("vdst", 17, 8, 8), ("src0", 0, 9, 0x114)]),
    "VOP2": (0x00000000, (25, 6), 0x3E, [("vdst", 17, 8, 8), ("src0", 0, 9, 0x114), ("vsrc1", 9, 8, 40)]),
    "VOPC": (0x7C000000, (17, 8), 0x100, [("src0", 0, 9, 0x114), ("vsrc1", 9, 8, 40)]),
    "VOP3": (0xD0000000, (16, 10), 0x400, [("vdst", 0, 8, 8), ("src0", 32, 9, 0x114), ("src1", 41, 9, 0x128),
                                            ("src2", 50, 9, 0x13C)]),
    "VOP3P": (0xD3800000, (16, 7), 0x80, [("vdst", 0, 8, 8), ("src0", 32, 9, 0x114), ("src1", 41, 9, 0x128),
                                           ("src2", 50, 9, 0x13C)]),
    "DS": (0xD8000000, (17, 8), 0x100, [("offset0", 0, 8, 4), ("offset1", 8, 8, 8), ("addr", 32, 8, 20),
                                         ("data0", 40, 8, 40), ("data1", 48, 8, 60), ("vdst", 56, 8, 80)]),
    "MUBUF": (0xE0000000, (18, 7), 0x80, [("offset", 0, 12, 4), ("offen", 12, 1, 1), ("vaddr", 32, 8, 20),
                                           ("vdata", 40, 8, 80), ("srsrc", 48, 5, 5), ("soffset", 56, 8, 40),
                                           ("lds", 16, 1, 1)]),
    "MTBUF": (0xE8000000 | (4 << 19) | (4 << 23), (15, 4), 0x10,
              [("offset", 0, 12, 4), ("offen", 12, 1, 1), ("vaddr", 32, 8, 20), ("vdata", 40, 8, 80),
               ("srsrc", 48, 5, 5), ("soffset", 56, 8, 40)]),
    "FLAT": (0xDC000000, (18, 7), 0x80, [("addr", 32, 8, 20), ("data", 40, 8, 40), ("vdst", 56, 8, 80)]),
    "GLOBAL": (0xDC000000 | (2 << 14), (18, 7), 0x80, [("addr", 32, 8, 20), ("data", 40, 8, 40),
                                                       ("saddr", 48, 7, 30), ("vdst", 56, 8, 80)]),
    "SCRATCH": (0xDC000000 | (1 << 14), (18, 7), 0x80, [("addr", 32, 8, 20), ("data", 40, 8, 40),
                                                        ("saddr", 48, 7, 30), ("vdst", 56, 8, 80)]),
}
# Fields that must stay at their probe value (never zeroed) in a family.
ALWAYS = {}
# Fields whose "absent" value is not 0.
ABSENT = {("GLOBAL", "saddr"): 0x7F, ("SCRATCH", "saddr"): 0x7F}
LITERAL = 0x41200000


def word(fixed, opf, op, values):
    w = fixed | (op << opf[0])
    for (pos, width), v in values:
        w |= (v & ((1 << width) - 1)) << pos
    return w


def to_bytes(w, size):
    return w.to_bytes(size, "little")


def scan_family(fam):
    fixed, opf, count, fields = FAMILIES[fam]
    size = 8 if any(f[1] >= 32 for f in fields) or fam in ("VOP3", "VOP3P", "SMEM", "DS") else 4
    optional = [f for f in fields if f[0] not in ALWAYS.get(fam, set())]
    subsets = []
    for k in range(len(optional), -1, -1):
        for comb in itertools.combinations(optional, k):
            subsets.append(set(f[0] for f in comb))
    found = {}
    for lit in (False, True):
        for subset in subsets:
            pending = [op for op in range(count) if op not in found]
            if not pending:
                break
            words = []
            for op in pending:
                vals = []
                for name, pos, width, probe in fields:
                    if name in subset or name in ALWAYS.get(fam, set()):
                        vals.append(((pos, width), probe))
                    elif (fam, name) in ABSENT:
                        vals.append(((pos, width), ABSENT[(fam, name)]))
                w = word(fixed, opf, op, vals)
                b = to_bytes(w, size)
                if lit:
                    b += LITERAL.to_bytes(4, "little")
                words.append(b)
            for op, w, r in zip(pending, words, disassemble(words)):
                if r[0] != "ERROR" and r[1]:
                    found[op] = {"family": fam, "op": op, "text": r[0], "fields": sorted(subset),
                                 "literal": lit, "bytes": w.hex()}
    return [found[k] for k in sorted(found)]


def main():
    fams = sys.argv[1:] or list(FAMILIES)
    out = []
    for fam in fams:
        recs = scan_family(fam)
        print(f"{fam}: {len(recs)} opcodes", file=sys.stderr)
        out.extend(recs)
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
