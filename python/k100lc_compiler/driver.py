"""Runs the built k100-cc and reads its outputs and diagnostics.

No second compiler: the source goes to ``k100-cc build`` (standard input or
the file), the kernels it writes are returned by path, and its diagnostics
(``FILE:LINE:COL: error: MESSAGE``, the source line, a caret line) become
``Diagnostic`` records of a ``CompileError``.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# k100lc_kernels._paths knows where the build (or the installed prefix) is.
if str(_HERE.parent) not in sys.path:
    sys.path.insert(0, str(_HERE.parent))
from k100lc_kernels import _paths  # noqa: E402

_HEAD = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|note): (?P<message>.*)$")
_WHOLE_FILE = re.compile(r"^(?P<file>.*?): (?P<severity>error): (?P<message>.*)$")  # no line: e.g. no such kernel
_KERNEL = re.compile(r"^kernel (?P<name>[A-Za-z_][A-Za-z0-9_]*)\(")
_STDIN = "<stdin>"


@dataclass
class Diagnostic:
    """One diagnostic of k100-cc: where, what, and the source line with its caret."""
    file: str
    line: int
    col: int
    message: str
    source_line: str = ""
    caret: str = ""
    severity: str = "error"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}" if self.line else self.file
        text = f"{where}: {self.severity}: {self.message}"
        if self.source_line or self.caret:
            text += f"\n{self.source_line}\n{self.caret}"
        return text


class CompileError(Exception):
    """The source was refused (``diagnostics``: every ``Diagnostic`` k100-cc
    reported, in order), no kernel matched ``only``, or k100-cc is missing."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None):
        super().__init__(message)
        self.diagnostics = list(diagnostics or [])

    @property
    def first(self) -> Diagnostic | None:
        """The first diagnostic, or None (k100-cc missing, no such kernel)."""
        return self.diagnostics[0] if self.diagnostics else None


def compiler_path() -> Path:
    """The k100-cc to run: <build>/bin/k100-cc, else <prefix>/bin/k100-cc of an
    installed package; CompileError naming the places looked at when neither exists."""
    tried = []
    build = _paths.build_dir()
    candidates = [build / "bin" / "k100-cc"]
    prefix = _paths.installed_prefix()
    if prefix is not None and not os.environ.get("K100_BUILD_DIR"):
        candidates.insert(0, prefix / "bin" / "k100-cc")
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return c
        tried.append(str(c))
    where = f"K100_BUILD_DIR={os.environ['K100_BUILD_DIR']}" if os.environ.get("K100_BUILD_DIR") \
        else f"the default build directory {build}"
    raise CompileError(f"the kernel compiler k100-cc is not built: {' and '.join(tried)} {'does' if len(tried) == 1 else 'do'} not exist "
                       f"(looked in {where}); build it with 'cmake --build {build} --target k100-cc' "
                       "or set K100_BUILD_DIR to the build directory that has bin/k100-cc")


def parse_diagnostics(stderr: str, file: str | None = None) -> list[Diagnostic]:
    """Diagnostics of k100-cc's standard error; `file` replaces the name "<stdin>"."""
    lines = stderr.splitlines()
    out: list[Diagnostic] = []
    i = 0
    while i < len(lines):
        m = _HEAD.match(lines[i])
        if not m:
            w = _WHOLE_FILE.match(lines[i])
            if w:
                out.append(Diagnostic(file=file if file is not None and w["file"] == _STDIN else w["file"],
                                      line=0, col=0, message=w["message"]))
            i += 1
            continue
        d = Diagnostic(file=m["file"], line=int(m["line"]), col=int(m["col"]), message=m["message"],
                       severity=m["severity"])
        if file is not None and d.file == _STDIN:
            d.file = file
        # the source line and the caret line follow unless the next diagnostic does
        if i + 1 < len(lines) and not _HEAD.match(lines[i + 1]):
            d.source_line = lines[i + 1]
            if i + 2 < len(lines) and lines[i + 2].strip().startswith("^"):
                d.caret = lines[i + 2]
                i += 1
            i += 1
        out.append(d)
        i += 1
    return out


def _run(args: list[str], source: str | None, file: str | None) -> subprocess.CompletedProcess:
    cc = compiler_path()
    r = subprocess.run([str(cc), *args], input=source, capture_output=True, text=True)
    if r.returncode == 0:
        return r
    diags = parse_diagnostics(r.stderr, file)
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        summary = f"{errors[0]}" + (f"\n({len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
                                    if len(errors) > 1 else "")
        raise CompileError(summary, diags)
    text = r.stderr.strip() or f"exit status {r.returncode}"
    if file is not None:
        text = text.replace(_STDIN, file)
    raise CompileError(f"k100-cc {args[0]} failed: {text}", diags)


def _build(path_arg: str, source: str | None, out_dir, only: str | None, file: str | None) -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    args = ["build", path_arg, "-o", str(out)]
    if only is not None:
        if not isinstance(only, str) or not only:
            raise TypeError(f"only must be a kernel name (a non-empty str), not {only!r}")
        args += ["--kernel", only]
    r = _run(args, source, file)
    paths = [Path(line) for line in r.stdout.splitlines() if line.endswith(".hsaco")]
    if not paths:
        what = f"no kernel named {only!r}" if only is not None else "no kernel"
        raise CompileError(f"{file or path_arg}: {what} in the source (kernels: "
                           f"{', '.join(_names(path_arg, source, file)) or 'none'})")
    return paths


def _names(path_arg: str, source: str | None, file: str | None) -> list[str]:
    r = _run(["check", path_arg], source, file)
    return [m["name"] for m in map(_KERNEL.match, r.stdout.splitlines()) if m]


def compile_source(source: str, out_dir, only: str | None = None, filename: str = "<source>") -> list[Path]:
    """Compiles the kernels of `source` (.kkl text) into `out_dir` (created); the
    `.hsaco` paths in source order. `only` keeps the kernel of that name (none
    matching is a CompileError). `filename` names the source in diagnostics."""
    if not isinstance(source, str):
        raise TypeError(f"source must be a str, not {type(source).__name__}")
    return _build("-", source, out_dir, only, filename)


def compile_file(path, out_dir, only: str | None = None) -> list[Path]:
    """Compiles the kernels of the .kkl file `path` into `out_dir`; see compile_source."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"kernel source {p} does not exist")
    return _build(str(p), None, out_dir, only, None)


def kernel_names(path=None, source: str | None = None) -> list[str]:
    """The kernels of a .kkl file (or of `source`) in source order, after k100-cc's checks."""
    if (path is None) == (source is None):
        raise TypeError("kernel_names: give either path or source")
    if path is not None:
        return _names(str(path), None, None)
    return _names("-", source, "<source>")
