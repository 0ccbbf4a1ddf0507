"""Kernels written in the kernel language as decorated Python functions (used by test_kernel_decorator.py)."""
from k100lc_kernels import kernel
from k100lc_kernels.dsl_types import bid, f32, fabs, fma, gid, lane, ptr, s32, u32

BLOCK = 64      # module constants a kernel reads are compiled in as constants
SCALE = 0.25


@kernel
def vadd(a: ptr[f32], b: ptr[f32], out: ptr[f32], n: u32):
    """out = a + b"""
    i = gid()
    if i < n:
        out[i] = a[i] + b[i]


@kernel
def saxpy(x: ptr[f32], y: ptr[f32], n: u32, alpha: f32):
    i = gid()
    if i < n:
        y[i] = fma(alpha, x[i], y[i])


@kernel
def add_rows(m: ptr[f32], bias: ptr[f32], rows: u32, cols: u32):
    c = gid(0)
    r = gid(1)
    if c < cols and r < rows:
        m[r * cols + c] = m[r * cols + c] + bias[r] * f32(c)


@kernel.inline
def squash(v: f32) -> f32:
    return v / (1.0 + fabs(v))


def halve(v: f32) -> f32:
    return v * 0.5


@kernel(helpers=[halve])
def squash_half(x: ptr[f32], y: ptr[f32], n: u32):
    i = gid()
    if i < n:
        y[i] = halve(squash(x[i]))


@kernel
def counts_in_varying_if(x: ptr[f32], flags: ptr[f32], n: u32):
    i = gid()
    hits = 0
    if i < n:
        if x[i] > 0.0:
            hits = hits + 1


@kernel
def offset_s32(x: ptr[s32], y: ptr[s32], n: u32, d: s32):
    i = gid()
    if i < n:
        y[i] = x[i] + d


@kernel
def scaled_rows(x: ptr[f32], y: ptr[f32], cols: u32):
    r = bid()
    for c in range(lane(), cols, BLOCK):
        y[r * cols + c] = x[r * cols + c] * SCALE
