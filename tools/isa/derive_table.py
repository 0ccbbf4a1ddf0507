#!/usr/bin/env python3
"""Derives k100lc's GFX9 instruction table (include/k100/isa/gfx9_table.inc) from llvm-mc.

The product never runs this script: its output is committed. It needs
llvm-mc-14 (Debian's llvm-14) and takes about a minute.

  python3 tools/isa/derive_table.py -o include/k100/isa/gfx9_table.inc

Steps:
  1. derive_scan.py enumerates every opcode of every encoding family through
     llvm-mc's disassembler with probe operand values (v20, v40, ...).
  2. The printed operand text is mapped back to encoding fields by those probe
     values: which fields an instruction uses, in which printed order, their
     register widths and fixed tokens such as `vcc` or `off`.
  3. llvm-mc's assembler is then asked, operand by operand and modifier by
     modifier, what it accepts: VGPR / SGPR / inline constant / literal per
     source, the constant type (how literals fold into inline constants),
     neg/abs/sext/clamp/omod/op_sel, SDWA and DPP forms, glc on atomics, lds.
  4. One row per instruction is written, with the native form and, for
     VOP1/VOP2/VOPC, its VOP3 (e64) form.

Instructions that only exist for graphics (MIMG, EXP, VINTRP and the VOP3
interpolation ops) are left out.
"""
import argparse
import re
import sys

from derive_scan import FAMILIES, scan_family
from mc_oracle import assemble

GRAPHICS_VOP3 = range(0x270, 0x280)  # v_interp_*: graphics-only, optional

# ---------------------------------------------------------------------------
# Text helpers

REG_RE = re.compile(r"^(v|s|ttmp)(?:(\d+)|\[(\d+):(\d+)\])$")


def split_operands(text):
    """'op a, b, c mod1 mod2' -> (mnemonic, [operands], [modifiers])."""
    text = text.strip()
    if " " not in text:
        return text, [], []
    mnem, rest = text.split(" ", 1)
    parts, depth, cur = [], 0, ""
    for ch in rest:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    # modifiers trail the last operand, separated by spaces (outside brackets)
    last = parts[-1]
    toks, depth, cur = [], 0, ""
    for ch in last:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == " " and depth == 0:
            toks.append(cur)
            cur = ""
        else:
            cur += ch
    toks.append(cur)
    toks = [t for t in toks if t]
    parts[-1] = toks[0]
    mods = toks[1:]
    if mnem == "s_waitcnt":  # its one operand is a space separated list
        return mnem, [" ".join([parts[0]] + mods)], []
    if len(parts) == 1 and (":" in parts[0] and not parts[0].startswith("hwreg")
                            and not parts[0].startswith("v[") and not parts[0].startswith("s[")):
        return mnem, [], toks
    return mnem, parts, mods


def parse_reg(tok):
    m = REG_RE.match(tok)
    if not m:
        return None
    file = m.group(1)
    if m.group(2) is not None:
        lo = hi = int(m.group(2))
    else:
        lo, hi = int(m.group(3)), int(m.group(4))
    return file, lo, hi - lo + 1


# ---------------------------------------------------------------------------
# Step 2: operand mapping

