"""k100lc_compiler: the kernel language (.kkl) from Python.

A thin binding over the built ``k100-cc`` (docs/DSL.md, docs/TOOLS.md): the
compiler itself is the C++ one; this package runs it and turns its
diagnostics into ``CompileError``.

    from k100lc_compiler import compile_file, CompileError
    paths = compile_file("k.kkl", "out")          # [out/<kernel>.hsaco, ...] in source order

For each kernel ``<name>`` the output directory gets ``<name>.s``,
``<name>.hsaco`` and ``<name>.catalog.json``. ``k100-cc`` is found in
``<build>/bin`` (the build directory of ``k100lc_kernels._paths``:
``K100_BUILD_DIR`` or ``<repo>/build``) or in ``<prefix>/bin`` of an installed
package.
"""
from .driver import CompileError, Diagnostic, compile_file, compile_source, compiler_path, kernel_names

__all__ = ["compile_source", "compile_file", "CompileError", "Diagnostic", "kernel_names", "compiler_path"]
