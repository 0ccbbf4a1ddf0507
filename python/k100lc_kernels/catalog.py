"""The kernel catalog: argument layouts of every kernel of a package.

``kernels(pattern)`` and ``info(name)`` read the package's own catalog (see
``_paths.package_catalog``), never the one a ``Runtime`` was built with.
Entries follow PYTHON_API.md §2.1; k100lc catalogs also carry each argument's
``type`` (``"f32"``, ``"const f32*"``, ``"u32"``...) from the code object's
metadata, which ``Runtime`` uses to pack scalars. ``docs(name)`` adds what
the kernel library's registry says of a kernel (semantics, launch geometry,
limits, tolerance), read from the build's ``libk100_selftest.so``.
"""
from __future__ import annotations

import ctypes
import difflib
import json
from pathlib import Path

from . import _paths

KIND_CODES = {
    "by_value": 0, "global_buffer": 0,
    "hidden_block_count_x": 1, "hidden_block_count_y": 2, "hidden_block_count_z": 3,
    "hidden_group_size_x": 4, "hidden_group_size_y": 5, "hidden_group_size_z": 6,
    "hidden_remainder_x": 7, "hidden_remainder_y": 8, "hidden_remainder_z": 9,
    "hidden_global_offset_x": 10, "hidden_global_offset_y": 11, "hidden_global_offset_z": 12,
    "hidden_grid_dims": 13, "hidden_none": 14, "hidden_printf_buffer": 15,
    "hidden_hostcall_buffer": 16, "hidden_default_queue": 17, "hidden_completion_action": 18,
    "hidden_multigrid_sync_arg": 19, "hidden_heap_v1": 20, "hidden_private_base": 21,
    "hidden_shared_base": 22, "hidden_queue_ptr": 23, "hidden_dynamic_lds_size": 24,
}

_cache: dict[str, dict] = {}


def kind_code(kind: str) -> int:
    """Kind code of PYTHON_API.md §8 (0 for every explicit kind, 14+ for other hidden kinds)."""
    if kind in KIND_CODES:
        return KIND_CODES[kind]
    return 14 if kind.startswith("hidden_") else 0


def arg_fields(arg: dict) -> tuple[int, int, str]:
    """(offset, size, kind) of an entry written with off/size/kind or .offset/.size/.value_kind."""
    if "off" in arg:
        return int(arg["off"]), int(arg["size"]), str(arg["kind"])
    return int(arg[".offset"]), int(arg[".size"]), str(arg[".value_kind"])


def explicit_args(entry: dict) -> list[dict]:
    """The leading explicit arguments (the first hidden one ends them)."""
    out = []
    for a in entry.get("args", []):
        if arg_fields(a)[2].startswith("hidden_"):
            break
        out.append(a)
    return out


class UnknownKernel(KeyError):
    """KeyError(name) for a name no entry has; its text names the closest one."""

    def __init__(self, name: str, closest: str | None = None):
        super().__init__(name)
        self.closest = closest

    def __str__(self) -> str:
        hint = f"; did you mean {self.closest!r}?" if self.closest else ""
        return f"no kernel {self.args[0]!r} in the catalog{hint}"


def normalize(name: str) -> str:
    """A lookup name without whitespace (``gemv< 1 >`` and ``gemv<1>`` are one name)."""
    return "".join(name.split())


def closest(name: str, names) -> str | None:
    """The name of `names` most like `name`, or None when none is close."""
    pool = list(names)
    by_norm = {normalize(n): n for n in pool}
    hit = difflib.get_close_matches(normalize(name), list(by_norm), n=1, cutoff=0.6)
    return by_norm[hit[0]] if hit else None


def load_catalog(path) -> dict:
    """The parsed catalog JSON at `path` (read once per process)."""
    path = Path(path)
    key = str(path.resolve())
    if key not in _cache:
        with open(path, encoding="utf-8") as f:
            _cache[key] = json.load(f)
    return _cache[key]


def find(catalog: dict, name: str) -> dict | None:
    """The entry whose lookup (whitespace ignored) or mangled name equals `name`."""
    want = normalize(name)
    for e in catalog.get("kernels", []):
        if normalize(e.get("lookup", "")) == want or e.get("name") == name:
            return e
    return None


def _package_catalog() -> dict:
    path = _paths.package_catalog()
    if not path.exists():
        raise FileNotFoundError(
            f"no kernel catalog at {path}: build the kernel library into "
            f"{_paths.build_dir()} (or set K100_BUILD_DIR / K100LC_CATALOG)")
    return load_catalog(path)


def kernels(pattern: str = "") -> list[dict]:
    """All catalog entries, or those whose lookup contains `pattern`."""
    return [e for e in _package_catalog().get("kernels", []) if pattern in e.get("lookup", "")]


def info(name: str) -> dict:
    """The entry whose lookup or mangled name equals `name`; KeyError(name)
    otherwise (an UnknownKernel, whose text names the closest lookup)."""
    cat = _package_catalog()
    e = find(cat, name)
    if e is None:
        raise UnknownKernel(name, closest(name, [k.get("lookup", "") for k in cat.get("kernels", [])]))
    return e


def launch_contract(name: str):
    """The kernel's launch contract (``launch_contract.LaunchContract``) from the package's
    catalog; ValueError when its entry carries none."""
    from .launch_contract import LaunchContract
    e = info(name)
    if not e.get("launch"):
        raise ValueError(f"kernel {name!r} has no launch contract in the catalog")
    return LaunchContract(e["launch"], e.get("lookup", name))


_docs_cache: dict[str, dict] | None = None


def docs(name: str) -> dict | None:
    """What the kernel library's registry says of kernel `name`: family,
    description, semantics, geometry, limits and tolerance. None when the
    registry has no such kernel or libk100_selftest.so is not built."""
    global _docs_cache
    if _docs_cache is None:
        _docs_cache = {}
        path = _paths.selftest_library()
        if path.exists():
            lib = ctypes.CDLL(str(path))
            fn = lib.k100_kernel_docs_json
            fn.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
            fn.restype = ctypes.c_long
            n = fn(None, 0)
            if n > 0:
                buf = ctypes.create_string_buffer(n + 1)
                fn(buf, n + 1)
                for k in json.loads(buf.value.decode("utf-8")).get("kernels", []):
                    _docs_cache[normalize(k["lookup"])] = k
    return _docs_cache.get(normalize(name))