# Probe value -> (field, file) per family, as printed.
PROBE_NAMES = {
    "SOP2": {("s", 8): "sdst", ("s", 20): "ssrc0", ("s", 40): "ssrc1"},
    "SOP1": {("s", 8): "sdst", ("s", 20): "ssrc0"},
    "SOPK": {("s", 8): "sdst"},
    "SOPC": {("s", 20): "ssrc0", ("s", 40): "ssrc1"},
    "SMEM": {("s", 8): "sdata", ("s", 20): "sbase"},
    "VOP1": {("v", 8): "vdst", ("s", 8): "vdst", ("v", 20): "src0"},
    "VOP2": {("v", 8): "vdst", ("v", 20): "src0", ("v", 40): "vsrc1"},
    "VOPC": {("v", 20): "src0", ("v", 40): "vsrc1"},
    "VOP3": {("v", 8): "vdst", ("s", 8): "vdst", ("v", 20): "src0", ("v", 40): "src1", ("v", 60): "src2",
             ("s", 0): "sdst"},
    "VOP3P": {("v", 8): "vdst", ("v", 20): "src0", ("v", 40): "src1", ("v", 60): "src2"},
    "DS": {("v", 20): "addr", ("v", 40): "data0", ("v", 60): "data1", ("v", 80): "vdst"},
    "MUBUF": {("v", 20): "vaddr", ("v", 80): "vdata", ("s", 20): "srsrc", ("s", 40): "soffset"},
    "MTBUF": {("v", 20): "vaddr", ("v", 80): "vdata", ("s", 20): "srsrc", ("s", 40): "soffset"},
    "FLAT": {("v", 20): "vaddr", ("v", 40): "vdata", ("v", 80): "vdst"},
    "GLOBAL": {("v", 20): "vaddr", ("v", 40): "vdata", ("v", 80): "vdst", ("s", 30): "saddr"},
    "SCRATCH": {("v", 20): "vaddr", ("v", 40): "vdata", ("v", 80): "vdst", ("s", 30): "saddr"},
}

SOPP_KIND = {
    "s_waitcnt": "waitcnt", "s_sendmsg": "sendmsg", "s_sendmsghalt": "sendmsg",
    "s_set_gpr_idx_mode": "gpridx",
}


def sopp_kind(mnem):
    if mnem in SOPP_KIND:
        return SOPP_KIND[mnem]
    if mnem == "s_branch" or mnem.startswith("s_cbranch_"):
        return "label"
    return "uimm16"


class Operand:
    """One printed operand: field it lives in, width in dwords, register file
    printed by the probe (v/s) or a fixed token, plus what the assembler allows."""

    def __init__(self, field, width=1, file=None, fixed=None):
        self.field = field
        self.width = width
        self.file = file
        self.fixed = fixed
        self.type = "-"
        self.accept = ""
        self.mods = ""

    def spec(self):
        accept = self.accept or (self.file if self.file in ("v", "s") else "-")
        kind = self.type
        if kind == "-" and self.file not in ("v", "s", "c", None):
            kind = self.file  # immediate syntax: label, waitcnt, hwreg, ...
        return f"{self.field}:{self.width}:{kind}:{accept}:{self.mods or '-'}"


def map_operands(fam, mnem, ops):
    """Probe text operands -> list of Operand."""
    out = []
    names = PROBE_NAMES.get(fam, {})
    for i, tok in enumerate(ops):
        r = parse_reg(tok)
        if fam == "SOPP":
            out.append(Operand("simm16", file=sopp_kind(mnem)))
            continue
        if fam == "SOPK" and not r:
            if tok.startswith("hwreg"):
                out.append(Operand("simm16", file="hwreg"))
            elif tok == "0x41200000":
                out.append(Operand("literal", file="imm32"))
            elif tok == "4660":
                out.append(Operand("simm16", file="label"))
            else:
                out.append(Operand("simm16", file="simm16"))
            continue
        if fam == "SOPC" and not r:
            out.append(Operand("ssrc1", file="gpridx"))
            continue
        if fam == "SMEM" and not r:
            if tok == "0x40":
                out.append(Operand("offset", file="smem_offset"))
            else:
                out.append(Operand("sdata", file="uimm7"))
            continue
        if fam in ("VOP2",) and not r and tok.startswith("0x41200000"):
            out.append(Operand("literal", file="kimm"))
            continue
        if tok in ("vcc", "off"):
            out.append(Operand(tok, fixed=tok))
            continue
        if r is None:
            raise ValueError(f"{fam} {mnem}: cannot map operand {tok!r} in {ops}")
        file, lo, width = r
        field = names.get((file, lo))
        if field is None:
            raise ValueError(f"{fam} {mnem}: unknown probe register {tok!r}")
        out.append(Operand(field, width, file))
    return out


# ---------------------------------------------------------------------------
# Step 3: assembler probes

