"""k100lc_kernels.kernel on the emulator: decorated kernels (vadd, saxpy with
an f32 scalar, a 2-D grid, inline helpers) against NumPy, compile errors at
the .py file's lines, and argument errors naming the parameter.

Run by CTest with K100_BUILD_DIR (bin/k100-cc, libfm_engine.so) and K100_BACKEND=emu."""
import inspect

import numpy as np
import pytest

import dsl_kernels_sample as sample
from k100lc_compiler import CompileError
from k100lc_kernels import Runtime, kernel
from k100lc_kernels.dsl_types import f16, f32, gid, ptr, u32

rng = np.random.default_rng(7)


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, l in enumerate(lines) if text in l)


def test_vadd_against_numpy():
    n = 1000  # not a multiple of 64: the tail is guarded
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, -7.0, np.float32)
    sample.vadd(a, b, out, n, grid=(n + 63) // 64)
    assert np.array_equal(out, a + b)
    a_before = a.copy()
    sample.vadd(a, b, out, n, grid=(n + 63) // 64)  # compiled once: the second call reuses it
    assert np.array_equal(a, a_before)  # inputs come back unchanged


def test_saxpy_with_an_f32_scalar_and_device_pointers():
    n = 333
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    expect = (np.float32(0.37) * x).astype(np.float32) + y  # fma rounds once; compare with a tolerance
    got = y.copy()
    sample.saxpy(x, got, n, 0.37, grid=(n + 63) // 64, workgroup=64)
    np.testing.assert_allclose(got, expect, rtol=1e-6, atol=1e-6)
    # device pointers, by keyword, on an explicit runtime
    rt = Runtime(hsaco=sample.saxpy.compile())
    px, py = rt.alloc(x.nbytes), rt.alloc(y.nbytes)
    rt.upload(px, x)
    rt.upload(py, y)
    sample.saxpy(px, py, n=n, alpha=2, grid=(n + 63) // 64, rt=rt)  # an int for an f32 is its value
    np.testing.assert_allclose(rt.download(py, n), 2 * x + y, rtol=1e-6, atol=1e-6)
    rt.free(px)
    rt.free(py)


def test_two_dimensional_grid():
    rows, cols = 5, 70
    m = rng.standard_normal((rows, cols), dtype=np.float32)
    bias = rng.standard_normal(rows, dtype=np.float32)
    expect = m + bias[:, None] * np.arange(cols, dtype=np.float32)[None, :]
    sample.add_rows(m, bias, rows, cols, grid=((cols + 15) // 16, (rows + 3) // 4), workgroup=(16, 4))
    np.testing.assert_allclose(m, expect, rtol=1e-6, atol=1e-6)


def test_inline_helpers_of_the_module_and_given_ones():
    n = 100
    x = rng.standard_normal(n, dtype=np.float32) * 4
    y = np.zeros(n, np.float32)
    sample.squash_half(x, y, n, grid=2)
    np.testing.assert_allclose(y, 0.5 * x / (1 + np.abs(x)), rtol=1e-6)
    src = sample.squash_half.source()
    assert "@inline\ndef squash(" in src and "def halve(" in src


def test_a_kernel_defined_in_a_function_and_a_second_kernel_of_the_same_name():
    @kernel
    def vadd(a: ptr[f32], b: ptr[f32], out: ptr[f32], n: u32):
        i = gid()
        if i < n:
            out[i] = a[i] - b[i]  # not the module's vadd: both live in the engine

    a, b = np.arange(64, dtype=np.float32), np.ones(64, np.float32)
    out = np.zeros(64, np.float32)
    vadd(a, b, out, 64, grid=1)
    assert np.array_equal(out, a - b)
    sample.vadd(a, b, out, 64, grid=1)
    assert np.array_equal(out, a + b)
    assert vadd.symbol != sample.vadd.symbol


def test_compile_error_at_the_py_file_line():
    with pytest.raises(CompileError) as e:
        sample.counts_in_varying_if(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, grid=1)
    d = e.value.diagnostics[0]
    fn = sample.counts_in_varying_if.fn
    assert d.file == inspect.getsourcefile(fn)
    assert d.line == _line_of(fn, "hits = hits + 1")
    assert d.col == 13
    assert f"created at line {_line_of(fn, 'hits = 0')}" in d.message
    assert d.source_line.strip() == "hits = hits + 1"
    assert d.caret == " " * 12 + "^"


def test_syntax_error_in_a_nested_kernel_maps_line_and_column():
    step = 2  # a constant line precedes the function in the compiled text

    @kernel
    def broken(x: ptr[f32], n: u32):
        i = gid()
        x[i] = (1.0 +
               f32(step))
        x[i] = "text"

    with pytest.raises(CompileError) as e:
        broken(np.zeros(4, np.float32), 4, grid=1)
    d = e.value.diagnostics[0]
    line = _line_of(broken.fn, 'x[i] = "text"')
    assert (d.file, d.line) == (__file__, line)
    assert d.col == 16  # indented by 8 in this file: the column counts from the file's first column
    assert d.source_line == '        x[i] = "text"'
    assert d.caret == " " * 15 + "^"
    assert "string" in d.message
    assert broken.source().startswith("step = 2\n")


def test_argument_errors_name_the_parameter():
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match=r"saxpy\(x, y, n, alpha\) takes 4 arguments, 5 given"):
        sample.saxpy(x, x, 8, 1.0, 2, grid=1)
    with pytest.raises(TypeError, match=r"missing argument for 'alpha'"):
        sample.saxpy(x, x, 8, grid=1)
    with pytest.raises(TypeError, match=r"parameter 'y' \(ptr\[f32\]\) takes a float32 array, not float64"):
        sample.saxpy(x, np.zeros(8), 8, 1.0, grid=1)
    with pytest.raises(TypeError, match=r"parameter 'n' \(u32\) takes an integer, not the float 8.0"):
        sample.saxpy(x, x, 8.0, 1.0, grid=1)
    with pytest.raises(ValueError, match=r"parameter 'n' \(u32\): -1 is out of range"):
        sample.saxpy(x, x, -1, 1.0, grid=1)
    with pytest.raises(TypeError, match=r"parameter 'alpha' \(f32\) takes a number, not str"):
        sample.saxpy(x, x, 8, "1", grid=1)
    with pytest.raises(TypeError, match=r"parameter 'x' \(ptr\[f32\]\) takes a NumPy array or a device pointer"):
        sample.saxpy([1.0], x, 8, 1.0, grid=1)
    with pytest.raises(TypeError, match=r"has no parameter 'beta'"):
        sample.saxpy(x, x, 8, 1.0, beta=2, grid=1)
    with pytest.raises(ValueError, match="grid must be an int or a 2- or 3-tuple"):
        sample.saxpy(x, x, 8, 1.0, grid=(1, 1, 1, 1))


def test_negative_s32_scalar_and_a_read_only_array_is_not_written_back():
    n = 70
    x = np.arange(-35, 35, dtype=np.int32)
    x.flags.writeable = False
    y = np.zeros(n, np.int32)
    sample.offset_s32(x, y, n, -5, grid=2)
    assert np.array_equal(y, x - 5)
    with pytest.raises(ValueError, match=r"parameter 'd' \(s32\): 2147483648 is out of range"):
        sample.offset_s32(x, y, n, 1 << 31, grid=2)
    with pytest.raises(TypeError, match=r"parameter 'x' \(ptr\[s32\]\) takes a int32 array, not uint32"):
        sample.offset_s32(x.astype(np.uint32), y, n, 1, grid=2)


def test_builtins_named_for_python_refuse_to_run_there():
    with pytest.raises(RuntimeError, match=r"gid\(\) is a built-in of the kernel language"):
        gid()


def test_module_and_enclosing_constants_are_compiled_in():
    rows, cols = 3, 150
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    y = np.zeros_like(x)
    sample.scaled_rows(x, y, cols, grid=rows)
    assert np.array_equal(y, x * np.float32(0.25))
    assert "BLOCK = 64\nSCALE = 0.25\n" in sample.scaled_rows.source()

    offset = -3

    @kernel
    def shifted(a: ptr[f32], n: u32):
        i = gid()
# a comment at column 0 inside an indented function
        if i < n:
            a[i] = a[i] + f32(offset)

    a = np.arange(10, dtype=np.float32)
    shifted(a, 10, grid=1)
    assert np.array_equal(a, np.arange(10, dtype=np.float32) - 3)

    big = 1 << 40

    @kernel
    def too_big(a: ptr[u32]):
        a[gid()] = big

    with pytest.raises(TypeError, match=r"the constant big = 1099511627776 does not fit 32 bits"):
        too_big(np.zeros(64, np.uint32), grid=1)


def test_an_error_in_a_given_helper_is_at_the_helper_line():
    def bad_helper(v: f32) -> f32:
        return v + "x"

    @kernel(helpers=[bad_helper])
    def uses(a: ptr[f32], n: u32):
        i = gid()
        if i < n:
            a[i] = bad_helper(a[i])

    with pytest.raises(CompileError) as e:
        uses(np.zeros(4, np.float32), 4, grid=1)
    d = e.value.diagnostics[0]
    assert (d.file, d.line) == (__file__, _line_of(bad_helper, 'return v + "x"'))
    assert d.source_line.strip() == 'return v + "x"' and d.caret.strip() == "^"
    assert d.source_line[d.col - 1] == '"'


def test_a_missing_compiler_is_named_by_the_decorator(tmp_path):
    import os
    import subprocess
    import sys
    here = os.path.dirname(__file__)
    code = ("import numpy as np, dsl_kernels_sample as s\n"
            "try:\n    s.vadd(np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32), 4, grid=1)\n"
            "except Exception as e:\n    print(type(e).__name__, e)\n")
    env = {**os.environ, "K100_BUILD_DIR": str(tmp_path / "none"),
           "PYTHONPATH": os.pathsep.join([os.path.join(here, "..", "..", "..", "python"), here])}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("CompileError the kernel compiler k100-cc is not built")
    assert str(tmp_path / "none" / "bin" / "k100-cc") in r.stdout


def test_a_function_without_source_text_is_refused_by_name():
    scope = {"kernel": kernel, "ptr": ptr, "f32": f32}
    exec("@kernel\ndef made_by_exec(a: ptr[f32]):\n    pass\n", scope)
    with pytest.raises(TypeError, match=r"the source of 'made_by_exec' is not available"):
        scope["made_by_exec"](np.zeros(4, np.float32), grid=1)
    with pytest.raises(TypeError, match="@kernel decorates a function, not int"):
        kernel(3)


def test_an_error_on_the_def_line_keeps_its_column():
    @kernel
    def wide(a: ptr[f32], b: f16):  # a scalar f16 parameter is refused
        pass

    with pytest.raises(CompileError) as e:
        wide(np.zeros(4, np.float32), 0, grid=1)
    d = e.value.diagnostics[0]
    assert d.line == _line_of(wide.fn, "def wide(")
    assert d.source_line[d.col - 1:].startswith(("b: f16", "f16")), d
    assert "wide_k" not in str(e.value)
