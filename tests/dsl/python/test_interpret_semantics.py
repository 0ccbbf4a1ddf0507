"""k100lc_kernels.interpret alone: what k100-cc does not compile yet (f16 and
bf16 values, ballot) against hand-computed values, the ways to name a
kernel (a decorated function, source text, a .kkl path), and the faults it
reports by name (out-of-bounds index, LDS race, a barrier not every wave
reaches, division by zero, a variable read before it is assigned, a
refused construct)."""
import inspect
from pathlib import Path

import numpy as np
import pytest

import dsl_kernels_sample as sample
from k100lc_kernels import InterpretError, interpret, kernel
from k100lc_kernels.dsl_types import f32, gid, ptr, u32

KKL = Path(__file__).resolve().parents[1] / "kkl"

HALVES = '''
def halves(x: ptr[f16], y: ptr[f32], b: ptr[bf16], z: ptr[f16], n: u32):
    i = gid()
    if i < n:
        h = x[i]
        y[i * 4 + 0] = h * h + h
        y[i * 4 + 1] = f32(fma(h, h, 1))
        y[i * 4 + 2] = f32(bf16(y[i * 4 + 0]))
        y[i * 4 + 3] = f32(b[i]) * 2.0
        b[i] = bf16(f32(h) * 3.0)
        z[i] = f16(f32(h) / 3.0)
'''

BALLOT = '''
def votes(x: ptr[u32], out: ptr[u32]):
    i = gid()
    m = ballot(x[i] > 10)
    out[i * 3 + 0] = u32(m)
    out[i * 3 + 1] = u32(m >> 32)
    c = m - m
    if lane() < 8:
        c = ballot(x[i] > 10)
    out[i * 3 + 2] = u32(c)
'''


def bf16_round(x32):
    """Round-to-nearest-even float32 -> bf16 bits, by integer arithmetic."""
    b = x32.view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def test_f16_and_bf16_values():
    n = 50
    h = np.linspace(-3, 3, n).astype(np.float16)
    b = bf16_round(np.linspace(-2, 2, n).astype(np.float32))
    y, z = np.zeros(4 * n, np.float32), np.zeros(n, np.float16)
    b_in = b.copy()
    interpret(HALVES, h, y, b, z, n, grid=1)
    y = y.reshape(n, 4)
    hh = (h * h).astype(np.float16)  # each f16 operation rounds to f16
    s = (hh + h).astype(np.float16).astype(np.float32)
    assert np.array_equal(y[:, 0], s)
    fused = (h.astype(np.float64) ** 2 + 1).astype(np.float16).astype(np.float32)  # rounded once
    assert np.array_equal(y[:, 1], fused)
    assert np.array_equal(y[:, 2], (bf16_round(s).astype(np.uint32) << 16).view(np.float32))
    assert np.array_equal(y[:, 3], (b_in.astype(np.uint32) << 16).view(np.float32) * 2)
    assert np.array_equal(b, bf16_round(h.astype(np.float32) * np.float32(3)))
    third = h.astype(np.float32) * (np.float32(1) / np.float32(3))  # a / 3.0: the product with 1/3 in f32
    assert np.array_equal(z, third.astype(np.float16))


def test_ballot_over_the_active_lanes():
    x = np.arange(96, dtype=np.uint32) % 23
    out = np.zeros(96 * 3, np.uint32)
    interpret(BALLOT, x, out, grid=1, workgroup=96)
    out = out.reshape(96, 3)
    for w, (lo, hi) in enumerate(((0, 64), (64, 96))):
        bits = sum(1 << (i - lo) for i in range(lo, hi) if x[i] > 10)
        first8 = sum(1 << (i - lo) for i in range(lo, min(hi, lo + 8)) if x[i] > 10)
        assert (out[lo:hi, 0] == bits & 0xFFFFFFFF).all() and (out[lo:hi, 1] == bits >> 32).all()
        assert (out[lo:lo + 8, 2] == first8).all() and (out[lo + 8:hi, 2] == 0).all()


@kernel
def scale_by(x: ptr[f32], y: ptr[f32], n: u32, k: f32):
    i = gid()
    if i < n:
        y[i] = x[i] * k


def test_decorated_function_source_text_and_path():
    x = np.arange(70, dtype=np.float32)
    y = np.zeros(70, np.float32)
    interpret(scale_by, x, y, 70, 1.5, grid=2)
    assert np.array_equal(y, x * np.float32(1.5))
    y2 = np.zeros(70, np.float32)
    interpret(sample.squash_half, x, y2, n=70, grid=2)  # helpers from the module and from helpers=[...]
    assert np.array_equal(y2, (x * (np.float32(1) / (np.float32(1) + x))) * np.float32(0.5))
    out = np.zeros(70, np.float32)
    interpret(KKL / "vadd.kkl", x, x, out, 70, grid=2)
    interpret(str(KKL / "vadd.kkl"), x, x, out, 70, grid=2)
    assert np.array_equal(out, x + x)
    interpret((KKL / "vadd.kkl").read_text(), x, x, out, 70, grid=2, kernel="vadd")
    ro = np.ones(70, np.float32)
    ro.flags.writeable = False
    interpret(KKL / "vadd.kkl", x, x, ro, 70, grid=2)  # a read-only array is only read
    assert (ro == 1).all()