# Values tried for constant operands. The outcome per probe (inline constant,
# literal, or rejected) tells the operand's constant type apart; reference
# instructions of known types give the outcome vector of each type.
CONST_PROBES = ["0.5", "0x3800", "0x3f000000", "1.5", "0x3118", "-1", "0xffff", "0x12345678",
                "0x3ff0000000000000", "0x10000", "-17", "65", "0xffffffff", "1.0", "-16",
                "0x3e22f983", "-0x8000"]

TYPE_REFERENCES = [  # (type, template with {} for the probed operand, same with a register)
    ("b32", "v_add_f32 v0, {}, v1", "v_add_f32 v0, v3, v1"),
    ("b32", "v_add_f32_e64 v0, {}, v1", "v_add_f32_e64 v0, v3, v1"),
    ("f16", "v_add_f16_e64 v0, {}, v1", "v_add_f16_e64 v0, v3, v1"),
    ("i16", "v_add_u16_e64 v0, {}, v1", "v_add_u16_e64 v0, v3, v1"),
    ("b64", "v_lshlrev_b64 v[0:1], v2, {}", "v_lshlrev_b64 v[0:1], v2, v[4:5]"),
    ("f64", "v_add_f64 v[0:1], {}, v[2:3]", "v_add_f64 v[0:1], v[4:5], v[2:3]"),
    ("f16", "v_add_f16 v0, {}, v1", "v_add_f16 v0, v3, v1"),
    ("i16", "v_add_u16 v0, {}, v1", "v_add_u16 v0, v3, v1"),
    ("f64", "v_rcp_f64 v[0:1], {}", "v_rcp_f64 v[0:1], v[4:5]"),
    ("b64", "v_cmp_eq_u64 vcc, {}, v[2:3]", "v_cmp_eq_u64 vcc, v[4:5], v[2:3]"),
    ("v2f16", "v_pk_add_f16 v0, {}, v1", "v_pk_add_f16 v0, v3, v1"),
    ("v2i16", "v_pk_add_u16 v0, {}, v1", "v_pk_add_u16 v0, v3, v1"),
]


def outcome(r, base_len):
    if isinstance(r, tuple):
        lit = ("literal operands are not supported" in r[1] or "only one literal operand" in r[1])
        return "L" if lit else "E"
    return "I" if len(r) == base_len else "L"


def reference_vectors():
    lines = []
    for _, t, b in TYPE_REFERENCES:
        lines += [t.format(p) for p in CONST_PROBES] + [b]
    res = assemble(lines)
    refs, n = {}, len(CONST_PROBES) + 1
    for i, (name, _, _) in enumerate(TYPE_REFERENCES):
        chunk = res[i * n:(i + 1) * n]
        base = len(chunk[-1])
        refs["".join(outcome(x, base) for x in chunk[:-1])] = name
    return refs


def reg_text(file, base, width):
    if width == 1:
        return f"{file}{base}"
    return f"{file}[{base}:{base + width - 1}]"


# Register choices that are always legal for each printed operand.
BASE_REG = {"vdst": 8, "src0": 20, "src1": 40, "src2": 60, "vsrc1": 40, "sdst": 12, "ssrc0": 20,
            "ssrc1": 40, "sdata": 8, "sbase": 20, "addr": 20, "data0": 40, "data1": 60,
            "vaddr": 20, "vdata": 40, "srsrc": 20, "soffset": 40, "saddr": 30}
IMM_DEFAULT = {"waitcnt": "0", "sendmsg": "sendmsg(MSG_INTERRUPT)", "gpridx": "gpr_idx(SRC0)",
               "label": "3", "uimm16": "3", "simm16": "0x1234", "hwreg": "hwreg(HW_REG_MODE)",
               "imm32": "0x12345678", "smem_offset": "0x40", "uimm7": "8", "kimm": "0x41200000"}


