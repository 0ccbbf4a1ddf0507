#!/usr/bin/env python3
"""Differential test of k100-as against llvm-mc (gfx906).

A generator of our own walks every instruction row of the ISA table (as
`k100-as --dump-table` reports it) and writes assembly lines with varied
operands: register range edges, special registers, inline integer and float
constants, literals, each modifier the form accepts and some it does not.
Every line goes through llvm-mc and k100-as:

  * both must accept it with identical bytes, or both must reject it;
  * every accepted line is decoded and printed by k100 (k100-as --disassemble)
    and that text must re-assemble with llvm-mc to the same bytes.

Usage: asm_differential.py K100_AS [--mc llvm-mc-14] [--min-lines 20000] [--show N]
Exit code 0 when there is no difference; the counts are printed either way.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "isa"))
from mc_oracle import assemble as mc_assemble, disassemble as mc_disassemble  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import oracle  # noqa: E402


# ----------------------------------------------------------------- k100-as runs

def k100_assemble(k100_as, lines, mcpu="gfx906"):
    src = []
    for i, l in enumerate(lines):
        src.append(f"__L{i}:")
        src.append(l)
    p = subprocess.run([k100_as, f"--mcpu={mcpu}", "--show-encoding", "--max-errors=0"], input="\n".join(src) + "\n",
                       capture_output=True, text=True)
    res = [None] * len(lines)
    for m in re.finditer(r"^<stdin>:(\d+):\d+: error: (.*)$", p.stderr, re.M):
        idx = (int(m.group(1)) - 2) // 2
        if 0 <= idx < len(lines) and res[idx] is None:
            res[idx] = ("ERROR", m.group(2))
    cur = None
    for out in p.stdout.splitlines():
        m = re.match(r"^__L(\d+):", out)
        if m:
            cur = int(m.group(1))
            continue
        m = re.search(r"encoding: \[([^\]]*)\]", out)
        if m and cur is not None and not isinstance(res[cur], tuple):
            vals = m.group(1).split(",")
            b = bytes(int(x, 16) if x != "A" else 0 for x in vals)
            res[cur] = (res[cur] or b"") + b
    return res


def k100_disassemble(k100_as, encodings, mcpu="gfx906"):
    """One printed line per encoding; None where k100 did not decode the group
    as exactly one instruction."""
    src = "".join("[" + ",".join("0x%02x" % x for x in e) + "]\n" for e in encodings)
    p = subprocess.run([k100_as, "--disassemble", "--show-encoding", f"--mcpu={mcpu}"], input=src,
                       capture_output=True, text=True)
    lines = []
    for l in p.stdout.splitlines():
        m = re.match(r"^\t(.*?)\s*; encoding: \[([^\]]*)\]$", l)
        if m:
            lines.append((m.group(1).strip(), len(m.group(2).split(","))))
    out, k = [], 0
    for e in encodings:
        got, texts = 0, []
        while got < len(e) and k < len(lines):
            texts.append(lines[k][0])
            got += lines[k][1]
            k += 1
        out.append(texts[0] if len(texts) == 1 and got == len(e) else None)
    return out


# ----------------------------------------------------------------- generator

def reg(f, n, w):
    return f"{f}{n}" if w == 1 else f"{f}[{n}:{n + w - 1}]"


SGPR_POOL = {
    1: ["s0", "s101", "s7", "vcc_lo", "vcc_hi", "m0", "exec_lo", "exec_hi", "ttmp11", "flat_scratch_hi", "xnack_mask_lo"],
    2: ["s[0:1]", "s[100:101]", "vcc", "exec", "ttmp[10:11]", "flat_scratch", "xnack_mask", "s[1:2]", "s[6:7]"],
    3: ["s[0:2]", "s[4:6]"],
    4: ["s[0:3]", "s[96:99]", "ttmp[4:7]", "s[2:5]", "s[8:11]"],
    8: ["s[8:15]", "s[92:99]", "s[4:11]"],
    16: ["s[16:31]", "s[84:99]", "s[8:23]"],
}
SPECIAL_SOURCES = ["src_shared_base", "src_scc", "src_vccz", "src_execz", "src_lds_direct", "src_private_limit",
                   "src_pops_exiting_wave_id", "scc"]
INLINE_POOL = ["0", "64", "-16", "-1", "0.5", "-4.0", "0.15915494", "1.0", "2.0", "-0.5", "0.15915494309189532"]
LITERAL_POOL = ["0x12345678", "1.5", "-17", "65", "0x3c00", "0x3f800000", "0xffff", "0x3ff0000000000000",
                "0x3800", "0xffffffff", "-0x8000", "0x10000", "0x3e22f983", "3.0e2"]


def vgpr_pool(w):
    hi = 256 - w
    return [reg("v", 0, w), reg("v", hi, w), reg("v", 17, w), reg("v", 130, w)]


def value_pool(spec, family, enc):
    t, acc, w = spec["type"], spec["accept"], spec["width"]
    pool = []
    if t in ("label",):
        return ["0", "-1", "0x7fff", "-32768", "12", "65535", "65536"]
    if t == "waitcnt":
        return ["vmcnt(0)", "lgkmcnt(3)", "vmcnt(1) expcnt(2) lgkmcnt(3)", "0", "0x3f70", "vmcnt(63)",
                "expcnt(7) & lgkmcnt(0)", "vmcnt(64)", "lgkmcnt(15)"]
    if t == "sendmsg":
        return ["sendmsg(MSG_INTERRUPT)", "sendmsg(MSG_GS, GS_OP_EMIT, 1)", "sendmsg(MSG_GS_DONE, GS_OP_NOP)",
                "sendmsg(MSG_SYSMSG, SYSMSG_OP_REG_RD)", "3", "sendmsg(2, 1, 0)", "sendmsg(MSG_SAVEWAVE)"]
    if t == "hwreg":
        return ["hwreg(HW_REG_MODE)", "hwreg(HW_REG_TRAPSTS, 2, 5)", "hwreg(52, 8, 3)", "0x1801",
                "hwreg(HW_REG_SH_MEM_BASES, 0, 32)", "hwreg(HW_REG_MODE, 31, 1)", "hwreg(64)"]
    if t == "gpridx":
        return ["gpr_idx(SRC0,DST)", "gpr_idx()", "gpr_idx(SRC1,SRC2)", "3", "gpr_idx(DST)"]
    if t == "uimm16":
        return ["0", "3", "0xffff", "65535", "-1", "0x10000"]
    if t == "simm16":
        return ["0x1234", "-2", "0xffff", "-32768", "0", "65536"]
    if t == "imm32":
        return ["0x12345678", "-1", "1.5", "0"]
    if t == "kimm":
        return ["0x41200000", "1.0", "-2", "0x4900", "0.5"]
    if t == "smem_offset":
        return ["0x0", "0x4", "0xfffff", "s2", "m0", "0x100000", "vcc_lo", "-4"]
    if t == "uimm7":
        return ["8", "127", "0", "128"]
    if "v" in acc:
        pool += vgpr_pool(w)
    if "s" in acc:
        pool += SGPR_POOL.get(w, [reg("s", 0, w)])
        if w == 1:
            pool += SPECIAL_SOURCES
    if "i" in acc:
        pool += INLINE_POOL
    if "l" in acc:
        pool += LITERAL_POOL
    if "o" in acc:
        pool.append("off")
    if not pool:
        pool = vgpr_pool(w) if "v" in acc else SGPR_POOL.get(w, ["s0"])
    # a few values of the wrong kind, so rejections are compared too
    if "v" not in acc:
        pool.append(reg("v", 3, w))
    if "s" not in acc and t == "-" and "v" in acc:
        pool.append(reg("s", 4, w))
    if "i" not in acc and t == "-":
        pool.append("1")
    return pool


def base_value(spec, family, field_index, enc):
    t, acc, w = spec["type"], spec["accept"], spec["width"]
    if spec["field"] == "vcc":
        return "vcc"
    if spec["field"] == "off":
        return "off"
    if t not in ("-", "b32", "f16", "i16", "f64", "b64", "v2f16", "v2i16"):
        return value_pool(spec, family, enc)[0]
    if family == "SCRATCH" and spec["field"] == "vaddr":
        return "off"
    if "v" in acc:
        base = {"vdst": 5, "src0": 1, "src1": 2, "src2": 3, "vsrc1": 2, "addr": 6, "data0": 7, "data1": 9,
                "vaddr": 10, "vdata": 12}.get(spec["field"], 20 + field_index)
        return reg("v", base, w)
    if "s" in acc:
        base = {1: 4, 2: 4, 3: 4, 4: 8, 8: 8, 16: 16}.get(w, 4)
        if spec["field"] == "srsrc":
            base = 8
        return reg("s", base + (0 if w > 1 else field_index), w)
    if "i" in acc:
        return "1"
    return "off"


def forms(row):
    """(mnemonic, operand specs, family, encoding) for every encodable form."""
    out = []
    fam = row["family"]
    flags = set(row["flags"])
    if "DECODE_ONLY" in flags:
        return out
    native_mn = row["mnemonic"]
    out.append((native_mn, row["operands"], fam, "native"))
    if fam in ("VOP1", "VOP2", "VOPC"):
        out.append((row["name"], row["operands"], fam, "auto"))
        if row["e64_mnemonic"]:
            out.append((row["e64_mnemonic"], row["e64_operands"], "VOP3", "e64"))
        if "SDWA" in flags:
            out.append((row["name"] + "_sdwa", row["operands"], fam, "sdwa"))
        if "DPP" in flags:
            out.append((row["name"] + "_dpp", row["operands"], fam, "dpp"))
    return out


def modifier_pool(row, ops, fam, enc):
    flags = set(row["flags"])
    srcs = [o for o in ops if o["field"] in ("src0", "src1", "src2", "vsrc1", "ssrc0", "ssrc1")]
    n = len(srcs)
    mods = []
    if fam == "VOP3" or enc == "e64":
        mods += ["clamp", "mul:2", "mul:4", "div:2", "clamp mul:2"]
        mods += ["op_sel:[" + ",".join(["1"] + ["0"] * n) + "]", "op_sel:[" + ",".join(["0"] * n + ["1"]) + "]",
                 "op_sel:[" + ",".join(["1"] * (n + 1)) + "]"]
    if fam == "VOP3P":
        z = lambda bits: "[" + ",".join(bits) + "]"
        mods += ["op_sel:" + z(["1"] + ["0"] * (n - 1)), "op_sel_hi:" + z(["0"] * n),
                 "op_sel_hi:" + z(["1"] * n), "neg_lo:" + z(["1"] * n), "neg_hi:" + z(["0"] * (n - 1) + ["1"]),
                 "clamp", "op_sel:" + z(["1"] * n) + " op_sel_hi:" + z(["0"] + ["1"] * (n - 1))]
    if enc == "sdwa":
        mods += ["dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:WORD_1 src1_sel:BYTE_3",
                 "dst_sel:WORD_0 dst_unused:UNUSED_PAD", "src0_sel:BYTE_2", "clamp", "mul:2", "div:2",
                 "dst_unused:UNUSED_PRESERVE dst_sel:WORD_1", "src1_sel:WORD_0"]
    if enc == "dpp":
        mods += ["quad_perm:[3,2,1,0]", "row_shl:1", "row_shr:15", "row_ror:7", "wave_shl:1", "wave_rol:1",
                 "wave_shr:1", "wave_ror:1", "row_mirror", "row_half_mirror", "row_bcast:15", "row_bcast:31",
                 "quad_perm:[0,1,2,3] row_mask:0x5 bank_mask:0xa", "row_shr:1 bound_ctrl:0",
                 "row_shl:3 row_mask:0x0 bank_mask:0x1 bound_ctrl:1", "row_shl:16"]
    if fam == "DS":
        if "SWIZZLE" in flags:
            mods += ["offset:swizzle(QUAD_PERM,0,1,2,3)", "offset:swizzle(BITMASK_PERM,\"01pip\")",
                     "offset:swizzle(SWAP,16)", "offset:swizzle(REVERSE,8)", "offset:swizzle(BROADCAST,4,1)",
                     "offset:0xffff", "offset:0x801f"]
        elif "DS2" in flags:
            mods += ["offset0:255 offset1:1", "offset1:17", "offset0:3", "offset:4", "offset0:256"]
        else:
            mods += ["offset:0", "offset:65535", "offset:65536", "offset:4", "offset0:1"]
        mods += ["gds"]
    if fam in ("MUBUF", "MTBUF"):
        mods += ["glc", "slc", "lds", "tfe", "glc slc", "offset:4096"]
    if fam == "MTBUF":
        mods += ["format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]", "format:[BUF_NUM_FORMAT_SINT]",
                 "format:[BUF_DATA_FORMAT_16_16]", "format:[BUF_DATA_FORMAT_8,BUF_NUM_FORMAT_UNORM]"]
    if fam in ("FLAT", "GLOBAL", "SCRATCH"):
        mods += ["offset:4095", "offset:4096", "glc", "slc", "glc slc", "offset:-1", "offset:-4096", "offset:-4097",
                 "lds", "nv"]
    if fam == "SMEM":
        mods += ["glc", "nv"]
    mods += ["clamp"] if fam not in ("VOP3", "VOP3P") and enc not in ("e64",) else []
    return mods


VALU_FAMILIES = ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3P")

# Source-modifier spellings: llvm's two syntaxes for neg and abs, both
# together, the integer sext, and combinations llvm refuses (sext with neg).
SOURCE_MODIFIERS = ["-{}", "|{}|", "-|{}|", "abs({})", "neg({})", "neg(|{}|)", "-abs({})", "neg(abs({}))",
                    "sext({})", "-sext({})", "sext(-{})", "neg(-{})", "|-{}|"]

# Values of a kind already represented in the modifier combinations (the
# plain value pool still uses them): keeps the combinations to one or two per
# register kind, every inline constant and the literals that fold differently.
WRAP_REDUNDANT = {"s7", "vcc_hi", "exec_hi", "xnack_mask_lo", "s[1:2]", "s[6:7]", "s[100:101]", "xnack_mask",
                  "src_private_limit", "src_pops_exiting_wave_id", "src_execz", "65", "0xffff", "0x10000", "3.0e2"}

MUBUF_ADDRESSING = ["off, {rsrc}, 0 offset:4095", "v1, {rsrc}, s4 offen", "v1, {rsrc}, 0 idxen",
                    "v[1:2], {rsrc}, -1 idxen offen", "v1, {rsrc}, 0", "off, {rsrc}, 0 offen",
                    "v1, {rsrc}, src_shared_base offen", "v[2:3], {rsrc}, s5 offen offset:12"]


def gen_lines(rows, rng, min_lines):
    lines = []
    for row in rows:
        for mn, ops, fam, enc in forms(row):
            base = [base_value(o, fam, i, enc) for i, o in enumerate(ops)]
            extra_mods = []
            if fam in ("MUBUF", "MTBUF"):
                extra_mods = ["offen"] if any(o["field"] == "vaddr" for o in ops) else []
                if fam == "MTBUF":
                    extra_mods.append("format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_UINT]")
            if enc == "dpp":
                extra_mods.append("quad_perm:[1,0,3,2]")

            def line(vals, mods=()):
                s = mn
                if vals:
                    s += " " + ", ".join(vals)
                m = list(extra_mods) + [x for x in mods if x]
                if m:
                    s += " " + " ".join(m)
                return s

            lines.append(line(base))
            for i, o in enumerate(ops):
                if o["field"] in ("vcc", "off"):
                    continue
                for v in value_pool(o, fam, enc):
                    vals = list(base)
                    vals[i] = v
                    lines.append(line(vals))
                if fam in VALU_FAMILIES:
                    if o["field"] in ("src0", "src1", "src2", "vsrc1"):
                        # every source modifier on every kind of value the
                        # operand takes (and the kinds it refuses)
                        for wrap in SOURCE_MODIFIERS:
                            for v in value_pool(o, fam, enc):
                                if v in WRAP_REDUNDANT or v.startswith(("v17", "v[17:", "v130", "v[130:")):
                                    continue
                                vals = list(base)
                                vals[i] = wrap.format(v)
                                lines.append(line(vals))
            for m in modifier_pool(row, ops, fam, enc):
                lines.append(line(base, [m]))
            if fam in ("MUBUF", "MTBUF") and any(o["field"] == "vaddr" for o in ops):
                vi = [i for i, o in enumerate(ops) if o["field"] == "vaddr"][0]
                prefix = ", ".join(base[:vi])
                rsrc = base[vi + 1] if vi + 1 < len(base) else "s[8:11]"
                for a in MUBUF_ADDRESSING:
                    s = mn + " " + (prefix + ", " if prefix else "") + a.format(rsrc=rsrc)
                    if fam == "MTBUF":
                        s += " format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_UINT]"
                    lines.append(s)
            if "ATOMIC_RTN" in row["flags"] and fam in ("FLAT", "GLOBAL", "SCRATCH"):
                data = [o for o in ops if o["field"] == "vdata"][0]
                w = data["width"] // (2 if "cmpswap" in row["name"] else 1)
                lines.append(mn + " " + ", ".join([reg("v", 40, w)] + base) + " glc")
                lines.append(mn + " " + ", ".join([reg("v", 40, w)] + base))
            if fam == "GLOBAL":
                vals = list(base)
                for i, o in enumerate(ops):
                    if o["field"] == "vaddr":
                        vals[i] = "v[10:11]"
                    if o["field"] == "saddr":
                        vals[i] = "off"
                lines.append(line(vals))
                lines.append(line(vals, ["offset:-8"]))
            if fam == "SCRATCH":
                vals = list(base)
                for i, o in enumerate(ops):
                    if o["field"] == "vaddr":
                        vals[i] = "v10"
                    if o["field"] == "saddr":
                        vals[i] = "off"
                lines.append(line(vals))
                lines.append(line(vals, ["offset:-16"]))
            # random combinations of two or three changes
            for _ in range(4):
                vals = list(base)
                for i, o in enumerate(ops):
                    if o["field"] in ("vcc", "off") or rng.random() < 0.5:
                        continue
                    vals[i] = rng.choice(value_pool(o, fam, enc))
                mp = modifier_pool(row, ops, fam, enc)
                mods = [rng.choice(mp)] if mp and rng.random() < 0.5 else []
                lines.append(line(vals, mods))
    # de-duplicate, keep order
    seen, out = set(), []
    for l in lines:
        if l not in seen:
            seen.add(l)
            out.append(l)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("k100_as")
    ap.add_argument("--mc", default=None)
    ap.add_argument("--min-lines", type=int, default=20000)
    ap.add_argument("--show", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="restrict to rows whose name contains this")
    ap.add_argument("--examples", type=int, default=0, help="example lines per difference category")
    ap.add_argument("--dump", default="", help="write the generated lines to this file")
    args = ap.parse_args()
    mc = args.mc or shutil.which("llvm-mc-14") or shutil.which("llvm-mc")
    if not mc:
        return oracle.missing("llvm-mc-14 not installed (apt-get install llvm-14)")
    table = subprocess.run([args.k100_as, "--dump-table"], capture_output=True, text=True, check=True).stdout
    rows = [json.loads(l) for l in table.splitlines()]
    if args.only:
        rows = [r for r in rows if args.only in r["name"]]
    rng = random.Random(args.seed)
    lines = gen_lines(rows, rng, args.min_lines)
    if args.dump:
        with open(args.dump, "w") as f:
            f.write("\n".join(lines) + "\n")
    ref = mc_assemble(lines, mc=mc)
    ours = k100_assemble(args.k100_as, lines)
    same_bytes = both_reject = 0
    diffs = []
    for l, r, o in zip(lines, ref, ours):
        r_ok, o_ok = isinstance(r, bytes), isinstance(o, bytes)
        if r is None:  # llvm-mc printed nothing for the line (should not happen)
            r = ("ERROR", "no output")
            r_ok = False
        if o is None:
            o = ("ERROR", "no output")
            o_ok = False
        if r_ok and o_ok and r == o:
            same_bytes += 1
        elif not r_ok and not o_ok:
            both_reject += 1
        else:
            diffs.append((l, r, o))
    # round trip: our decode+print of the accepted encodings, re-assembled by llvm-mc
    accepted = [(l, o) for l, r, o in zip(lines, ref, ours) if isinstance(o, bytes) and r == o]
    texts = k100_disassemble(args.k100_as, [o for _, o in accepted])
    rt_fail = []
    back = mc_assemble([t if t is not None else "s_nop 0x1234567" for t in texts], mc=mc)
    suspects = []
    for (l, o), t, b in zip(accepted, texts, back):
        if t is None:
            rt_fail.append((l, "<not decoded as one instruction>", o))
        elif b != o:
            suspects.append((l, o, t, b))
    # An encoding llvm itself cannot print in a form it reads back (a 16-bit
    # integer literal whose high half is set prints as its low half) counts
    # only when our text differs from llvm's own.
    llvm_texts = mc_disassemble([o for _, o, _, _ in suspects], mc=mc) if suspects else []
    llvm_also = 0
    for (l, o, t, b), lt in zip(suspects, llvm_texts):
        if lt[0] != "ERROR" and " ".join(lt[0].split()) == " ".join(t.split()):
            llvm_also += 1
        else:
            rt_fail.append((l, t, b))
    print(f"instruction rows: {len(rows)}, generated lines: {len(lines)}")
    print(f"identical encodings: {same_bytes}, rejected by both: {both_reject}, differences: {len(diffs)}")
    print(f"round trip (k100 decode+print -> llvm-mc): {len(accepted) - len(rt_fail) - llvm_also} of {len(accepted)} "
          f"identical, {llvm_also} printed exactly as llvm prints them (llvm does not read its own text back), "
          f"{len(rt_fail)} differences")
    if diffs:
        cats = {}
        for l, r, o in diffs:
            key = ("llvm ok" if isinstance(r, bytes) else "llvm rejects") + " / " + \
                  ("k100 bytes differ" if isinstance(o, bytes) and isinstance(r, bytes) else
                   ("k100 ok" if isinstance(o, bytes) else "k100: " + o[1][:60]))
            cats.setdefault(key, []).append(l)
        for k, v in sorted(cats.items(), key=lambda kv: -len(kv[1]))[:25]:
            print(f"  {len(v):6d}  {k}   e.g. {v[0]}")
            if args.examples:
                step = max(1, len(v) // args.examples)
                for e in v[::step][:args.examples]:
                    print(f"              {e}")
    for l, r, o in diffs[:args.show]:
        rs = r.hex() if isinstance(r, bytes) else r[1]
        os_ = o.hex() if isinstance(o, bytes) else o[1]
        print(f"DIFF  {l}\n      llvm-mc: {rs}\n      k100-as: {os_}")
    for l, t, b in rt_fail[:args.show]:
        bs = b.hex() if isinstance(b, bytes) else b
        print(f"ROUNDTRIP  {l}\n      printed: {t}\n      llvm-mc: {bs}")
    ok = not diffs and not rt_fail and len(lines) >= args.min_lines
    if len(lines) < args.min_lines:
        print(f"FAIL: only {len(lines)} lines generated (need {args.min_lines})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