def test_out_of_bounds_names_the_parameter_and_index():
    x, y = np.zeros(60, np.float32), np.zeros(64, np.float32)
    with pytest.raises(InterpretError, match=r"load from 'a' at index 60 is out of bounds \('a' has 60"):
        interpret(KKL / "vadd.kkl", x, y, y, 64, grid=1)
    with pytest.raises(InterpretError, match=r"vadd.kkl:5: .*store into 'out' at index 60"):
        interpret(KKL / "vadd.kkl", y, y, x, 64, grid=1)
    assert (x == 0).all()  # a fault leaves the arrays as they were


def test_faults_of_the_program(monkeypatch):
    race = '''
def racy(y: ptr[f32]):
    s = lds(64)
    t = tid()
    s[t & 63] = 1.0
    barrier()
    y[t] = s[t & 63]
'''
    with pytest.raises(InterpretError, match=r"LDS race on 's'\[0\]"):
        interpret(race, np.zeros(128, np.float32), grid=1, workgroup=128)
    interpret(race, np.zeros(64, np.float32), grid=1, workgroup=64)  # one wave: no race
    interpret(race, np.zeros(128, np.float32), grid=1, workgroup=128, lds_check=False)
    divergent = '''
def split_barrier(y: ptr[f32]):
    t = tid()
    if t < 64:
        barrier()
    y[t] = 1.0
'''
    with pytest.raises(InterpretError, match=r"barrier\(\) is reached by wave\(s\) \[0\] but not by wave\(s\) \[1\]"):
        interpret(divergent, np.zeros(128, np.float32), grid=1, workgroup=128)
    divide = '''
def div(a: ptr[u32], b: ptr[u32]):
    i = gid()
    a[i] = a[i] // b[i]
'''
    with pytest.raises(InterpretError, match=r":4: integer division by zero \(work-item 2\)"):
        interpret(divide, np.ones(64, np.uint32), np.array([1, 1, 0] + [1] * 61, np.uint32), grid=1)
    unassigned = '''
def maybe(y: ptr[u32]):
    i = gid()
    if i < 10:
        v = i
    y[i] = v
'''
    with pytest.raises(InterpretError, match=r"'v' is read before it is assigned on this path \(work-item 10\)"):
        interpret(unassigned, np.zeros(64, np.uint32), grid=1)
    endless = '''
def spin(y: ptr[u32]):
    while 1:
        y[0] = 1
'''
    import k100lc_kernels.interpret_compile as front
    monkeypatch.setattr(front, "MAX_TRIPS", 1000)  # the default bound takes seconds to reach
    with pytest.raises(InterpretError, match="endless loop"):
        interpret(endless, np.zeros(1, np.uint32), grid=1, workgroup=1)


def test_refused_programs_name_the_line():
    with pytest.raises(InterpretError, match=r"<source>:4:9: .*'t' is u32 .* the value is s32"):
        interpret('''
def bad(y: ptr[s32]):
    t = gid()
    t = t - s32(1)
''', np.zeros(1, np.int32), grid=1)
    with pytest.raises(InterpretError, match=r"chained comparisons"):
        interpret('''
def bad(y: ptr[u32], n: u32):
    if 0 < n < 3:
        y[0] = 1
''', np.zeros(1, np.uint32), 1, grid=1)

    @kernel
    def bad_kernel(y: ptr[f32]):
        y[0] = undefined_name  # noqa: F821 (the error under test)
    line = inspect.getsourcelines(bad_kernel.fn)[1] + 2
    with pytest.raises(InterpretError, match=rf"test_interpret_semantics.py:{line}:.*unknown name 'undefined_name'"):
        interpret(bad_kernel, np.zeros(1, np.float32), grid=1)


def test_argument_errors():
    with pytest.raises(TypeError, match=r"parameter 'a' \(ptr\[f32\]\) takes a float32 array, not float64"):
        interpret(KKL / "vadd.kkl", np.zeros(4), np.zeros(4, np.float32), np.zeros(4, np.float32), 4, grid=1)
    with pytest.raises(ValueError, match=r"parameter 'n' \(u32\): -1 is out of range"):
        interpret(KKL / "vadd.kkl", *[np.zeros(4, np.float32)] * 3, -1, grid=1)
    with pytest.raises(ValueError, match="choose one with kernel="):
        interpret(HALVES + BALLOT, grid=1)