class Form:
    """One encodable form of an instruction: native, e64 (VOP3) or VOP3-only."""

    def __init__(self, fam, op, mnem, ops, printed_mods):
        self.fam = fam
        self.op = op
        self.mnem = mnem
        self.ops = ops
        self.printed_mods = printed_mods
        self.mods = set()   # instruction-level modifiers llvm-mc accepts

    def value(self, o):
        if o.fixed:
            return o.fixed
        if self.fam == "SCRATCH" and o.field == "vaddr":
            return "off"
        if o.file == "c":
            return "4"
        if o.file in ("v", "s"):
            base = BASE_REG[o.field]
            if o.field in ("vdst", "vdata") and self.fam in ("FLAT", "GLOBAL", "SCRATCH", "DS", "MUBUF", "MTBUF"):
                base = 80
            if self.fam == "VOP3" and o.field == "sdst":
                base = 12
            return reg_text(o.file, base, o.width)
        if o.file == "kimm" and self.mnem.endswith("f16"):
            return "0x4900"
        return IMM_DEFAULT[o.file]

    def values(self):
        return [self.value(o) for o in self.ops]

    def text(self, values=None, mods=None, mnem=None):
        """Assembly text; mods default to the modifiers the probe printed
        (offen, format:[...], op_sel_hi:[...])."""
        values = self.values() if values is None else values
        s = mnem or self.mnem
        if values:
            s += " " + ", ".join(values)
        mods = sorted(dict.fromkeys(self.printed_mods if mods is None else mods), key=modifier_rank)
        if "_lds_" in self.mnem and "lds" in mods:  # its lds is part of the syntax, right after offset
            mods.remove("lds")
            mods.insert(sum(1 for m in mods if modifier_rank(m) <= modifier_rank("offset1")), "lds")
        if mods:
            s += " " + " ".join(mods)
        return s


SOURCE_FIELDS = ("src0", "src1", "src2", "ssrc0", "ssrc1", "vsrc1", "soffset")

# llvm-mc reads modifiers in one fixed order (glc and slc in either order)
MODIFIER_ORDER = ["format", "dfmt", "nfmt", "idxen", "offen", "offset", "offset0", "offset1", "op_sel", "op_sel_hi",
                  "neg_lo", "neg_hi", "glc", "slc", "lds", "tfe", "gds", "clamp", "mul", "div", "dst_sel",
                  "dst_unused", "src0_sel", "src1_sel", "quad_perm", "row_mask", "bank_mask", "bound_ctrl"]


def modifier_rank(m):
    name = m.split(":")[0]
    return MODIFIER_ORDER.index(name) if name in MODIFIER_ORDER else MODIFIER_ORDER.index("quad_perm")


class Probe:
    """Batches assembler queries: q(line) returns a handle, run() answers all."""

    def __init__(self):
        self.lines = []
        self.res = None

    def q(self, line):
        self.lines.append(line)
        return len(self.lines) - 1

    def run(self):
        self.res = []
        for i in range(0, len(self.lines), 20000):
            self.res.extend(assemble(self.lines[i:i + 20000]))
        self.lines = []

    def __getitem__(self, h):
        return self.res[h]

    def ok(self, h):
        return isinstance(self.res[h], bytes)


def fix_base_texts(forms):
    """Some sources only take SGPRs (v_readlane's lane select, v_cndmask_b32_e64's
    mask): find the register files that make each form's probe text legal."""
    import itertools
    p = Probe()
    hs = [p.q(f.text()) for f in forms]
    p.run()
    todo = [f for f, h in zip(forms, hs) if not p.ok(h)]
    plans = []
    for f in todo:
        srcs = [i for i, o in enumerate(f.ops) if o.field in SOURCE_FIELDS and o.file == "v"]
        cands = []
        for choice in itertools.product("vsc", repeat=len(srcs)):
            if all(c == "v" for c in choice):
                continue
            saved = [f.ops[i].file for i in srcs]
            for i, c in zip(srcs, choice):
                f.ops[i].file = c
            cands.append((choice, p.q(f.text())))
            for i, fl in zip(srcs, saved):
                f.ops[i].file = fl
        cands.sort(key=lambda c: sum(x != "v" for x in c[0]) + 0.5 * sum(x == "c" for x in c[0]))
        plans.append((f, srcs, cands))
    p.run()
    for f, srcs, cands in plans:
        for choice, h in cands:
            if p.ok(h):
                for i, c in zip(srcs, choice):
                    f.ops[i].file = c
                break
        else:
            print(f"warning: no legal probe text for {f.text()}", file=sys.stderr)


