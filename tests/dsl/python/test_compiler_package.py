"""k100lc_compiler over the built k100-cc: outputs of compile_source and
compile_file, `only`, CompileError's diagnostics (a region-rule error and a
syntax error), the build/list command, and a missing k100-cc named.

Run by CTest with K100_BUILD_DIR (bin/k100-cc)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from k100lc_compiler import CompileError, compile_file, compile_source, kernel_names

KKL = Path(__file__).resolve().parents[1] / "kkl"
PYTHON_DIR = Path(__file__).resolve().parents[3] / "python"

TWO = """\
# two kernels and a helper
@inline
def sq(x: f32) -> f32:
    return x * x

def first(a: ptr[f32], n: u32):
    i = gid()
    if i < n:
        a[i] = sq(a[i])

def second(a: ptr[f32], b: ptr[f32], n: u32, s: f32):
    i = gid()
    if i < n:
        b[i] = a[i] * s
"""

REGION = """\
def count_positive(x: ptr[f32], n: u32):
    i = gid()
    hits = 0
    if i < n:
        if x[i] > 0.0:
            hits = hits + 1
"""

SYNTAX = """\
def broken(x: ptr[f32], n: u32):
    i = gid()
    x[i] = (1.0 +
"""


def test_compile_source_writes_three_files_per_kernel_in_source_order(tmp_path):
    out = tmp_path / "new" / "dir"
    paths = compile_source(TWO, out)
    assert paths == [out / "first.hsaco", out / "second.hsaco"]
    for name in ("first", "second"):
        assert (out / f"{name}.hsaco").read_bytes()[:4] == b"\x7fELF"
        assert (out / f"{name}.s").read_text().rstrip().endswith("s_endpgm")
        cat = json.loads((out / f"{name}.catalog.json").read_text())
        entry = cat["kernels"][0]
        assert entry["name"] == entry["lookup"] == name
    explicit = [a for a in cat["kernels"][0]["args"] if not a["kind"].startswith("hidden")]
    assert [a["name"] for a in explicit] == ["a", "b", "n", "s"]
    assert "v_mul_f32" in (out / "first.s").read_text()  # the helper inlined
    assert not (out / "sq.hsaco").exists()  # a helper is no kernel


def test_only_keeps_one_kernel_and_no_match_is_an_error(tmp_path):
    assert compile_source(TWO, tmp_path, only="second") == [tmp_path / "second.hsaco"]
    assert not (tmp_path / "first.hsaco").exists()
    assert kernel_names(source=TWO) == ["first", "second"]
    with pytest.raises(CompileError, match="no kernel named 'third'"):
        compile_source(TWO, tmp_path / "x", only="third")


def test_compile_file(tmp_path):
    paths = compile_file(KKL / "row_sumsq.kkl", tmp_path)
    assert paths == [tmp_path / "row_sumsq.hsaco"]
    assert (tmp_path / "row_sumsq.s").exists() and (tmp_path / "row_sumsq.catalog.json").exists()
    with pytest.raises(FileNotFoundError, match="nothing.kkl"):
        compile_file(tmp_path / "nothing.kkl", tmp_path)


def test_region_rule_error_fields_and_caret(tmp_path):
    src = tmp_path / "count.kkl"
    src.write_text(REGION)
    with pytest.raises(CompileError) as e:
        compile_file(src, tmp_path / "out")
    d = e.value.diagnostics[0]
    assert (d.file, d.line, d.col) == (str(src), 6, 13)
    assert "uniform variable 'hits'" in d.message and "created at line 3" in d.message
    assert d.source_line == "            hits = hits + 1"
    assert d.caret == " " * 12 + "^"
    assert str(e.value).startswith(f"{src}:6:13: error: uniform variable 'hits'")
    assert not (tmp_path / "out" / "count_positive.hsaco").exists()


def test_syntax_error_from_source_names_the_given_file(tmp_path):
    with pytest.raises(CompileError) as e:
        compile_source(SYNTAX, tmp_path, filename="mine.kkl")
    d = e.value.diagnostics[0]
    assert (d.file, d.line, d.col) == ("mine.kkl", 3, 12)
    assert "never closed" in d.message
    assert d.source_line == "    x[i] = (1.0 +"
    assert d.caret == " " * 11 + "^"


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "k100lc_compiler", *args], capture_output=True, text=True,
                          cwd=PYTHON_DIR, env=env)


def test_command_build_and_list(tmp_path):
    (tmp_path / "two.kkl").write_text(TWO)
    r = _cli("list", str(tmp_path / "two.kkl"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["first", "second"]
    r = _cli("build", str(tmp_path / "two.kkl"), "-o", str(tmp_path / "o"), "--kernel", "second", "--emit-asm")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == str(tmp_path / "o" / "second.hsaco")
    assert "\n".join(lines[1:]) + "\n" == (tmp_path / "o" / "second.s").read_text()
    (tmp_path / "bad.kkl").write_text(REGION)
    r = _cli("build", str(tmp_path / "bad.kkl"), "-o", str(tmp_path / "o"))
    assert r.returncode == 1
    assert f"{tmp_path / 'bad.kkl'}:6:13: error: uniform variable 'hits'" in r.stderr
    assert "\n" + " " * 12 + "^" in r.stderr


def test_command_build_default_directory(tmp_path):
    (tmp_path / "two.kkl").write_text(TWO)
    r = subprocess.run([sys.executable, "-m", "k100lc_compiler", "build", "two.kkl"], capture_output=True, text=True,
                       cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(PYTHON_DIR)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["build/compiler/first.hsaco", "build/compiler/second.hsaco"]
    assert (tmp_path / "build" / "compiler" / "second.catalog.json").exists()


def test_missing_compiler_is_named(tmp_path):
    env = {**os.environ, "K100_BUILD_DIR": str(tmp_path / "no-build")}
    code = ("import k100lc_compiler as c\n"
            "try:\n    c.compile_source('def k(a: ptr[f32]):\\n    pass\\n', 'out')\n"
            "except c.CompileError as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PYTHON_DIR, env=env)
    assert r.returncode == 0, r.stderr
    assert "k100-cc is not built" in r.stdout
    assert str(tmp_path / "no-build" / "bin" / "k100-cc") in r.stdout
    assert f"K100_BUILD_DIR={tmp_path / 'no-build'}" in r.stdout
    r = _cli("list", str(KKL / "vadd.kkl"), env=env)
    assert r.returncode == 1 and "k100-cc is not built" in r.stderr
