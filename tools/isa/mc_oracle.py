"""llvm-mc as an oracle: batch assembly and disassembly with one result per input.

Used by the ISA table derivation and by the differential tests. Each input
line gets a unique label in front of it so results map back to inputs even
when some lines fail (llvm-mc keeps going after errors).
"""
import re
import shutil
import subprocess

TRIPLE = "amdgcn-amd-amdhsa"


def find_mc(preferred=("llvm-mc-14", "llvm-mc")):
    for name in preferred:
        path = shutil.which(name)
        if path:
            return path
    return None


def assemble(lines, mc=None, mcpu="gfx906"):
    """Returns one entry per line: bytes, or ('ERROR', message), or None (no code)."""
    mc = mc or find_mc()
    src = []
    for i, line in enumerate(lines):
        src.append(f"__L{i}:")
        src.append(line)
    p = subprocess.run([mc, f"-triple={TRIPLE}", f"-mcpu={mcpu}", "-show-encoding"],
                       input="\n".join(src) + "\n", capture_output=True, text=True)
    res = [None] * len(lines)
    errs = {}
    for m in re.finditer(r"^<stdin>:(\d+):\d+: error: (.*)$", p.stderr, re.M):
        idx = (int(m.group(1)) - 2) // 2
        errs.setdefault(idx, m.group(2))
    cur = None
    for out in p.stdout.splitlines():
        m = re.match(r"^__L(\d+):", out)
        if m:
            cur = int(m.group(1))
            continue
        m = re.search(r"encoding: \[([^\]]*)\]", out)
        if m and cur is not None:
            b = bytes(int(x, 16) for x in m.group(1).split(","))
            res[cur] = (res[cur] or b"") + b
    for i, e in errs.items():
        res[i] = ("ERROR", e)
    return res


CRASH = "llvm-mc crashed"
MARKER = bytes([0xa5, 0x02, 0x8d, 0xbf])  # s_sethalt 0x2a5: a rare instruction used as a separator


def disassemble(words_list, mc=None, mcpu="gfx906"):
    """words_list: list of bytes objects, one instruction each.
    Returns one entry per input: (text, consumed_all) or ('ERROR', message).
    A marker group precedes every input so outputs map back to inputs even when
    llvm-mc skips undecodable words and decodes the bytes after them."""
    mc = mc or find_mc()
    grp = lambda w: "[" + ",".join("0x%02x" % b for b in w) + "]\n"
    src = "".join(grp(MARKER) + grp(w) for w in words_list)
    p = subprocess.run([mc, "-disassemble", f"-triple={TRIPLE}", f"-mcpu={mcpu}"],
                       input=src, capture_output=True, text=True)
    if p.returncode < 0:
        # llvm-mc died on a word (llvm-mc-14 does on SDWA selects of 7): the
        # halves are retried until the words it dies on stand alone
        if len(words_list) == 1:
            return [("ERROR", CRASH)]
        half = len(words_list) // 2
        return disassemble(words_list[:half], mc, mcpu) + disassemble(words_list[half:], mc, mcpu)
    warn = {}
    for m in re.finditer(r"^<stdin>:(\d+):(\d+): warning: (.*)$", p.stderr, re.M):
        line = int(m.group(1))
        if line % 2 == 0:
            warn.setdefault(line // 2 - 1, []).append((int(m.group(2)), m.group(3)))
    chunks, cur = [], None
    for l in p.stdout.splitlines():
        t = l.strip()
        if not t or t.startswith(".text") or t.startswith(".amdgcn"):
            continue
        if t.startswith("s_sethalt 0x2a5") or t == "s_sethalt 677":
            cur = []
            chunks.append(cur)
            continue
        cur.append(t)
    assert len(chunks) == len(words_list), (len(chunks), len(words_list))
    res = []
    for i, outs in enumerate(chunks):
        w = warn.get(i, [])
        if not outs:
            res.append(("ERROR", w[0][1] if w else "no output"))
        elif len(outs) > 1 or w:
            # first word(s) failed or bytes were left over: not one clean instruction
            res.append((outs[0], False) if not any(c <= 2 for c, _ in w) else ("ERROR", "partial"))
        else:
            res.append((outs[0], True))
    return res


def le(*dwords):
    out = b""
    for d in dwords:
        out += (d & 0xFFFFFFFF).to_bytes(4, "little")
    return out