def classify_sources(forms):
    """Fills accept / type / mods of every source operand of every form."""
    fix_base_texts(forms)
    refs = reference_vectors()
    p = Probe()
    plan = []
    for f in forms:
        vals = f.values()
        base_h = p.q(f.text(vals))
        for i, o in enumerate(f.ops):
            if o.field not in SOURCE_FIELDS or o.fixed or o.file not in ("v", "s", "c"):
                continue
            h = {}
            def alt(v):
                vv = list(vals)
                vv[i] = v
                return p.q(f.text(vv))
            h["v"] = alt(reg_text("v", 30, o.width))
            h["s"] = alt(reg_text("s", 30, o.width))
            h["c"] = [alt(c) for c in CONST_PROBES]
            h["-"] = alt("-" + vals[i])
            h["|"] = alt("|" + vals[i] + "|")
            h["sext"] = alt("sext(" + vals[i] + ")")
            plan.append((f, i, o, base_h, h))
    p.run()
    for f, i, o, base_h, h in plan:
        if not p.ok(base_h):
            print(f"warning: base text rejected: {f.text()} -> {p[base_h]}", file=sys.stderr)
            continue
        base_len = len(p[base_h])
        acc = ""
        if p.ok(h["v"]):
            acc += "v"
        # an SGPR may be refused only because of the constant bus limit: the
        # class still takes SGPRs, the bus check is a separate rule
        if p.ok(h["s"]) or "constant bus" in str(p[h["s"]]):
            acc += "s"
        vec = "".join(outcome(p[x], base_len) for x in h["c"])
        if "I" in vec:
            acc += "i"
            if any(p.ok(x) and len(p[x]) > base_len for x in h["c"]):
                acc += "l"
            t = refs.get(vec)
            if t is None:  # an operand that takes no literal at all (MUBUF soffset)
                t = {k.replace("L", "E"): n for k, n in refs.items()}.get(vec)
            if t is None:
                print(f"warning: {f.mnem} {o.field}: constant behaviour {vec} matches no type",
                      file=sys.stderr)
                t = "b64" if o.width == 2 else "b32"
            o.type = t
        o.accept = acc or o.file
        mods = ""
        if o.file == "c":  # probed as a constant: no register modifiers to learn
            h = dict(h, **{"-": None, "|": None, "sext": None})
            p.res.append(("ERROR", "skipped"))
            h = {k: (len(p.res) - 1 if v is None else v) for k, v in h.items()}
        if p.ok(h["-"]):
            mods += "n"
        if p.ok(h["|"]):
            mods += "a"
        if p.ok(h["sext"]):
            mods += "x"
        o.mods = mods


# ---------------------------------------------------------------------------
# Step 4: rows

VOPX = ("VOP1", "VOP2", "VOPC")


class Row:
    def __init__(self, ident, native, e64=None):
        self.ident = ident
        self.native = native
        self.e64 = e64
        self.flags = set()


def normalise_flat_addressing(f):
    """GLOBAL and SCRATCH take either a VGPR address or `off`, and an SGPR base
    or `off`: record one operand list (vaddr, saddr) with both choices."""
    if f.fam not in ("GLOBAL", "SCRATCH"):
        return
    for o in f.ops:
        if o.field == "off":  # scratch probe printed 'off' for the unused vaddr
            o.field, o.fixed, o.file, o.width = "vaddr", None, "v", 1
        if o.field == "vaddr":
            o.accept = "vo" if f.fam == "SCRATCH" else "v"
        if o.field == "saddr":
            o.accept = "so"


