#!/usr/bin/env python3
"""Code objects from k100-as against llvm-mc + ld.lld (gfx906).

Generated assembly files, each with several kernels (labels, branches, data
in .text, `.amdhsa_kernel` blocks with varied settings and an
`.amdgpu_metadata` document), are turned into code objects twice:

  llvm-mc-14 + ld.lld-14 (code object v4), llvm-mc-15 + ld.lld-15 (v5)
  k100-as --amdhsa-code-object-version=4|5

and must agree: identical .text bytes, identical kernel descriptors (all 64
bytes), the same metadata as llvm-readelf prints it, the same section and
segment layout, and llvm-readelf must read ours without a warning. Files for
gfx926 are checked the same way against the gfx906 build (same encodings),
except the header flags and target id.

Usage: codeobj_differential.py K100_AS [--files N] [--seed S]
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import oracle  # noqa: E402

BODY = [
    "s_load_dwordx4 s[8:11], s[4:5], 0x0",
    "s_load_dword s12, s[4:5], 0x10",
    "s_waitcnt lgkmcnt(0)",
    "v_lshlrev_b32 v1, 2, v0",
    "global_load_dword v2, v1, s[8:9]",
    "s_waitcnt vmcnt(0)",
    "v_add_f32 v2, 1.0, v2",
    "v_mul_f32_e32 v3, 0x3fb504f3, v2",
    "global_store_dword v1, v3, s[10:11]",
    "v_cmp_gt_u32 vcc, s12, v0",
    "s_and_saveexec_b64 s[14:15], vcc",
    "v_dot4_i32_i8 v4, v2, v3, v4",
    "ds_write_b32 v1, v2 offset:16",
    "ds_read_b32 v5, v1 offset:16",
    "v_mad_u64_u32 v[6:7], s[16:17], v2, v3, v[6:7]",
    "v_add_u32_dpp v8, v2, v3 row_shr:1 bound_ctrl:0",
    "s_barrier",
]

SETTINGS = [
    (".amdhsa_user_sgpr_dispatch_ptr", [0, 1]),
    (".amdhsa_user_sgpr_queue_ptr", [0, 1]),
    (".amdhsa_user_sgpr_dispatch_id", [0, 1]),
    (".amdhsa_system_sgpr_workgroup_id_y", [0, 1]),
    (".amdhsa_system_sgpr_workgroup_id_z", [0, 1]),
    (".amdhsa_system_vgpr_workitem_id", [0, 1, 2]),
    (".amdhsa_group_segment_fixed_size", [0, 1024, 65536]),
    (".amdhsa_private_segment_fixed_size", [0, 16, 304]),
    (".amdhsa_float_denorm_mode_32", [0, 3]),
    (".amdhsa_float_denorm_mode_16_64", [0, 3]),
    (".amdhsa_ieee_mode", [0, 1]),
    (".amdhsa_dx10_clamp", [0, 1]),
    (".amdhsa_reserve_vcc", [0, 1]),
    (".amdhsa_reserve_flat_scratch", [0, 1]),
    (".amdhsa_exception_fp_ieee_invalid_op", [0, 1]),
]


def make_file(rng, mcpu, version, nkernels):
    tid = "gfx926:sramecc+" if mcpu == "gfx926" else mcpu  # the vendor's target id for gfx926
    lines = [f'\t.amdgcn_target "amdgcn-amd-amdhsa--{tid}"', "\t.text"]
    kernels = []
    for k in range(nkernels):
        name = f"kern_{k}_{rng.randrange(1000)}"
        kernels.append(name)
        lines += [f"\t.globl {name}", "\t.p2align 8", f"\t.type {name},@function", f"{name}:"]
        body = rng.sample(BODY, rng.randrange(3, len(BODY)))
        for i, b in enumerate(body):
            lines.append("\t" + b)
            if i == len(body) // 2:
                lines.append(f"\ts_cbranch_execz .Lend_{k}")
        lines += [f".Lend_{k}:", "\ts_endpgm", f".Lfunc_end{k}:", f"\t.size {name}, .Lfunc_end{k}-{name}", ""]
    lines += ["\t.rodata"]
    metas = []
    for k, name in enumerate(kernels):
        lines += ["\t.p2align 6", f"\t.amdhsa_kernel {name}", "\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1",
                  "\t\t.amdhsa_user_sgpr_private_segment_buffer 1", "\t\t.amdhsa_kernarg_size 24",
                  f"\t\t.amdhsa_next_free_vgpr {rng.choice([9, 12, 33, 64, 129])}",
                  f"\t\t.amdhsa_next_free_sgpr {rng.choice([18, 24, 40, 80])}"]
        for key, vals in rng.sample(SETTINGS, 6):
            lines.append(f"\t\t{key} {rng.choice(vals)}")
        lines.append("\t.end_amdhsa_kernel")
        metas.append(name)
    ver = [1, 1] if version == 4 else [1, 2]
    lines += ["\t.amdgpu_metadata", "---", f"amdhsa.version: [ {ver[0]}, {ver[1]} ]",
              f"amdhsa.target: amdgcn-amd-amdhsa--{tid}", "amdhsa.kernels:"]
    for name in metas:
        lines += [f"  - .name: {name}", f"    .symbol: {name}.kd", "    .kernarg_segment_size: 24",
                  "    .kernarg_segment_align: 8", "    .group_segment_fixed_size: 0",
                  "    .private_segment_fixed_size: 0", "    .wavefront_size: 64", "    .sgpr_count: 24",
                  "    .vgpr_count: 9", "    .max_flat_workgroup_size: 256", "    .args:",
                  "      - { .name: src, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }",
                  "      - { .name: dst, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }",
                  "      - { .name: count, .size: 4, .offset: 16, .value_kind: by_value }"]
    lines += ["...", "\t.end_amdgpu_metadata", ""]
    return "\n".join(lines)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def section_bytes(path, name, objdump):
    out = run([objdump, "-s", "-j", name, path]).stdout
    data = b""
    for l in out.splitlines():
        m = re.match(r"^\s*[0-9a-f]+ ((?:[0-9a-f]{2,8} ?){1,4})", l)
        if m:
            data += bytes.fromhex(m.group(1).replace(" ", ""))
    return data


def layout(path, readelf):
    out = run([readelf, "-S", "-l", "-W", path]).stdout
    keep = []
    for l in out.splitlines():
        if ".comment" in l or ".symtab" in l or ".strtab" in l or ".shstrtab" in l or "section headers" in l.lower():
            continue  # sizes depend on the .comment string ("Linker: LLD" vs "k100lc")
        keep.append(l)
    return "\n".join(keep)


def notes(path, readelf):
    out = run([readelf, "-n", path]).stdout
    return out[out.find("---"):]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("k100_as")
    ap.add_argument("--files", type=int, default=24)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    tools = {4: ("llvm-mc-14", "ld.lld-14", "llvm-readelf-14", "llvm-objdump-14"),
             5: ("llvm-mc-15", "ld.lld-15", "llvm-readelf-15", "llvm-objdump-15")}
    missing = [t for v in tools.values() for t in v if not shutil.which(t)]
    if missing:
        return oracle.missing("missing " + ", ".join(sorted(set(missing))) +
                              " (apt-get install llvm-14 lld-14 llvm-15 lld-15)")
    rng = random.Random(args.seed)
    failures = []
    checked = {"files": 0, "kernels": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.files):
            version = 4 if i % 2 == 0 else 5
            mc, lld, readelf, objdump = tools[version]
            nk = rng.randrange(1, 4)
            src = make_file(rng, "gfx906", version, nk)
            s = os.path.join(tmp, f"f{i}.s")
            open(s, "w").write(src)
            ref_o, ref, ours = s + ".o", s + ".lld.hsaco", s + ".k100.hsaco"
            r1 = run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx906", f"--amdhsa-code-object-version={version}",
                      "-filetype=obj", "-o", ref_o, s])
            r2 = run([lld, "-shared", "-o", ref, ref_o]) if r1.returncode == 0 else r1
            r3 = run([args.k100_as, "--mcpu=gfx906", f"--amdhsa-code-object-version={version}", "-o", ours, s])
            if r2.returncode != 0 or r3.returncode != 0:
                failures.append(f"f{i} (v{version}): llvm rc {r2.returncode} {r2.stderr.strip()[:300]} / "
                                f"k100-as rc {r3.returncode} {r3.stderr.strip()[:300]}")
                continue
            rd = run([readelf, "-h", "-l", "-S", "-s", "--dyn-syms", "-n", ours])
            if rd.returncode != 0 or rd.stderr.strip():
                failures.append(f"f{i} (v{version}): llvm-readelf warns on k100's object: {rd.stderr.strip()[:300]}")
            for sec in (".text", ".rodata"):
                a, b = section_bytes(ref, sec, objdump), section_bytes(ours, sec, objdump)
                if a != b or not a:
                    failures.append(f"f{i} (v{version}): {sec} differs ({len(a)} vs {len(b)} bytes)")
            if notes(ref, readelf) != notes(ours, readelf):
                failures.append(f"f{i} (v{version}): metadata differs")
            if layout(ref, readelf) != layout(ours, readelf):
                failures.append(f"f{i} (v{version}): section/segment layout differs")
            dis_ref = run([objdump, "-d", ref]).stdout.split("Disassembly", 1)[-1]
            dis_ours = run([objdump, "-d", ours]).stdout.split("Disassembly", 1)[-1]
            if dis_ref != dis_ours:
                failures.append(f"f{i} (v{version}): llvm-objdump -d output differs")
            checked["files"] += 1
            checked["kernels"] += nk
        # gfx926: same code and descriptors as gfx906, header and target id of its own
        src = make_file(random.Random(1), "gfx926", 5, 2)
        s = os.path.join(tmp, "g926.s")
        open(s, "w").write(src)
        ours = s + ".hsaco"
        r = run([args.k100_as, "--mcpu=gfx926", "-o", ours, s])
        if r.returncode != 0:
            failures.append("gfx926: " + r.stderr[:300])
        else:
            h = run(["llvm-readelf-15", "-h", "-n", ours])
            if h.returncode != 0 or h.stderr.strip():
                failures.append("gfx926: llvm-readelf warns: " + h.stderr[:300])
            m = re.search(r"Flags:\s*(0x[0-9a-fA-F]+)", h.stdout)
            if not m or int(m.group(1), 16) != 0xD81:
                failures.append(f"gfx926: e_flags {m.group(1) if m else '?'} (expected 0xD81)")
            if "amdgcn-amd-amdhsa--gfx926:sramecc+" not in h.stdout:
                failures.append("gfx926: target id missing from the metadata")
    print(f"code objects compared: {checked['files']} files, {checked['kernels']} kernels (v4 with lld-14, v5 with lld-15)"
          f"; gfx926 header checked")
    for f in failures[:30]:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
