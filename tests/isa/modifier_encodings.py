"""Instruction words with every source modifier on every kind of source value.

For each VALU form that has source-modifier bits (VOP3 and the e64 forms of
VOP1/VOP2/VOPC, VOP3P, SDWA, DPP), every source slot is given each kind of
value the slot takes (VGPRs at the range edges, SGPRs, special registers, the
src_* sources, every inline integer edge, every inline float, the literal
marker; a slot's accepted kinds are those of the ISA table, as for the
assembler) under each combination of that encoding's modifier bits
(neg/abs in VOP3 and DPP, neg_lo/neg_hi in VOP3P, sext/neg/abs in SDWA).
The other slots hold plain VGPRs. Each word is labelled with its encoding
(VOP3, VOP3P, "SDWA VOP2", "DPP VOP1", ...). Used by disasm_differential.py:
both disassemblers read the same words, and every label must have words
both decode.
"""

# Source codes, one or two per kind of value: VGPRs (first, last), SGPRs
# (first, last), special registers, trap temporaries, inline integers (0, 1,
# 64, -1, -16), every inline float, the src_* sources, scc/vccz/execz,
# lds_direct, and 255 (a literal follows; VOP3 on gfx9 has none).
SOURCE_CODES = ([256 + 1, 511, 0, 101, 102, 106, 107, 124, 126, 108, 123, 128, 129, 192, 193, 208] +
                list(range(240, 249)) + [235, 236, 237, 238, 239, 251, 252, 253, 254, 255])
# The same kinds for a 64-bit source, and the misaligned pairs (an odd SGPR
# or trap temporary: llvm drops the low bit; an odd special register, which
# has no pair).
SOURCE_CODES_64 = ([256 + 1, 510, 0, 100, 102, 104, 106, 126, 108, 122, 128, 129, 192, 193, 208] +
                   list(range(240, 249)) + [235, 236, 237, 238, 239, 251, 252, 253, 254, 255] +
                   [1, 101, 109, 123, 103, 107, 124, 127])
LITERAL = 0x3F800000  # 1.0 as f32; a plain integer pattern for every other type


def _accepts(code, accept):
    if 256 <= code <= 511:
        return "v" in accept
    if code <= 127 or 235 <= code <= 239 or 251 <= code <= 254:
        return "s" in accept
    if code == 255:
        return "l" in accept or "i" in accept  # the literal marker: both refuse it in VOP3
    return "i" in accept


def _codes(spec):
    pool = SOURCE_CODES_64 if spec["width"] == 2 else SOURCE_CODES
    return [c for c in pool if _accepts(c, spec["accept"])]


def _source_slots(ops):
    return [i for i, o in enumerate(ops) if o["field"] in ("src0", "src1", "src2", "vsrc1")]


def _vop3_forms(rows):
    """(row, VOP3 opcode, operand list) for every VOP3-encoded form."""
    out = []
    for r in rows:
        if "DECODE_ONLY" in r["flags"]:
            continue
        if r["family"] == "VOP3":
            out.append((r, r["opcode"], r["operands"]))
        elif r["family"] in ("VOP1", "VOP2", "VOPC") and r["e64_opcode"] >= 0:
            out.append((r, r["e64_opcode"], r["e64_operands"]))
    return out


def _le(*dwords):
    return b"".join((d & 0xFFFFFFFF).to_bytes(4, "little") for d in dwords)


def vop3_words(rows):
    out = []
    for r, op, ops in _vop3_forms(rows):
        slots = _source_slots(ops)
        # unused source fields stay zero (llvm refuses other values there)
        base = [[256 + 10, 256 + 20, 256 + 30][i] if i < len(slots) else 0 for i in range(3)]
        vdst = 4 if ops and ops[0]["accept"] == "s" else 5
        # VOP3B: bits 8..14 hold the carry-out SGPR pair, not abs
        vop3b = any(o["field"] == "sdst" for o in ops)
        combos = ((0, 0), (1, 0)) if vop3b else ((0, 0), (1, 0), (0, 1), (1, 1))
        for k in range(len(slots)):
            for code in _codes(ops[slots[k]]):
                for neg, abs_ in combos:
                    src = list(base)
                    src[k] = code
                    high = 4 if vop3b else (abs_ << k)
                    w0 = 0xD0000000 | (op & 0x3FF) << 16 | high << 8 | vdst
                    w1 = src[0] | src[1] << 9 | src[2] << 18 | (neg << k) << 29
                    words = _le(w0, w1) + (_le(LITERAL) if code == 255 else b"")
                    out.append(("VOP3", words))
    return out


