"""The habits an LLVM user brings, typed at the tools as that user types them:
clang's assembly, code object versions, listings that assemble again,
typedef'd kernel arguments, target ids without features, and llvm-objdump's
and llvm-mc's flags. (The byte-for-byte comparisons with llvm-mc + ld.lld and
llvm-objdump-15 are tests/asm/clang_differential.py and
tests/tools/objdump_differential.py.)

Environment: K100_TOOLS_BIN, K100_SOURCE_DIR, K100_BUILD_DIR (CTest sets them).
"""
import os
import struct
import subprocess
from pathlib import Path

BIN = Path(os.environ["K100_TOOLS_BIN"])
BUILD = Path(os.environ["K100_BUILD_DIR"])
RT_HSACO = BUILD / "tests" / "runtime" / "runtime_test.hsaco"


def run(tool, *args, stdin=None):
    env = dict(os.environ, K100_BACKEND="emu")
    p = subprocess.run([str(BIN / tool), *map(str, args)], input=stdin, capture_output=True, env=env, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def write(path, text):
    path.write_text(text)
    return path


# What clang -S writes around a kernel that reads a program-scope global through a
# PC-relative address: .protected, .section .rodata,#alloc, .section .AMDGPU.csdata,
# a .data global reached with sym@rel32@lo/@rel32@hi, .addrsig and a GNU-stack note.
CLANG_STYLE = """\t.text
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx906"
\t.protected\tread_global             ; -- Begin function read_global
\t.globl\tread_global
\t.p2align\t8
\t.type\tread_global,@function
read_global:                            ; @read_global
; %bb.0:
\ts_load_dwordx2 s[2:3], s[4:5], 0x0
\ts_getpc_b64 s[0:1]
\ts_add_u32 s0, s0, g_value@rel32@lo+4
\ts_addc_u32 s1, s1, g_value@rel32@hi+12
\ts_load_dword s6, s[0:1], 0x0
\tv_mov_b32_e32 v1, 0
\ts_waitcnt lgkmcnt(0)
\tv_mov_b32_e32 v0, s6
\tglobal_store_dword v1, v0, s[2:3]
\ts_endpgm
.Lfunc_end0:
\t.size\tread_global, .Lfunc_end0-read_global
                                        ; -- End function
\t.section\t.AMDGPU.csdata
; Kernel info:
; codeLenInByte = 60
\t.section\t.rodata,#alloc
\t.p2align\t6
\t.amdhsa_kernel read_global
\t\t.amdhsa_user_sgpr_private_segment_buffer 1
\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1
\t\t.amdhsa_next_free_vgpr 2
\t\t.amdhsa_next_free_sgpr 8
\t\t.k100_arg out, global_buffer, u32*, write_only
\t.end_amdhsa_kernel
\t.text
\t.hidden\tg_value                         ; @g_value
\t.type\tg_value,@object
\t.data
\t.globl\tg_value
\t.p2align\t2
g_value:
\t.long\t0x12345678
\t.size\tg_value, 4

\t.ident\t"clang version 15.0.6"
\t.section\t".note.GNU-stack"
\t.addrsig
\t.addrsig_sym g_value
"""

V4_METADATA = """\t.amdgcn_target "amdgcn-amd-amdhsa--gfx906"
\t.text
\t.globl\tk
\t.p2align\t8
\t.type\tk,@function
k:
\ts_endpgm
\t.rodata
\t.p2align 6
\t.amdhsa_kernel k
\t\t.amdhsa_next_free_vgpr 1
\t\t.amdhsa_next_free_sgpr 1
\t.end_amdhsa_kernel
\t.amdgpu_metadata
---
amdhsa.version: [ 1, 1 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 0
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 2
    .vgpr_count: 1
    .max_flat_workgroup_size: 256
...
\t.end_amdgpu_metadata
"""


def test_as_takes_clang_output_and_the_global_is_where_the_code_looks(tmp_path):
    src = write(tmp_path / "clang_style.s", CLANG_STYLE)
    obj = tmp_path / "g.hsaco"
    rc, out, err = run("k100-as", "-mcpu=gfx906", "-o", obj, src)
    assert rc == 0 and err == "", err
    rc, out, err = run("k100-run", obj, "read_global", "--grid", "1", "--wg", "1", f"out:4:{tmp_path / 'o.bin'}")
    assert rc == 0, err
    assert (tmp_path / "o.bin").read_bytes() == struct.pack("<I", 0x12345678)
    # the global is a local .data symbol of its own read-write segment, as ld.lld lays it out
    rc, out, err = run("k100-objdump", "-h", "-t", obj)
    assert rc == 0 and " .data " in out and ".hidden g_value" in out, out
    assert "O .data\t0000000000000004 .hidden g_value" in out, out


def test_as_refuses_sections_it_does_not_write(tmp_path):
    src = write(tmp_path / "s.s", "\t.section .foo,\"a\"\n\t.long 1\n\t.text\n\ts_endpgm\n")
    rc, out, err = run("k100-as", "-o", tmp_path / "s.hsaco", src)
    assert rc == 1 and "section '.foo' (4 bytes) is not supported" in err, err
    src = write(tmp_path / "f.s", "\t.section .rodata,#alloc,#bogus\n")
    rc, out, err = run("k100-as", "-o", tmp_path / "f.hsaco", src)
    assert rc == 1 and "unknown section flag '#bogus'" in err, err


def test_as_warns_when_v4_metadata_is_written_as_a_v5_object(tmp_path):
    src = write(tmp_path / "v4.s", V4_METADATA)
    rc, out, err = run("k100-as", "-o", tmp_path / "a.hsaco", src)
    assert rc == 0
    assert "warning: .amdgpu_metadata is code object v4 metadata (amdhsa.version [1, 1]) but a v5 object is " \
           "written (the default); give --amdhsa-code-object-version=4" in err, err
    rc, out, err = run("k100-as", "--amdhsa-code-object-version=4", "-o", tmp_path / "b.hsaco", src)
    assert rc == 0 and "warning" not in err, err
    rc, out, err = run("k100-objdump", "--notes", tmp_path / "b.hsaco")
    assert "code object v4" in out


LISTED = """\t.macro store_lane reg, off
\tglobal_store_dword v1, \\reg, s[2:3] offset:\\off
\t.endm
\t.set STRIDE, 4
\t.text
\t.globl\tlisted
\t.p2align\t8
\t.type\tlisted,@function
listed:
\ts_load_dwordx2 s[2:3], s[4:5], 0x0
\tv_mov_b32 v1, 0
\tv_mov_b32 v0, SCALE
\ts_waitcnt lgkmcnt(0)
\t.rept 3
\tstore_lane v0, 4*STRIDE
\t.endr
\ts_cbranch_scc0 .Lend
\ts_nop 0
.Lend:
\ts_endpgm
.Lfunc_end:
\t.size\tlisted, .Lfunc_end-listed
\t.rodata
\t.p2align 6
\t.amdhsa_kernel listed
\t\t.amdhsa_user_sgpr_private_segment_buffer 1
\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1
\t\t.amdhsa_next_free_vgpr 2
\t\t.amdhsa_next_free_sgpr 8
\t\t.amdhsa_group_segment_fixed_size 256
\t\t.k100_arg out, global_buffer, u32*, write_only
\t.end_amdhsa_kernel
\t.section .rodata.table,#alloc
\t.p2align 3
table:
\t.quad 0x1122334455667788
\t.byte 1, 2, 3
\t.data
\t.p2align 2
counter:
\t.long .Lcounter_end - counter, 5
.Lcounter_end:
"""


def test_asm_listing_assembles_again_to_the_same_object(tmp_path):
    src = write(tmp_path / "l.s", LISTED)
    first, again = tmp_path / "first.hsaco", tmp_path / "again.hsaco"
    common = ["-mcpu=gfx906", "--amdhsa-code-object-version=4", "-defsym", "SCALE=7"]
    rc, out, err = run("k100-as", *common, "-o", first, src)
    assert rc == 0, err
    rc, listing, err = run("k100-as", *common, "-filetype=asm", src)
    assert rc == 0, err
    assert ".amdhsa_kernel listed" in listing and ".section .rodata.table,#alloc" in listing
    assert ".macro" not in listing and ".rept" not in listing  # expanded, as llvm-mc prints it
    (tmp_path / "listing.s").write_text(listing)
    rc, out, err = run("k100-as", "-o", again, tmp_path / "listing.s")  # no options: the listing says them
    assert rc == 0, err
    assert first.read_bytes() == again.read_bytes()
    # the -show-encoding listing is assembly too (its encodings are comments)
    rc, shown, err = run("k100-as", *common, "-show-encoding", src)
    (tmp_path / "shown.s").write_text(shown)
    rc, out, err = run("k100-as", "-o", tmp_path / "shown.hsaco", tmp_path / "shown.s")
    assert rc == 0 and (tmp_path / "shown.hsaco").read_bytes() == first.read_bytes(), err


# A kernel whose by-value arguments clang describes only by a typedef's name, as
# PolyBench's DATA_TYPE: out[0] = alpha (4 bytes), out[1..2] = beta (8 bytes).
TYPEDEF_ARGS = """\t.text
\t.globl\tstore_args
\t.p2align\t8
\t.type\tstore_args,@function
store_args:
\ts_load_dwordx2 s[2:3], s[0:1], 0x0
\ts_load_dword s4, s[0:1], 0x8
\ts_load_dwordx2 s[6:7], s[0:1], 0x10
\tv_mov_b32 v3, 0
\ts_waitcnt lgkmcnt(0)
\tv_mov_b32 v0, s4
\tv_mov_b32 v1, s6
\tv_mov_b32 v2, s7
\tglobal_store_dwordx3 v3, v[0:2], s[2:3]
\ts_endpgm
\t.rodata
\t.p2align 6
\t.amdhsa_kernel store_args
\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1
\t\t.amdhsa_next_free_vgpr 4
\t\t.amdhsa_next_free_sgpr 8
\t.end_amdhsa_kernel
\t.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: store_args
    .symbol: store_args.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 10
    .vgpr_count: 4
    .max_flat_workgroup_size: 256
    .args:
      - { .name: out, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
      - { .name: alpha, .size: 4, .offset: 8, .value_kind: by_value, .type_name: DATA_TYPE }
      - { .name: beta, .size: 8, .offset: 16, .value_kind: by_value, .type_name: DATA_TYPE }
...
\t.end_amdgpu_metadata
"""


def test_run_takes_any_typed_value_of_the_size_for_an_unknown_type_name(tmp_path):
    obj = tmp_path / "t.hsaco"
    rc, out, err = run("k100-as", "-o", obj, write(tmp_path / "t.s", TYPEDEF_ARGS))
    assert rc == 0, err
    o = tmp_path / "o.bin"
    base = [obj, "store_args", "--grid", "1", "--wg", "1", f"out:12:{o}"]
    rc, out, err = run("k100-run", *base, "f32:2.5", "f64:0.125")
    assert rc == 0, err
    assert o.read_bytes() == struct.pack("<fd", 2.5, 0.125)
    rc, out, err = run("k100-run", *base, "i32:-7", "u64:9")
    assert rc == 0, err
    assert o.read_bytes() == struct.pack("<iQ", -7, 9)
    rc, out, err = run("k100-run", *base, "f64:1", "f64:1")
    assert rc == 2 and "kernel argument 1 'alpha' is 4 bytes, this value is 8" in err, err
    # a type name that says float still wants a float kind, and f16: packs IEEE half bits
    rc, out, err = run("k100-run", RT_HSACO, "fill_f32_k", "--grid", "1", "--wg", "64",
                       f"out:256:{tmp_path / 'f.bin'}", "i32:1", "u32:64")
    assert rc == 2 and "kernel argument 'value' is f32: give f32:" in err, err


def link_sources(tmp_path, target_a, target_b):
    def kernel(name, target):
        t = f'\t.amdgcn_target "amdgcn-amd-amdhsa--{target}"\n' if target else ""
        return (t + f"\t.text\n\t.globl {name}\n\t.p2align 8\n{name}:\n\ts_endpgm\n\t.rodata\n\t.p2align 6\n"
                f"\t.amdhsa_kernel {name}\n\t.end_amdhsa_kernel\n")
    return write(tmp_path / "a.s", kernel("ka", target_a)), write(tmp_path / "b.s", kernel("kb", target_b))


def test_link_treats_an_unspecified_feature_as_any(tmp_path):
    a, b = link_sources(tmp_path, "gfx926", "")  # b: the default target, gfx926:sramecc+
    out = tmp_path / "ab.hsaco"
    rc, _, err = run("k100-link", "-o", out, a, b)
    assert rc == 0, err
    rc, notes, err = run("k100-objdump", "--notes", out)
    assert "target amdgcn-amd-amdhsa--gfx926:sramecc+ (e_flags 0xD81)" in notes, notes
    a, b = link_sources(tmp_path, "gfx906:xnack+", "gfx906:xnack-")
    rc, _, err = run("k100-link", "-mcpu=gfx906", "-o", out, a, b)
    assert rc == 1 and "targets amdgcn-amd-amdhsa--gfx906:xnack-" in err, err


def test_objdump_takes_llvm_objdumps_common_flags(tmp_path):
    obj = RT_HSACO
    checks = {("-dr",): "Disassembly of section .text:", ("-ht",): "SYMBOL TABLE:",
              ("-x",): "Program Header:", ("-r",): "file format elf64-amdgpu", ("-p",): "Dynamic Section:",
              ("-T",): "DYNAMIC SYMBOL TABLE:", ("-f",): "architecture: amdgcn", ("-C", "-t"): "saxpy_k",
              ("-S",): "<saxpy_k>:", ("-d", "--no-show-raw-insn"): "s_endpgm",
              ("--disassemble-symbols=fill_f32_k",): "<fill_f32_k>:",
              ("-d", "--triple=amdgcn-amd-amdhsa"): "<saxpy_k>:", ("-sj.rodata",): "Contents of section .rodata:"}
    for flags, want in checks.items():
        rc, out, err = run("k100-objdump", *flags, obj)
        assert rc == 0 and want in out, (flags, err)
    rc, out, err = run("k100-objdump", "--disassemble-symbols=fill_f32_k", obj)
    assert "<saxpy_k>:" not in out and "<fill_f32_k>:" in out
    rc, syms, err = run("k100-objdump", "-t", obj)
    start = int(next(l for l in syms.splitlines() if l.endswith(" fill_f32_k")).split()[0], 16)
    rc, out, err = run("k100-objdump", "-d", f"--start-address={start + 8:#x}", f"--stop-address={start + 24:#x}", obj)
    addresses = [int(l.split("// ")[1].split(":")[0], 16) for l in out.splitlines() if l.startswith("\t")]
    assert rc == 0 and addresses and addresses[0] == start + 8 and max(addresses) < start + 24, out
    assert f"{start:016x} <fill_f32_k>:" in out  # headed by the symbol it starts inside
    rc, out, err = run("k100-objdump", "-d", "-j", ".nosuch", obj)
    assert rc == 1 and "section '.nosuch' given with -j is in no input file" in err, err
    rc, out, err = run("k100-objdump", "--disassemble-symbols=nosuch", obj)
    assert rc == 1 and "symbol 'nosuch'" in err, err
    rc, out, err = run("k100-objdump", "-d", "--triple=x86_64-linux-gnu", obj)
    assert rc == 2 and "unsupported triple" in err


def test_as_show_inst_filetype_null_and_mcpu_help(tmp_path):
    src = write(tmp_path / "i.s", "v_add_f32 v0, 1.0, v1\ns_mov_b32 s0, s1\n")
    rc, out, err = run("k100-as", "-mcpu=gfx906", "-show-inst", src)
    assert rc == 0, err
    assert "v_add_f32_e32 v0, 1.0, v1" in out and "; <MCInst #" in out and "v_add_f32" in out
    assert ";  <MCOperand Reg:v0>" in out and ";  <MCOperand Imm:1.0>" in out and ";  <MCOperand Reg:s1>>" in out
    rc, out, err = run("k100-as", "-mcpu=gfx906", "-show-inst", "-show-encoding", src)
    assert "encoding: [0x01,0x00,0x80,0xbe]" in out and "<MCOperand Reg:s0>" in out
    rc, out, err = run("k100-as", "-filetype=null", src)
    assert rc == 0 and out == "" and err == ""
    rc, out, err = run("k100-as", "-filetype=null", write(tmp_path / "bad.s", "v_bogus v0\n"))
    assert rc == 1 and out == "" and "invalid instruction" in err
    rc, out, err = run("k100-as", "-filetype=null", write(tmp_path / "v4.s", V4_METADATA))
    assert rc == 0 and out == "" and "is code object v4 metadata" in err  # the object is built, then dropped
    rc, out, err = run("k100-as", "-mcpu=help")
    assert rc == 0 and "Available CPUs for this target:" in out and "gfx906" in out and "gfx926" in out
    assert "sramecc" in out and "xnack" in out
    rc, out, err = run("k100-as", "-mcpu=gfx1030", src)
    assert rc == 2 and "a processor k100lc does not write code for" in err and "-mcpu=help" in err
