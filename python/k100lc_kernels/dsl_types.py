"""The kernel language's type names as Python objects, so a function written
in the language (docs/DSL.md) is also valid Python and can be decorated with
``k100lc_kernels.kernel``:

    from k100lc_kernels import kernel
    from k100lc_kernels.dsl_types import ptr, f32, u32

    @kernel
    def vadd(a: ptr[f32], b: ptr[f32], out: ptr[f32], n: u32):
        ...

``from k100lc_kernels.dsl_types import *`` also defines the built-ins
(``gid``, ``fma``, ...) so linters see them; they run only in compiled code.
Only the names matter: the compiler reads the function's source text. Each
scalar type knows its NumPy dtype (``bf16`` has none in NumPy: its arrays are
``uint16`` bit patterns), which the decorator uses to check arrays and pack
scalars.
"""
from __future__ import annotations


class ScalarType:
    """One of the language's element or scalar types."""

    def __init__(self, name: str, numpy_dtype: str, bits: int, kind: str):
        self.name, self.numpy_dtype, self.bits, self.kind = name, numpy_dtype, bits, kind  # kind: f, u or s

    def __repr__(self) -> str:
        return self.name


class PointerType:
    """``ptr[T]``: a global buffer of T."""

    def __init__(self, element: ScalarType):
        self.element = element

    def __repr__(self) -> str:
        return f"ptr[{self.element.name}]"


class _Ptr:
    def __getitem__(self, element):
        if not isinstance(element, ScalarType):
            raise TypeError(f"ptr[...] takes one of the element types {', '.join(ELEMENT_TYPES)}, not {element!r}")
        return PointerType(element)

    def __repr__(self) -> str:
        return "ptr"


ptr = _Ptr()
f32 = ScalarType("f32", "float32", 32, "f")
f16 = ScalarType("f16", "float16", 16, "f")
bf16 = ScalarType("bf16", "uint16", 16, "f")
u32 = ScalarType("u32", "uint32", 32, "u")
s32 = ScalarType("s32", "int32", 32, "s")
u16 = ScalarType("u16", "uint16", 16, "u")
s16 = ScalarType("s16", "int16", 16, "s")
u8 = ScalarType("u8", "uint8", 8, "u")
s8 = ScalarType("s8", "int8", 8, "s")
u64 = ScalarType("u64", "uint64", 64, "u")

ELEMENT_TYPES = {t.name: t for t in (f32, f16, bf16, u32, s32, u16, s16, u8, s8)}
PARAMETER_SCALARS = {t.name: t for t in (u32, s32, f32)}  # scalar parameters the language accepts


# The built-ins (docs/DSL.md, "Built-ins"), so linters see them defined; they
# exist only in compiled code, and calling one from Python says so.
BUILTINS = ("gid", "bid", "lid", "tid", "lane", "exp", "sqrt", "rsqrt", "fabs", "floor", "ceil", "trunc", "rint",
            "fract", "fma", "ubyte", "load16", "f16_to_f32", "atomic_add", "atomic_min", "atomic_max",
            "atomic_xchg", "atomic_cas", "shuffle", "broadcast", "wave_sum", "wave_max", "wave_min", "ballot",
            "dot2", "dot4", "dot8", "lds", "barrier", "static_range")


def _builtin(name: str):
    def run_on_the_device_only(*args, **kwargs):
        raise RuntimeError(f"{name}() is a built-in of the kernel language: it runs only inside a kernel "
                           "compiled by @kernel (k100lc_kernels.kernel), not in Python")
    run_on_the_device_only.__name__ = run_on_the_device_only.__qualname__ = name
    return run_on_the_device_only


globals().update({name: _builtin(name) for name in BUILTINS})

__all__ = ["ptr", "f32", "f16", "bf16", "u32", "s32", "u16", "s16", "u8", "s8", "u64",
           "ScalarType", "PointerType", *BUILTINS]
