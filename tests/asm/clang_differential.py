#!/usr/bin/env python3
"""What clang writes, assembled by k100-as and by llvm-mc + ld.lld.

Every OpenCL C and HIP source the emulator tests compile (tests/emu/opencl,
tests/emu/hip) is compiled to assembly with `clang -S` (clang-15; HIP through
hipcc, which uses it), for code object v4 and v5. Each file is then assembled
twice, as a user types it:

  llvm-mc-15 -filetype=obj --amdhsa-code-object-version=V + ld.lld-15 -shared
  k100-as -mcpu=gfx906 --amdhsa-code-object-version=V -o OUT.hsaco FILE.s

and the two code objects must be the same where the loader looks: the ELF
header, every program header, and every allocated section (name, type,
flags, address, alignment and bytes: code, kernel descriptors, read-only and
writable data, the metadata note, the dynamic symbol and string tables).
The sections only a linker fills (.comment, .symtab) are not compared.

A v4 file assembled without --amdhsa-code-object-version (k100-as writes v5
by default) must draw the warning that its metadata describes v4. And each
file's `k100-as -filetype=asm` listing must assemble again to the very same
code object (byte for byte).

Usage: clang_differential.py K100_AS SOURCE_DIR
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import oracle  # noqa: E402

DEVICE_LIBS = ["/usr/lib/x86_64-linux-gnu/amdgcn/bitcode", "/usr/lib/amdgcn/bitcode", "/opt/rocm/amdgcn/bitcode"]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def elf(path):
    """Header fields, program headers and allocated sections of an ELF64 file."""
    b = open(path, "rb").read()
    phoff, shoff = struct.unpack_from("<QQ", b, 0x20)
    flags, = struct.unpack_from("<I", b, 0x30)
    phnum, = struct.unpack_from("<H", b, 0x38)
    shnum, shstrndx = struct.unpack_from("<HH", b, 0x3c)
    header = (b[:16], struct.unpack_from("<HHIQ", b, 16), flags, phnum)
    phdrs = [struct.unpack_from("<IIQQQQQQ", b, phoff + 56 * i) for i in range(phnum)]
    raw = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + 64 * i) for i in range(shnum)]
    names = raw[shstrndx][4]

    def name(off):
        return b[names + off:b.index(b"\0", names + off)].decode()
    sections = {}
    for (nm, typ, fl, addr, off, size, _link, _info, align, ent) in raw:
        if fl & 2:  # SHF_ALLOC
            data = b"" if typ == 8 else b[off:off + size]
            sections[name(nm)] = (typ, fl, addr, size, align, ent, data)
    return header, phdrs, sections


def differences(ref, ours):
    out = []
    (rh, rp, rs), (oh, op, os_) = elf(ref), elf(ours)
    if rh != oh:
        out.append(f"ELF header {rh[1:]} vs {oh[1:]}")
    if rp != op:
        out.append(f"program headers differ ({len(rp)} vs {len(op)})")
    for n in sorted(set(rs) | set(os_)):
        if n not in os_ or n not in rs:
            out.append(f"section {n} only in {'ld.lld' if n in rs else 'k100-as'}'s object")
        elif rs[n] != os_[n]:
            what = "bytes" if rs[n][:6] == os_[n][:6] else "type/flags/address/size/alignment"
            out.append(f"section {n}: {what} differ")
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    k100_as, source = sys.argv[1], sys.argv[2]
    clang, mc, lld = shutil.which("clang-15"), shutil.which("llvm-mc-15"), shutil.which("ld.lld-15")
    hipcc = shutil.which("hipcc")
    libs = next((d for d in DEVICE_LIBS if os.path.exists(os.path.join(d, "ocml.bc"))), None)
    missing = [n for n, p in (("clang-15", clang), ("llvm-mc-15", mc), ("ld.lld-15", lld), ("hipcc", hipcc),
                              ("the ROCm device libraries", libs)) if not p]
    if missing:
        return oracle.missing("missing " + ", ".join(missing) +
                              " (apt-get install clang-15 llvm-15 lld-15 hipcc rocm-device-libs)")
    inputs = []
    for sub, ext in (("opencl", ".cl"), ("hip", ".hip")):
        d = os.path.join(source, "tests", "emu", sub)
        inputs += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(ext)]
    failures, compared = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for src in inputs:
            stem = os.path.splitext(os.path.basename(src))[0] + ("_hip" if src.endswith(".hip") else "")
            for v in (4, 5):
                s = os.path.join(tmp, f"{stem}_v{v}.s")
                if src.endswith(".cl"):
                    cc = [clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx906",
                          f"--rocm-device-lib-path={libs}", "-O2", f"-mcode-object-version={v}", "-S", "-o", s, src]
                else:
                    cc = [hipcc, "--offload-arch=gfx906", "--genco", "-O2", "--no-gpu-bundle-output",
                          f"-mcode-object-version={v}", "-S", "-o", s, src]
                r = run(cc)
                if r.returncode != 0:
                    failures.append(f"{stem} v{v}: the compiler failed: {r.stderr.strip()[:300]}")
                    continue
                obj, ref, ours = s + ".o", s + ".lld.hsaco", s + ".k100.hsaco"
                r = run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx906", f"--amdhsa-code-object-version={v}",
                         "-filetype=obj", "-o", obj, s])
                if r.returncode == 0:
                    r = run([lld, "-shared", "-o", ref, obj])
                if r.returncode != 0:
                    failures.append(f"{stem} v{v}: llvm-mc/ld.lld failed: {r.stderr.strip()[:300]}")
                    continue
                r = run([k100_as, "-mcpu=gfx906", f"--amdhsa-code-object-version={v}", "-o", ours, s])
                if r.returncode != 0 or r.stderr.strip():
                    failures.append(f"{stem} v{v}: k100-as rc {r.returncode}: {r.stderr.strip()[:400]}")
                    continue
                for d in differences(ref, ours):
                    failures.append(f"{stem} v{v}: {d}")
                compared += 1
                listing, again = s + ".listing.s", s + ".again.hsaco"
                r = run([k100_as, "-mcpu=gfx906", f"--amdhsa-code-object-version={v}", "-filetype=asm", "-o",
                         listing, s])
                if r.returncode == 0:
                    r = run([k100_as, "-mcpu=gfx906", "-o", again, listing])
                if r.returncode != 0:
                    failures.append(f"{stem} v{v}: the -filetype=asm listing does not assemble: {r.stderr.strip()[:300]}")
                elif open(again, "rb").read() != open(ours, "rb").read():
                    failures.append(f"{stem} v{v}: the -filetype=asm listing assembles to another object")
                if v == 4:  # written without the option: k100-as's default is v5
                    r = run([k100_as, "-mcpu=gfx906", "-o", os.path.join(tmp, "default.hsaco"), s])
                    if r.returncode != 0 or "is code object v4 metadata" not in r.stderr:
                        failures.append(f"{stem} v4 assembled as v5: no version warning (rc {r.returncode}: "
                                        f"{r.stderr.strip()[:300]})")
    print(f"clang -S output compared: {compared} files ({len(inputs)} sources x code object v4, v5) against "
          f"llvm-mc-15 + ld.lld-15")
    for f in failures[:40]:
        print("FAIL " + f)
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
