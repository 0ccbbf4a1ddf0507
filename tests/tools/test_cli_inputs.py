"""Inputs that are not what they claim, given to the tools, the runtime and
Python as a user gives them: code objects for another processor, paths that
are directories, FIFOs or missing, sizes that do not fit the dispatch's 32
bits, and a kernel that runs for a long time on the emulator.

Environment: K100_TOOLS_BIN, K100_SOURCE_DIR, K100_BUILD_DIR (CTest sets them).
"""
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(os.environ["K100_TOOLS_BIN"])
BUILD = Path(os.environ["K100_BUILD_DIR"])
SOURCE = Path(os.environ["K100_SOURCE_DIR"])
RT_HSACO = BUILD / "tests" / "runtime" / "runtime_test.hsaco"
SPIN = BUILD / "tests" / "runtime" / "spin.hsaco"
PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable

FILL = """.text
.globl fill_k
.p2align 8
fill_k:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_mov_b32 v1, 0
  v_mov_b32 v0, 7
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v0, s[2:3]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel fill_k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .k100_arg out, global_buffer, u32*, write_only
.end_amdhsa_kernel
"""


def run(tool, *args, timeout=60, **env):
    e = dict(os.environ, K100_BACKEND="emu", **env)
    p = subprocess.run([str(BIN / tool), *map(str, args)], capture_output=True, env=e, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def python(code, timeout=120, **env):
    e = dict(os.environ, PYTHONPATH=str(SOURCE / "python"), K100_BACKEND="emu", RT_HSACO="", **env)
    p = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=e, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def gfx906(tmp_path_factory):
    d = tmp_path_factory.mktemp("objects")
    src = d / "fill.s"
    src.write_text(FILL)
    out = d / "fill906.hsaco"
    assert run("k100-as", "-mcpu=gfx906", "-o", out, src)[0] == 0
    return out


def with_e_flags(src: Path, dst: Path, flags: int) -> Path:
    """The object with another processor (and feature bits) in its ELF header."""
    b = bytearray(src.read_bytes())
    struct.pack_into("<I", b, 0x30, flags)
    dst.write_bytes(bytes(b))
    return dst


# ------------------------------------------------------- another processor

# e_flags as LLVM writes them (mach | xnack bits 8-9 | sramecc bits 10-11)
FOREIGN = {"gfx900": 0x52C & ~0x400, "gfx908": 0x530, "gfx90a": 0x53F, "gfx1030": 0x36, "gfx1100": 0x41}


@pytest.mark.parametrize("processor", sorted(FOREIGN))
def test_every_tool_refuses_a_code_object_for_another_processor(gfx906, tmp_path, processor):
    obj = with_e_flags(gfx906, tmp_path / f"{processor}.hsaco", FOREIGN[processor])
    want = f"a code object for {processor}"
    for argv in (["k100-run", obj, "fill_k", "--grid", "1", "--wg", "64", f"out:4:{tmp_path / 'o.bin'}"],
                 ["k100-objdump", "-d", obj], ["k100-objdump", "-h", obj], ["k100-catalog", obj],
                 ["k100-link", "-o", tmp_path / "l.hsaco", obj]):
        rc, out, err = run(*argv)
        assert rc == 1, (argv, rc, err)
        assert want in err and "gfx906 and gfx926" in err, (argv, err)
        assert "Disassembly" not in out
    rc, out, err = python(f"from k100lc_kernels import Runtime\nRuntime({str(obj)!r})\n")
    assert rc != 0 and want in err and "gfx906 and gfx926" in err, err
    assert "Traceback" in err and "RuntimeError" in err  # an exception the caller can catch, not a crash


@pytest.mark.parametrize("flags", [0x72F, 0x62F, 0xE2F, 0x52F])  # gfx906:xnack+, xnack-, sramecc+:xnack-, any
def test_any_feature_setting_of_a_toolkit_processor_runs(gfx906, tmp_path, flags):
    obj = with_e_flags(gfx906, tmp_path / "f.hsaco", flags)
    rc, out, err = run("k100-run", obj, "fill_k", "--grid", "1", "--wg", "64", f"out:4:{tmp_path / 'o.bin'}")
    assert rc == 0, err
    assert (tmp_path / "o.bin").read_bytes() == struct.pack("<I", 7)


# --------------------------------------------- directories, FIFOs, missing files

def bad_paths(tmp_path):
    d = tmp_path / "a_directory"
    d.mkdir()
    fifo = tmp_path / "a_fifo"
    os.mkfifo(fifo)
    gone = tmp_path / "dangling"
    gone.symlink_to(tmp_path / "nowhere")
    return [(d, "is a directory"), (fifo, "is a FIFO"), (gone, "No such file or directory")]


def commands(path, tmp_path):
    out = tmp_path / "out.hsaco"
    return [["k100-as", path], ["k100-as", "-o", out, path], ["k100-objdump", "-d", path], ["k100-objdump", "-h", path],
            ["k100-catalog", path], ["k100-link", "-o", out, path],
            ["k100-run", path, "fill_k", "--grid", "1", "--wg", "64", "u64:0"],
            ["k100-run", RT_HSACO, "fill_f32_k", "--grid", "1", "--wg", "64", f"in:{path}", "f32:1", "u32:1"]]


def test_a_directory_fifo_or_missing_path_is_one_line_naming_it_exit_1(tmp_path):
    for path, what in bad_paths(tmp_path):
        for argv in commands(path, tmp_path):
            rc, out, err = run(*argv, timeout=30)  # a FIFO read would wait for a writer: the timeout catches it
            assert rc == 1, (argv, rc, err)
            lines = err.strip().splitlines()
            assert len(lines) == 1 and str(path) in lines[0] and what in lines[0], (argv, err)
            assert "Traceback" not in err and "terminate" not in err
    rc, out, err = python(f"from k100lc_kernels import Runtime\nRuntime({str(tmp_path / 'a_directory')!r})\n")
    assert rc != 0 and "a_directory': is a directory" in err and "RuntimeError" in err, err


def test_usage_errors_stay_exit_2():
    assert run("k100-objdump", "-d")[0] == 2  # no input
    assert run("k100-catalog")[0] == 2
    assert run("k100-run", RT_HSACO)[0] == 2


def test_standard_input_as_dev_stdin_is_read_even_as_a_pipe(tmp_path):
    p = subprocess.run([str(BIN / "k100-as"), "-o", str(tmp_path / "s.hsaco"), "/dev/stdin"], input=FILL.encode(),
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "s.hsaco").read_bytes()[:4] == b"\x7fELF"


# ----------------------------------------------------- sizes beyond 32 bits

def test_k100_run_refuses_a_grid_whose_work_items_pass_32_bits(tmp_path):
    base = [RT_HSACO, "fill_f32_k", "--wg", "64", f"out:4:{tmp_path / 'o.bin'}", "f32:1", "u32:1"]
    rc, out, err = run("k100-run", *base, "--grid", "100000000")  # 6.4e9 work-items: wrapped before
    assert rc == 2 and "over the dispatch's 2^32-1" in err, err
    rc, out, err = run("k100-run", *base, "--grid", str(1 << 32))
    assert rc == 2 and "1..2^32-1" in err, err
    rc, out, err = run("k100-run", RT_HSACO, "fill_f32_k", "--grid", "1", "--wg", "64,64",
                       f"out:4:{tmp_path / 'o.bin'}", "f32:1", "u32:1")
    assert rc == 2 and "over 1024 work-items" in err, err


def test_python_refuses_grid_and_workgroup_values_beyond_32_bits():
    code = f"""
from k100lc_kernels import Runtime
from k100lc_kernels.runtime import LaunchPlan
rt = Runtime({str(RT_HSACO)!r})
y = rt.alloc(256)
calls = [lambda: rt.launch("fill_f32_k", 1 << 32, 64, [y, 1.0, 1]),
         lambda: rt.launch("fill_f32_k", 1, 1 << 33, [y, 1.0, 1]),
         lambda: rt.launch3d("fill_f32_k", 1, 1 << 32, 1, 64, 1, 1, [y, 1.0, 1]),
         lambda: rt.launch_dyn("fill_f32_k", 1 << 32, 1, 64, 1, [y, 1.0, 1]),
         lambda: LaunchPlan(rt, [("fill_f32_k", 1 << 32, 64, [y, 1.0, 1])])]
for c in calls:
    try:
        c()
        print("accepted")
    except ValueError as e:
        print("refused:", e)
rt.sync()
"""
    rc, out, err = python(code)
    assert rc == 0, err
    lines = out.splitlines()
    assert len(lines) == 5 and all(l.startswith("refused:") and "does not fit 32 bits" in l for l in lines), out
    assert "launch: grid 4294967296" in lines[0] and "launch: workgroup 8589934592" in lines[1]
    assert "grid y" in lines[2]


# --------------------------------------------- a dispatch that runs for long

HOW_TO = ["K100_EMU_BUDGET=N", "Runtime.instruction_budget = N", "fm_set_budget(N)",
          "k100::Runtime::set_instruction_budget(N)", "k100-run --budget N"]


def test_a_long_dispatch_says_so_once_and_how_to_change_the_budget():
    # K100_EMU_NOTICE moves the 5 s threshold down so that the test stays short; 10^8
    # wave-instructions take well over 0.2 s on any machine this runs on
    rc, out, err = run("k100-run", SPIN, "spin_k", "--grid", "1", "--wg", "64", "--budget", "100000000", "u32:0",
                       timeout=300, K100_EMU_NOTICE="0.2")
    assert rc == 1
    notice = [l for l in err.splitlines() if "is still running after" in l]
    assert len(notice) == 1, err
    assert "kernel 'spin_k'" in notice[0] and "wave-instructions executed so far" in notice[0]
    assert "of its budget of 100000000" in notice[0]
    for h in HOW_TO:
        assert err.count(h) == 2, (h, err)  # in the notice and in the fault's hint
    # the default threshold is 5 s: a short kernel says nothing
    rc, out, err = run("k100-run", SPIN, "spin_k", "--grid", "1", "--wg", "64", "u32:1000")
    assert rc == 0 and "still running" not in err, err
    rc, out, err = run("k100-run", SPIN, "spin_k", "--grid", "1", "--wg", "64", "u32:1", K100_EMU_NOTICE="soon")
    assert rc == 2 and "K100_EMU_NOTICE='soon' is not a number of seconds" in err


def test_python_sees_the_notice_and_a_hint_that_names_python():
    code = (f"from k100lc_kernels import Runtime\nrt = Runtime({str(SPIN)!r}, instruction_budget=100_000_000)\n"
            "rt.launch('spin_k', 1, 64, [0])\n"
            "try:\n    rt.sync()\nexcept RuntimeError as e:\n    print('fault:', e)\n")
    rc, out, err = python(code, timeout=300, K100_EMU_NOTICE="0.2")
    assert rc == 0, err
    assert err.count("is still running after") == 1, err
    assert "Runtime.instruction_budget = N (Python)" in err
    assert "instruction budget of 100000000" in out and "Runtime.instruction_budget = N (Python)" in out, out