def make_forms(recs):
    forms = []
    for r in recs:
        fam, op = r["family"], r["op"]
        if fam == "VOP3" and (op >= 0x380 or op in GRAPHICS_VOP3):
            continue
        mnem, ops, mods = split_operands(r["text"])
        f = Form(fam, op, mnem, map_operands(fam, mnem, ops), mods)
        normalise_flat_addressing(f)
        forms.append(f)
    return forms


def base_name(mnem):
    for suf in ("_e32", "_e64"):
        if mnem.endswith(suf):
            return mnem[:-4]
    return mnem


def build_rows(recs):
    forms = make_forms(recs)
    natives = [f for f in forms if f.fam in VOPX]
    by_base = {base_name(f.mnem): f for f in natives}
    rows, seen = [], {}
    vop3_taken = set()
    for f in forms:
        if f.fam != "VOP3":
            continue
        b = base_name(f.mnem)
        if b in by_base and (f.mnem.endswith("_e64") or f.mnem == b):
            vop3_taken.add(id(f))
    e64_of = {}
    for f in forms:
        if id(f) in vop3_taken:
            e64_of[base_name(f.mnem)] = f
    for f in forms:
        if id(f) in vop3_taken:
            continue
        b = base_name(f.mnem)
        ident = b
        if ident in seen:  # a second opcode llvm decodes to the same name
            ident = f"{b}_alias_{f.fam.lower()}_{f.op:x}"
        seen[ident] = True
        row = Row(ident, f, e64_of.get(b) if f.fam in VOPX else None)
        if ident != b:
            row.flags.add("DECODE_ONLY")
        rows.append(row)
    probe_rows(rows)
    return rows


