"""The command-line tools as a user runs them: help, version, option
spellings, suggestions, and the errors named in docs/TOOLS.md.

Environment: K100_TOOLS_BIN (the built tools), K100_SOURCE_DIR, K100_BUILD_DIR.
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

BIN = Path(os.environ["K100_TOOLS_BIN"])
BUILD = Path(os.environ["K100_BUILD_DIR"])
RT_HSACO = BUILD / "tests" / "runtime" / "runtime_test.hsaco"
TOOLS = ["k100-as", "k100-objdump", "k100-link", "k100-catalog", "k100-run", "k100-selftest", "k100-bench",
         "k100-gguf", "k100-build-kernels"]

BRANCHY = """.text
.globl vadd
.p2align 8
vadd:
  s_mov_b32 s0, 3
.Lloop:
  s_sub_u32 s0, s0, 1
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc0 .Lloop
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel vadd
  .amdhsa_next_free_vgpr 1
  .amdhsa_next_free_sgpr 8
.end_amdhsa_kernel
"""


def run(tool, *args, stdin=None):
    env = dict(os.environ, K100_BACKEND="emu")
    return subprocess.run([str(BIN / tool), *map(str, args)], input=stdin, capture_output=True, env=env)


def text(p):
    return p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


@pytest.mark.parametrize("tool", TOOLS)
def test_help_on_stdout_exit_0_with_purpose_and_options(tool):
    p = run(tool, "--help")
    out, err = text(p)
    assert p.returncode == 0, err
    assert err == ""
    assert out.startswith(tool + ": "), out[:80]  # one line saying what it is for
    assert "--version" in out and "usage" in out


@pytest.mark.parametrize("tool", TOOLS)
def test_version(tool):
    p = run(tool, "--version")
    assert p.returncode == 0
    assert text(p)[0].startswith(tool + " (k100lc) ")


@pytest.mark.parametrize("tool,typo,near", [("k100-as", "--show-encodng", "--show-encoding"),
                                            ("k100-objdump", "--disassembel", "--disassemble"),
                                            ("k100-link", "--alow-duplicates", "--allow-duplicates"),
                                            ("k100-catalog", "--heder", "--header"),
                                            ("k100-run", "--grdi", "--grid"),
                                            ("k100-selftest", "--onyl", "--only"),
                                            ("k100-build-kernels", "--kernel-dir", "--kernels-dir"),
                                            ("k100-bench", "kernel", "kernels"),
                                            ("k100-gguf", "infoo", "info")])
def test_unknown_option_suggests(tool, typo, near):
    p = run(tool, typo)
    assert p.returncode == 2
    assert f"did you mean '{near}'?" in text(p)[1]
    assert text(p)[1].startswith(tool + ": ")


@pytest.mark.parametrize("argv,near", [(["k100-bench", "asm", "--line=3"], "--lines"),
                                       (["k100-bench", "emu", "--quik"], "--quick"),
                                       (["k100-bench", "kernels", "--grup", "gemv"], "--group"),
                                       (["k100-bench", "validate", "--detial"], "--detail"),
                                       (["k100-bench", "calibrate", "--quite"], "--quiet"),
                                       (["k100-bench", "repack", "--onyl=q8_0"], "--only"),
                                       (["k100-gguf", "info", "--al", "x.gguf"], "--all"),
                                       (["k100-gguf", "dequant", "--hots", "x.gguf", "t"], "--host")])
def test_subcommand_unknown_option_suggests(argv, near):
    p = run(*argv)
    assert p.returncode == 2
    assert f"did you mean '{near}'?" in text(p)[1]


@pytest.mark.parametrize("argv", [["k100-bench", "asm"], ["k100-bench", "emu"], ["k100-bench", "kernels"],
                                  ["k100-bench", "validate"], ["k100-bench", "calibrate"], ["k100-bench", "repack"],
                                  ["k100-gguf", "info"],
                                  ["k100-gguf", "dequant"], ["k100-gguf", "check"]])
def test_subcommand_help_on_stdout_exit_0(argv):
    p = run(*argv, "--help")
    out, err = text(p)
    assert p.returncode == 0 and err == ""
    assert out.startswith("usage: " + " ".join(argv))


def test_run_help_explains_arguments_grid_budget_and_exit_codes():
    out = text(run("k100-run", "--help"))[0]
    for needle in ("in:FILE", "out:NBYTES:FILE", "io:FILE:OUTFILE", "--grid", "--global", "--budget", "exit status"):
        assert needle in out, needle


def test_as_spellings_filetype_defsym_stdout(tmp_path):
    src = tmp_path / "d.s"
    src.write_text("s_mov_b32 s0, x\ns_endpgm\n")
    p = run("k100-as", "-mcpu", "gfx906", "-defsym", "x=5", "-show-encoding", src)
    out, err = text(p)
    assert p.returncode == 0, err
    assert "s_mov_b32 s0, 5" in out and "[0x85,0x00,0x80,0xbe]" in out
    obj = run("k100-as", "--defsym=x=5", "-filetype=obj", "-o", "-", src)
    assert obj.returncode == 0 and obj.stdout[:4] == b"\x7fELF"
    assert run("k100-as", "-defsym", "x=5", "-filetype=asm", "-o", "-", src).stdout.startswith(b"\t.text")
    bad = run("k100-as", "-filetype=exe", src)
    assert bad.returncode == 2 and "obj, asm or null" in text(bad)[1]


def test_as_triple_and_mattr(tmp_path):
    src = tmp_path / "e.s"
    src.write_text("s_endpgm\n")
    p = run("k100-as", "-triple", "x86_64-linux-gnu", src)
    assert p.returncode == 2 and "unsupported triple" in text(p)[1]
    assert run("k100-as", "-triple=amdgcn-amd-amdhsa", src).returncode == 0
    out = tmp_path / "e.hsaco"
    assert run("k100-as", "-mcpu=gfx906", "-mattr=+xnack,-sramecc", "-o", out, src).returncode == 0
    assert "gfx906:sramecc-:xnack+" in text(run("k100-objdump", "--notes", out))[0]
    p = run("k100-as", "-mattr=+wavefrontsize32", src)
    assert p.returncode == 2 and "unknown feature" in text(p)[1]


def test_as_names_a_binary_input():
    p = run("k100-as", RT_HSACO)
    assert p.returncode == 1
    assert "is a binary file (an ELF object)" in text(p)[1]


def test_objdump_refuses_non_amdgpu_input(tmp_path):
    host_elf = Path("/bin/sh").resolve()
    p = run("k100-objdump", "-d", host_elf)
    assert p.returncode == 1 and "is not AMDGPU (EM_AMDGPU = 224)" in text(p)[1]
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\n")
    p = run("k100-objdump", "-d", junk)
    assert p.returncode == 1 and "not an ELF file" in text(p)[1]
    assert run("k100-objdump", "--raw", "-d", junk).returncode == 0


def test_objdump_several_files_branch_labels_and_tables(tmp_path):
    src = tmp_path / "b.s"
    src.write_text(BRANCHY)
    obj = tmp_path / "b.hsaco"
    assert run("k100-as", "-o", obj, src).returncode == 0
    p = run("k100-objdump", "-d", obj, tmp_path / "missing.hsaco", RT_HSACO)
    out, err = text(p)
    assert p.returncode == 1  # one file could not be read, the others were dumped
    assert "missing.hsaco" in err
    assert out.count("file format elf64-amdgpu") == 2
    # the offset prints unsigned as llvm-mc prints it (-3 is 65533), the target as a label
    assert "s_cbranch_scc0 65533" in out and "<vadd+0x4>" in out
    h = text(run("k100-objdump", "-h", obj))[0]
    assert ".text" in h and ".rodata" in h and "Sections:" in h
    t = text(run("k100-objdump", "-t", obj))[0]
    assert "vadd.kd" in t and "SYMBOL TABLE:" in t
    s = text(run("k100-objdump", "-s", "-j", ".text", obj))[0]
    assert "Contents of section .text:" in s and ".rodata" not in s
    assert "Disassembly of section .rodata" in text(run("k100-objdump", "-D", obj))[0]


def test_link_writes_to_stdout(tmp_path):
    src = tmp_path / "b.s"
    src.write_text(BRANCHY)
    p = run("k100-link", "-o", "-", src)
    assert p.returncode == 0 and p.stdout[:4] == b"\x7fELF"


def test_run_checks_kinds_and_suggests_kernels(tmp_path):
    z = tmp_path / "z.bin"
    z.write_bytes(bytes(256))
    base = [RT_HSACO, "saxpy_k", "--grid", "1", "--wg", "64"]
    ok = run("k100-run", *base, f"io:{z}:{tmp_path / 'o.bin'}", f"in:{z}", "f32:2", "u32:64")
    assert ok.returncode == 0, text(ok)[1]
    p = run("k100-run", *base, f"io:{z}:{tmp_path / 'o.bin'}", f"in:{z}", "f32:2", "f32:64")
    err = text(p)[1]
    assert p.returncode == 2 and "kernel argument 'n' is u32, an integer" in err
    assert err.count("k100-run:") == 1  # the prefix once
    p = run("k100-run", RT_HSACO, "saxpy", "--grid", "1", "--wg", "64")
    assert p.returncode == 2 and "did you mean 'saxpy_k'?" in text(p)[1]


def test_selftest_unknown_only_is_a_usage_error():
    p = run("k100-selftest", "--only", "gemv_f32_wrap_k")
    out, err = text(p)
    assert p.returncode == 2
    assert "did you mean 'gemv_f32_warp_k'?" in err
    assert "failed" not in out + err


def test_run_names_null_pointers_and_unmapped_addresses(tmp_path):
    base = [RT_HSACO, "fill_f32_k", "--grid", "1", "--wg", "64"]
    p = run("k100-run", *base, "u64:0", "f32:1", "u32:64")
    out, err = text(p)
    assert p.returncode == 1 and "a null pointer" in err, err
    p = run("k100-run", *base, "u64:0x7f0000000000", "f32:1", "u32:64")
    out, err = text(p)
    assert p.returncode == 1 and "an unmapped address" in err, err
    # 4 MiB past a buffer: unmapped too, with the allocation it is nearest to
    p = run("k100-run", RT_HSACO, "fault_k", "--grid", "1", "--wg", "64", "out:64:" + str(tmp_path / "o.bin"))
    err = text(p)[1]
    assert p.returncode == 1 and "an unmapped address, " in err and "bytes past the end of the nearest allocation" in err, err
    # a few bytes past it: the distance alone
    p = run("k100-run", *base, "out:64:" + str(tmp_path / "o.bin"), "f32:1", "u32:64")
    err = text(p)[1]
    assert p.returncode == 1 and ", 0 bytes past the end (offset 64 of allocation" in err and "unmapped" not in err, err


def test_run_json_fault_has_the_check_report_fields(tmp_path):
    rules = tmp_path / "rules.hsaco"
    src = Path(os.environ["K100_SOURCE_DIR"]) / "tests" / "emu" / "checks" / "check_rules.s"
    assert run("k100-as", "-o", rules, src).returncode == 0
    p = run("k100-run", rules, "vmem_read_bad", "--grid", "1", "--wg", "128", "--json",
            "out:4096:" + str(tmp_path / "o.bin"))
    out, err = text(p)
    assert p.returncode == 1, err
    fault = json.loads(out)["fault"]
    assert fault["kind"] == "missing s_waitcnt" and fault["rule"] == "waitcnt.read_in_flight"
    assert fault["register"].startswith("v2") and fault["fix"] and fault["other_instruction"].startswith("global_load")
    assert isinstance(fault["other_pc"], int)


@pytest.mark.skipif(Path("/dev/kfd").exists(), reason="a DCU driver is present")
def test_hsa_backend_without_a_dcu_names_the_missing_driver_first():
    env = dict(os.environ, K100_BACKEND="hsa")
    p = subprocess.run([str(BIN / "k100-selftest"), "--only", "fill_k"], capture_output=True, env=env)
    err = text(p)[1]
    assert p.returncode != 0
    assert "K100_BACKEND=hsa: no usable DCU: /dev/kfd does not exist" in err, err
    hsa = err.find("hsa_init")
    assert hsa < 0 or err.find("/dev/kfd") < hsa  # the cause before its consequence