def vop3p_words(rows):
    out = []
    for r in rows:
        if r["family"] != "VOP3P" or "DECODE_ONLY" in r["flags"]:
            continue
        slots = _source_slots(r["operands"])
        mix = r["name"].startswith("v_fma_mix")
        for k in range(len(slots)):
            for code in _codes(r["operands"][slots[k]]):
                for neg, neg_hi in ((0, 0), (1, 0), (0, 1), (1, 1)):
                    src = [[256 + 10, 256 + 20, 256 + 30][i] if i < len(slots) else 0 for i in range(3)]
                    src[k] = code
                    op_sel_hi = 0 if mix else 0b111
                    w0 = (0xD3800000 | (r["opcode"] & 0x7F) << 16 | (neg_hi << k) << 8 |
                          (op_sel_hi >> 2 & 1) << 14 | 5)
                    w1 = src[0] | src[1] << 9 | src[2] << 18 | (op_sel_hi & 3) << 27 | (neg << k) << 29
                    words = _le(w0, w1) + (_le(LITERAL) if code == 255 else b"")
                    out.append(("VOP3P", words))
    return out


# SDWA and DPP take 8-bit source codes: a VGPR number, or (SDWA, with the
# s bit) an SGPR / constant code.
SDWA_CODES = [("v", 1), ("v", 255), ("s", 0), ("s", 101), ("s", 106), ("s", 124), ("s", 126), ("s", 108),
              ("s", 128), ("s", 192), ("s", 193), ("s", 208)] + [("s", c) for c in range(240, 249)] + \
             [("s", 235), ("s", 239), ("s", 251), ("s", 253), ("s", 254)]


def _sdwa_dpp_first_word(r, marker):
    fam, op = r["family"], r["opcode"]
    if fam == "VOP1":
        return 0x7E000000 | 5 << 17 | op << 9 | marker
    if fam == "VOP2":
        return op << 25 | 5 << 17 | 20 << 9 | marker
    return 0x7C000000 | op << 17 | 20 << 9 | marker


def sdwa_words(rows):
    out = []
    for r in rows:
        if "SDWA" not in r["flags"] or "DECODE_ONLY" in r["flags"]:
            continue
        nsrc = len(_source_slots(r["operands"]))
        vopc = r["family"] == "VOPC"
        # a one-source (VOP1) form has no src1 select: llvm refuses a word with one
        src1_sel = 0 if r["family"] == "VOP1" else 6 << 24
        for k in range(nsrc):
            for kind, code in SDWA_CODES:
                for mods in range(8):  # sext, neg, abs
                    sext, neg, abs_ = mods & 1, mods >> 1 & 1, mods >> 2 & 1
                    w0 = _sdwa_dpp_first_word(r, 0xF9)
                    src0, s0, s1 = 10, 0, 0
                    if k == 0:
                        src0, s0 = code, int(kind == "s")
                    else:
                        w0 = (w0 & ~(0xFF << 9)) | code << 9
                        s1 = int(kind == "s")
                    dst = 0 if vopc else (6 << 8 | 2 << 11)  # DWORD, UNUSED_PRESERVE
                    w1 = src0 | dst | 6 << 16 | src1_sel | s0 << 23 | s1 << 31
                    w1 |= (sext << 19 | neg << 20 | abs_ << 21) << (8 * k)
                    out.append(("SDWA " + r["family"], _le(w0, w1)))
    return out


def dpp_words(rows):
    out = []
    for r in rows:
        if "DPP" not in r["flags"] or "DECODE_ONLY" in r["flags"]:
            continue
        nsrc = len(_source_slots(r["operands"]))
        for k in range(nsrc):
            for vgpr in (1, 255):
                for mods in range(16):  # neg0, abs0, neg1, abs1
                    w0 = _sdwa_dpp_first_word(r, 0xFA)
                    src0 = vgpr if k == 0 else 10
                    if k == 1:
                        w0 = (w0 & ~(0xFF << 9)) | vgpr << 9
                    w1 = src0 | 0xE4 << 8 | mods << 20 | 0xF << 24 | 0xF << 28
                    out.append(("DPP " + r["family"], _le(w0, w1)))
    return out


def all_words(rows):
    return vop3_words(rows) + vop3p_words(rows) + sdwa_words(rows) + dpp_words(rows)