def probe_rows(rows):
    forms = []
    for r in rows:
        forms.append(r.native)
        if r.e64:
            forms.append(r.e64)
    classify_sources(forms)
    p = Probe()
    plan = []
    for r in rows:
        f, b = r.native, base_name(r.native.mnem)
        ask = lambda flag, line: plan.append((r, flag, p.q(line)))
        vals = f.values()
        if f.fam in VOPX:
            sd = [v if v != "vcc" or f.fam != "VOPC" else "vcc" for v in vals]
            ask("SDWA", f.text(sd, mnem=b + "_sdwa"))
            ask("DPP", f.text(vals, ["quad_perm:[0,1,2,3]"], mnem=b + "_dpp"))
            ask("SDWA_CLAMP", f.text(sd, ["clamp"], mnem=b + "_sdwa"))
            ask("SDWA_OMOD", f.text(sd, ["mul:2"], mnem=b + "_sdwa"))
            ask("SDWA_SGPR_DST", f.text(["s[0:1]"] + sd[1:], mnem=b + "_sdwa") if f.fam == "VOPC" else "x")
            # source modifiers of the SDWA and DPP forms, per source
            srcs = [i for i, o in enumerate(f.ops) if o.field in ("src0", "vsrc1")]
            for k, i in enumerate(srcs):
                def wrap(fmt, vals=vals, i=i):
                    vv = list(vals)
                    vv[i] = fmt.format(vv[i])
                    return vv
                ask(f"SDWA_SEXT{k}", f.text(wrap("sext({})"), mnem=b + "_sdwa"))
                ask(f"SDWA_NEG{k}", f.text(wrap("-{}"), mnem=b + "_sdwa"))
                ask(f"DPP_NEG{k}", f.text(wrap("-{}"), ["quad_perm:[0,1,2,3]"], mnem=b + "_dpp"))
                ask(f"DPP_SEXT{k}", f.text(wrap("sext({})"), ["quad_perm:[0,1,2,3]"], mnem=b + "_dpp"))
            if r.e64:
                ask("E64_SUFFIX", r.e64.text(mnem=b + "_e64"))
                ask("E32_SUFFIX", f.text(mnem=b + "_e32"))
        v3 = r.e64 if r.e64 else (f if f.fam in ("VOP3", "VOP3P") else None)
        if v3 is not None:
            nsrc = sum(1 for o in v3.ops if o.field in ("src0", "src1", "src2"))
            ask("CLAMP", v3.text(mods=v3.printed_mods + ["clamp"]))
            ask("OMOD", v3.text(mods=v3.printed_mods + ["mul:2"]))
            if v3.fam == "VOP3P":
                z = "[" + ",".join(["1"] * nsrc) + "]"
                ask("OPSEL", v3.text(mods=["op_sel:" + z]))
                ask("OPSEL_HI", v3.text(mods=["op_sel_hi:" + z]))
                ask("NEG_LO", v3.text(mods=["neg_lo:" + z]))
                ask("NEG_HI", v3.text(mods=["neg_hi:" + z]))
            else:
                z = "[" + ",".join(["1"] * (nsrc + 1)) + "]"
                ask("OPSEL", v3.text(mods=["op_sel:" + z]))
        if f.fam in ("MUBUF", "MTBUF", "FLAT", "GLOBAL", "SCRATCH", "SMEM"):
            base_mods = [x for x in f.printed_mods if x != "lds" or "_lds_" in f.mnem]
            for m in ("glc", "slc", "lds", "tfe"):
                ask(m.upper(), f.text(mods=base_mods + [m]))
            if "atomic" in f.mnem and f.fam in ("FLAT", "GLOBAL", "SCRATCH"):
                vd = "v[80:%d]" % (80 + f.ops[1].width // (2 if "cmpswap" in f.mnem else 1) - 1)
                vd = "v80" if vd == "v[80:80]" else vd
                ask("ATOMIC_RTN", f.text([vd] + f.values(), f.printed_mods + ["glc"]))
            if "atomic" in f.mnem and f.fam in ("MUBUF", "SMEM"):
                ask("ATOMIC_RTN", f.text(mods=f.printed_mods + ["glc"]))
        if f.fam == "DS":
            ask("GDS", f.text(mods=f.printed_mods + ["gds"]))
        if f.fam == "SOPP" and f.ops:
            ask("OPT_IMM", f.mnem)
    p.run()
    for r, flag, h in plan:
        if p.ok(h):
            r.flags.add(flag)
    for r in rows:
        f = r.native
        if f.fam == "DS" and any(m.startswith("offset0") for m in f.printed_mods):
            r.flags.add("DS2")
        if f.fam == "DS" and f.mnem == "ds_swizzle_b32":
            r.flags.add("SWIZZLE")
        if f.fam == "SOPP" and not f.ops:
            r.flags.add("NO_IMM")


def fam_enum(f):
    return f.fam


def write_inc(rows, path):
    out = []
    out.append("// GFX9 (gfx906 / gfx926) instruction table, derived from llvm-mc-14 by")
    out.append("// tools/isa/derive_table.py. Do not edit by hand: re-run the script.")
    out.append("//")
    out.append("// K100_INST(id, family, opcode, e64_opcode, flags,")
    out.append("//           \"native mnemonic\", \"e64 mnemonic\", \"native operands\", \"e64 operands\")")
    out.append("// operands: field:width:type:accept:mods, in printed order (see isa/table.h).")
    out.append("")
    for r in rows:
        f, e = r.native, r.e64
        flags = "|".join(sorted(r.flags)) or "0"
        nm = f.mnem
        em = ""
        if e:
            em = base_name(f.mnem) + "_e64" if "E64_SUFFIX" in r.flags else e.mnem
        ops = " ".join(o.spec() for o in f.ops)
        eops = " ".join(o.spec() for o in e.ops) if e else ""
        out.append(f'K100_INST({r.ident}, {f.fam}, 0x{f.op:x}, {("0x%x" % e.op) if e else "-1"}, {flags}, '
                   f'"{nm}", "{em}", "{ops}", "{eops}")')
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    print("scanning opcodes with llvm-mc ...", file=sys.stderr)
    recs = []
    for fam in FAMILIES:
        recs.extend(scan_family(fam))
    print(f"{len(recs)} opcode records", file=sys.stderr)
    rows = build_rows(recs)
    write_inc(rows, args.output)
    print(f"wrote {len(rows)} instructions to {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
