"""Runtime: kernels by name on the DCU or the emulator, NumPy in and out.

A ``Runtime`` is a thin handle on the process-wide engine (libfm_engine.so):
device pointers are plain ``int``; ``grid`` counts WORKGROUPS (the dispatch's
grid is grid x workgroup); ``argv`` holds the explicit arguments only, hidden
ones are filled by the engine; launches are asynchronous and run in order on
one queue ("enqueue a whole forward pass, sync once").

    rt = Runtime()                      # the built k100lc_kernels.hsaco
    pw, px, py = rt.alloc(w.nbytes), rt.alloc(x.nbytes), rt.alloc(n * 4)
    rt.upload(pw, w); rt.upload(px, x)
    rt.launch("gemv_f32_warp_k", n, 64, [pw, px, py, n, k, 64])
    rt.sync()
    y = rt.download(py, n, np.float32)

Scalars are packed from the catalog's argument types: a Python or NumPy
float for an ``f32`` argument becomes its IEEE-754 single bits (an int there
is converted to float; ``f16``/``f64`` arguments get their own widths);
integers are two's complement in the argument's width. Without type
information floats become f32 bits and ints are used as they are. Errors:
``RuntimeError`` for engine failures (unknown kernel with a suggestion, wrong
argument count, device faults at ``sync``, bad pointers, double free),
``TypeError`` for values of the wrong type (e.g. a NumPy array where a device
pointer belongs), ``ValueError`` for bad sizes and values that do not fit,
``KeyError`` when ``launch_dyn`` finds no catalog entry, ``MemoryError`` when
``alloc`` fails.

Several packages may be loaded in one process: a second ``Runtime`` with
another ``hsaco`` loads that package too (a kernel name defined by both is a
``RuntimeError``); ``load_module`` adds run-time compiled code objects for
``launch_dyn``.
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import math
import os
import struct
import sys
from pathlib import Path


def _numpy_missing() -> ModuleNotFoundError:
    """The error for an interpreter without NumPy, saying which Python has it."""
    exe = sys.executable or "this interpreter"
    here = f"{exe} (Python {sys.version.split()[0]})"
    debian = Path("/usr/bin/python3")
    dist = Path("/usr/lib/python3/dist-packages/numpy")
    if debian.exists() and Path(exe).resolve() != debian.resolve():
        how = f"run it with {debian} (Debian's Python; apt-get install python3-numpy), or install NumPy for {exe}"
    elif dist.exists():
        how = (f"NumPy is installed in {dist.parent}, which this interpreter does not search "
               "(started with -S, or a virtual environment without --system-site-packages?)")
    else:
        how = "install NumPy for it (Debian: apt-get install python3-numpy)"
    return ModuleNotFoundError(f"k100lc_kernels.Runtime needs NumPy, which {here} does not have: {how}",
                               name="numpy")


try:
    import numpy as np
except ModuleNotFoundError as e:
    if e.name != "numpy":
        raise
    raise _numpy_missing() from None

from . import _engine, _paths
from .catalog import arg_fields, explicit_args, kind_code, load_catalog, normalize
from .launch_contract import Launch, LaunchContract

_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1
_UNSIGNED = ("uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "uint", "bool")
_WAIT_SLICE_MS = 50  # sync() and the waiting transfers wait in slices so Ctrl-C is seen
_registered_exit = False
_engine_index: dict[str, dict] = {}  # entries the engine reported, by lookup and mangled name


def _shutdown():
    lib = _engine._lib
    if lib is not None:
        lib.fm_shutdown()


def _scalar_class(entry_arg: dict | None) -> str | None:
    """'ptr', 'f32', 'f16', 'f64', 'int' or None (unknown) for one explicit argument."""
    if entry_arg is None:
        return None
    kind = arg_fields(entry_arg)[2]
    t = str(entry_arg.get("type", entry_arg.get(".type_name", ""))).strip()
    if kind == "global_buffer" or "*" in t:
        return "ptr"
    base = t.replace("const", "").replace("volatile", "").strip()
    if base in ("f32", "float", "_Float32", "float32_t"):
        return "f32"
    if base in ("f16", "half", "_Float16", "__fp16"):
        return "f16"
    if base in ("f64", "double"):
        return "f64"
    if base in ("bf16", "__bf16"):
        return "bf16"
    if base in _UNSIGNED or (base[:1] == "u" and base[1:].isdigit()) or base.startswith("unsigned"):
        return "uint"
    if base:
        return "int"
    return None


def _describe(kernel: str, i: int, arg: dict | None) -> str:
    name = arg.get("name") if arg else None
    t = arg.get("type") if arg else None
    what = f"argument {i}"
    if name:
        what += f" ({name}{': ' + t if t else ''})"
    return f"{kernel}: {what}"


def _pack_value(kernel: str, i: int, v, arg: dict | None) -> int:
    if isinstance(v, np.ndarray):
        raise TypeError(f"{_describe(kernel, i, arg)} is a NumPy array (host memory); upload it with "
                        "rt.upload() and pass the device pointer")
    if isinstance(v, (bool, np.bool_)):
        v = int(v)
    elif isinstance(v, np.integer):
        v = int(v)
    elif isinstance(v, np.floating):
        v = float(v)
    if not isinstance(v, (int, float)):
        raise TypeError(f"{_describe(kernel, i, arg)} must be an int (device pointer or integer) or a "
                        f"float, not {type(v).__name__}")
    cls = _scalar_class(arg)
    size = arg_fields(arg)[1] if arg is not None else 8
    if cls == "ptr":
        if isinstance(v, float):
            raise TypeError(f"{_describe(kernel, i, arg)} is a device pointer; got float {v!r}")
        if not 0 <= v <= _U64:
            raise ValueError(f"{_describe(kernel, i, arg)}: pointer {v} is out of range")
        return v
    if cls in ("f32", "f16", "f64", "bf16") or (cls is None and isinstance(v, float)):
        x = float(v)
        if cls == "f16":
            return int(np.array(x, dtype=np.float16).view(np.uint16))
        if cls == "bf16":
            return struct.unpack("<I", struct.pack("<f", x))[0] >> 16
        if cls == "f64":
            return struct.unpack("<Q", struct.pack("<d", x))[0]
        try:
            return struct.unpack("<I", struct.pack("<f", x))[0]
        except OverflowError:
            if math.isfinite(x):
                raise ValueError(f"{_describe(kernel, i, arg)}: {x!r} does not fit an f32") from None
            raise
    # integers
    if isinstance(v, float):
        raise TypeError(f"{_describe(kernel, i, arg)} is an integer; got float {v!r}")
    if cls == "uint" and v < 0:
        raise ValueError(f"{_describe(kernel, i, arg)} is unsigned; got {v}")
    bits = 8 * min(size, 8)
    if not -(1 << (bits - 1)) <= v < (1 << bits):
        raise ValueError(f"{_describe(kernel, i, arg)}: {v} does not fit {size} bytes")
    return v & _U64


def _index(catalog: dict) -> dict[str, dict]:
    out = {}
    for e in catalog.get("kernels", []):
        out.setdefault(normalize(e.get("lookup", "")), e)
        out.setdefault(e.get("name", ""), e)
    return out


class Event:
    """A point in the launch queue, timed when the device reaches it."""

    def __init__(self, rt: "Runtime", eid: int):
        self._rt, self.id = rt, eid

    def elapsed_ms(self, end: "Event") -> float:
        """Milliseconds from this event to `end` (waits for both)."""
        return self._rt.elapsed_ms(self, end)

    def __del__(self):
        lib = _engine._lib
        if lib is not None and self.id >= 0:
            lib.fm_event_release(self.id)
            self.id = -1


class Runtime:
    """Handle on the engine; see the module docstring.

    ``Runtime(hsaco=None, lib=None, catalog=None, instruction_budget=None)``:
    the kernel package (default: the built k100lc_kernels.hsaco), the engine
    library (default: the build's libfm_engine.so), the catalog (default: the
    one next to the package) and, on the emulator, the number of
    wave-instructions a dispatch may run before it faults as a runaway loop
    (default: ``K100_EMU_BUDGET`` or the engine's 4 Gi). The engine is one per
    process: the budget applies to every later launch.
    """

    def __init__(self, hsaco=None, lib=None, catalog=None, instruction_budget=None):
        global _registered_exit
        self._lib = _engine.load(lib)
        default = hsaco is None
        self.hsaco = Path(hsaco) if hsaco is not None else _paths.default_package()
        rc = self._lib.fm_init(str(self.hsaco).encode())
        if rc != 0:
            err = self._error()
            raise RuntimeError(f"fm_init failed: {err}" if err.startswith(str(self.hsaco))
                               else f"fm_init failed: {self.hsaco}: {err}")
        if not _registered_exit:
            atexit.register(_shutdown)
            _registered_exit = True
        self.catalog = self._load_catalog(catalog, default)
        self._index = _index(self.catalog)
        self._args_cache: dict[str, list] = {}
        self._batch = None
        if instruction_budget is not None:
            self.instruction_budget = instruction_budget

    # ------------------------------------------------------------ helpers
    def _error(self) -> str:
        return _engine.last_error(self._lib)

    def _load_catalog(self, explicit, default: bool) -> dict:
        candidates = [Path(explicit)] if explicit is not None else _paths.catalog_for(self.hsaco)
        if explicit is None and default:
            candidates.append(_paths.package_catalog())
        for c in candidates:
            if c.exists():
                return load_catalog(c)
        if explicit is not None:
            raise FileNotFoundError(f"catalog {explicit} does not exist")
        # No catalog file: the engine describes the package it loaded (with argument types).
        try:
            return json.loads(_engine.catalog_json(self._lib, str(self.hsaco)))
        except (RuntimeError, ValueError):
            return {"kernels": []}

    def _entry(self, kernel: str) -> dict | None:
        e = self._index.get(kernel) or self._index.get(normalize(kernel))
        if e is None:
            e = _engine_index.get(kernel) or _engine_index.get(normalize(kernel))
            if e is None and self._lib.fm_has_kernel(normalize(kernel).encode()):
                # a kernel of another loaded package: ask the engine once
                _engine_index.update(_index(json.loads(_engine.catalog_json(self._lib, None))))
                e = _engine_index.get(normalize(kernel))
        return e

    def _explicit(self, kernel: str) -> list:
        args = self._args_cache.get(kernel)
        if args is None:
            entry = self._entry(kernel)
            args = explicit_args(entry) if entry else []
            if entry is not None:
                self._args_cache[kernel] = args
        return args

    @staticmethod
    def _ptr(p, what: str) -> int:
        if isinstance(p, np.integer):
            p = int(p)
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"{what}: the device pointer must be an int, not {type(p).__name__}")
        if not 0 <= p <= _U64:
            raise ValueError(f"{what}: {p} is not a device address")
        return p

    @staticmethod
    def _size(n, what: str) -> int:
        if isinstance(n, np.integer):
            n = int(n)
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"{what} must be an int, not {type(n).__name__}")
        if n < 0:
            raise ValueError(f"{what} must not be negative ({n})")
        return n

    @staticmethod
    def _dim(n, what: str) -> int:
        """A grid or workgroup size: the engine takes 32 bits (a larger one would wrap)."""
        n = Runtime._size(n, what)
        if n > _U32:
            raise ValueError(f"{what} {n} does not fit 32 bits (at most {_U32})")
        return n

    def _pack(self, kernel: str, argv) -> list[int]:
        if isinstance(argv, (str, bytes)) or not hasattr(argv, "__len__"):
            raise TypeError(f"{kernel}: argv must be a list of arguments, not {type(argv).__name__}")
        args = self._explicit(kernel)
        return [_pack_value(kernel, i, v, args[i] if i < len(args) else None) for i, v in enumerate(argv)]

    @staticmethod
    def _argv(values: list[int]):
        arr = (ctypes.c_uint64 * max(1, len(values)))(*values)
        return arr, len(values)

    def _wait(self) -> None:
        """Waits for the queue in slices, so Ctrl-C (SIGINT) interrupts a
        runaway kernel: the launches queued so far are cancelled, then
        KeyboardInterrupt propagates."""
        try:
            while True:
                rc = self._lib.fm_wait(_WAIT_SLICE_MS)
                if rc == 0:
                    return
                if rc < 0:
                    raise RuntimeError(f"wait: {self._error()}")
        except KeyboardInterrupt:
            self._lib.fm_cancel()
            self._lib.fm_sync()  # collects this thread's cancelled launches
            raise

    # ------------------------------------------------------------ memory
    @property
    def backend(self) -> str:
        """'emu' or 'hsa'."""
        return self._lib.fm_backend().decode()

    @property
    def instruction_budget(self) -> int:
        """Wave-instructions an emulated dispatch may run before it faults as a
        runaway loop (0 on hardware, which has no budget). Setting it applies to
        later launches; 0 restores the default. ``K100_EMU_BUDGET`` sets it for
        the process."""
        return int(self._lib.fm_budget())

    @instruction_budget.setter
    def instruction_budget(self, wave_instructions: int) -> None:
        n = self._size(wave_instructions, "instruction_budget")
        if n > _U64:
            raise ValueError(f"instruction_budget: {n} does not fit 64 bits")
        rc = self._lib.fm_set_budget(n)
        if rc < 0:
            raise RuntimeError(f"instruction_budget: {self._error()}")
        if rc == 1 and n:
            raise RuntimeError("instruction_budget: the hardware backend has no instruction budget")

    def alloc(self, nbytes: int) -> int:
        """A device buffer of `nbytes` bytes (zero bytes allocate one); its address as an int."""
        n = self._size(nbytes, "alloc: nbytes")
        p = self._lib.fm_alloc(max(n, 1))
        if not p:
            raise MemoryError(f"alloc({n}) failed: {self._error()}")
        return int(p)

    def free(self, ptr: int) -> None:
        """Frees a buffer from alloc() after the queued launches; a double free raises RuntimeError."""
        ptr = self._ptr(ptr, "free")
        self._wait()
        if self._lib.fm_release(ptr) != 0:
            raise RuntimeError(f"free({ptr:#x}) failed: {self._error()}")

    def upload(self, ptr: int, data) -> None:
        """Host to device; does not wait for queued kernels."""
        ptr = self._ptr(ptr, "upload")
        if isinstance(data, np.ndarray):
            if data.dtype.hasobject:
                raise TypeError(f"upload: arrays of dtype {data.dtype} hold Python objects, not data")
            arr = np.ascontiguousarray(data)
        else:
            try:
                arr = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
            except TypeError:
                raise TypeError(f"upload: data must be a NumPy array or a bytes-like object, "
                                f"not {type(data).__name__}") from None
        if self._lib.fm_upload(ptr, arr.ctypes.data if arr.nbytes else None, arr.nbytes) != 0:
            raise RuntimeError(f"upload to {ptr:#x} failed: {self._error()}")

    def download(self, ptr: int, count: int, dtype=np.float32, out=None) -> np.ndarray:
        """`count` ELEMENTS of `dtype` from the device into a new 1-D array (or `out`)."""
        ptr = self._ptr(ptr, "download")
        count = self._size(count, "download: count")
        try:
            dt = np.dtype(dtype)
        except TypeError as e:
            raise TypeError(f"download: {dtype!r} is not a NumPy dtype") from e
        if dt.hasobject or dt.itemsize == 0:
            raise TypeError(f"download: dtype {dt} has no fixed binary layout")
        if out is None:
            out = np.empty(count, dtype=dt)
        else:
            if not isinstance(out, np.ndarray):
                raise TypeError(f"download: out must be a NumPy array, not {type(out).__name__}")
            if out.dtype != dt:
                raise TypeError(f"download: out has dtype {out.dtype}, expected {dt}")
            if not out.flags.c_contiguous:
                raise ValueError("download: out must be C-contiguous (a strided view cannot be filled)")
            if not out.flags.writeable:
                raise ValueError("download: out is read-only")
            if out.size < count:
                raise ValueError(f"download: out holds {out.size} elements, {count} requested")
        nbytes = count * dt.itemsize
        self._wait()
        if self._lib.fm_download(out.ctypes.data if nbytes else None, ptr, nbytes) != 0:
            raise RuntimeError(f"download from {ptr:#x} failed: {self._error()}")
        return out

    def copy_dev(self, dst: int, src: int, nbytes: int) -> None:
        """Device to device, after the queued launches."""
        dst, src = self._ptr(dst, "copy_dev"), self._ptr(src, "copy_dev")
        nbytes = self._size(nbytes, "copy_dev: nbytes")
        self._wait()
        if self._lib.fm_copy(dst, src, nbytes) != 0:
            raise RuntimeError(f"copy_dev failed: {self._error()}")

    def memset(self, ptr: int, value: int, nbytes: int) -> None:
        """Sets `nbytes` bytes at `ptr` to the low byte of `value`, after the queued launches."""
        if isinstance(value, np.integer):
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError("memset: value must be an int")
        ptr, nbytes = self._ptr(ptr, "memset"), self._size(nbytes, "memset: nbytes")
        self._wait()
        if self._lib.fm_memset(ptr, value & 0xff, nbytes) != 0:
            raise RuntimeError(f"memset failed: {self._error()}")

    # ------------------------------------------------------------ code objects
    def load(self, hsaco) -> None:
        """Loads another package into the engine's table."""
        if self._lib.fm_load(str(hsaco).encode()) != 0:
            raise RuntimeError(f"fm_load failed: {hsaco}: {self._error()}")

    def load_module(self, code_object) -> int:
        """Loads a code object (bytes, or a path) for launch_dyn; returns its module index."""
        data = Path(code_object).read_bytes() if isinstance(code_object, (str, Path)) else bytes(code_object)
        buf = ctypes.create_string_buffer(data, len(data))
        m = self._lib.fm_load_module(buf, len(data), b"python module")
        if m < 0:
            raise RuntimeError(f"fm_load_module failed: {self._error()}")
        return m

    # ------------------------------------------------------------ launches
    def has(self, kernel: str) -> bool:
        """Whether a loaded package has a kernel with this lookup name."""
        return bool(self._lib.fm_has_kernel(normalize(kernel).encode()))

    def launch(self, kernel: str, grid: int, workgroup: int, argv) -> None:
        """1-D launch: `grid` workgroups of `workgroup` work-items."""
        grid = self._dim(grid, "launch: grid")
        workgroup = self._dim(workgroup, "launch: workgroup")
        values = self._pack(kernel, argv)
        if self._batch is not None:
            self._batch.append((kernel, grid, workgroup, values))
            return
        arr, n = self._argv(values)
        rc = self._lib.fm_launch(kernel.encode(), grid, workgroup, arr, n)
        if rc != 0:
            raise RuntimeError(f"fm_launch({kernel}) failed: {self._error()}")

    def launch_contract(self, kernel: str) -> LaunchContract:
        """The kernel's launch contract as the loaded package's catalog carries it
        (``launch_contract.LaunchContract``); ValueError when the catalog has none."""
        entry = self._entry(kernel)
        if entry is None or not entry.get("launch"):
            raise ValueError(f"kernel {kernel!r} has no launch contract in the loaded package's catalog")
        return LaunchContract(entry["launch"], entry.get("lookup", kernel))

    def launch_by_contract(self, kernel: str, sizes: dict, args: dict, choices: dict | None = None) -> Launch:
        """Launches `kernel` at the workgroup and grid its launch contract gives for `sizes` (and
        `choices`), with the arguments it derives and `args` (the others, by name); a workspace
        argument not in `args` gets a zeroed buffer of its bytes for this launch (pointer 0 for 0
        bytes). Returns the evaluated ``Launch``."""
        contract = self.launch_contract(kernel)
        plan = contract.evaluate(sizes, choices)
        given, owned = dict(args), []
        for name, nbytes in plan.workspaces.items():
            if name not in given:
                ptr = 0
                if nbytes and self._batch is not None:
                    raise ValueError(f"launch_by_contract: {kernel} needs its workspace {name!r} given in a batch")
                if nbytes:
                    ptr = self.alloc(nbytes)
                    owned.append(ptr)
                    self.memset(ptr, 0, nbytes)
                given[name] = ptr
        try:
            argv = contract.argv(plan, given)
            if plan.grid[1:] == (1, 1):
                self.launch(kernel, plan.grid[0], plan.workgroup, argv)
            else:
                self.launch3d(kernel, *plan.grid, plan.workgroup, 1, 1, argv)
        finally:
            for ptr in owned:
                self.free(ptr)  # waits for the launch
        return plan

    def launch2d(self, kernel: str, gx: int, gy: int, wx: int, wy: int, argv) -> None:
        """2-D launch: gx x gy workgroups of wx x wy work-items."""
        self.launch3d(kernel, gx, gy, 1, wx, wy, 1, argv)

    def launch3d(self, kernel: str, gx: int, gy: int, gz: int, wx: int, wy: int, wz: int, argv) -> None:
        """3-D launch: gx x gy x gz workgroups of wx x wy x wz work-items."""
        dims = [self._dim(v, f"launch: {name}") for v, name in
                zip((gx, gy, gz, wx, wy, wz), ("grid x", "grid y", "grid z", "workgroup x", "workgroup y", "workgroup z"))]
        arr, n = self._argv(self._pack(kernel, argv))
        rc = self._lib.fm_launch3d(kernel.encode(), *dims, arr, n)
        if rc != 0:
            raise RuntimeError(f"fm_launch({kernel}) failed: {self._error()}")

    def launch_dyn(self, kernel: str, gx: int, gy: int, wx: int, wy: int, argv, entry: dict | None = None) -> None:
        """Launch by symbol with the layout of the catalog entry (KeyError when there is none)."""
        if entry is None:
            entry = self._index.get(kernel) or self._index.get(normalize(kernel))
            if entry is None:
                raise KeyError(kernel)
        layout = []
        for a in entry.get("args", []):
            off, size, kind = arg_fields(a)
            layout += [off, size, kind_code(kind)]
        lay = (ctypes.c_uint32 * max(1, len(layout)))(*layout)
        values = [_pack_value(kernel, i, v, a) for i, (v, a) in
                  enumerate(zip(argv, explicit_args(entry) + [None] * len(argv)))]
        arr, n = self._argv(values)
        dims = [self._dim(v, f"launch_dyn: {name}") for v, name in
                zip((gx, gy, wx, wy), ("grid x", "grid y", "workgroup x", "workgroup y"))]
        rc = self._lib.fm_launch_dyn(
            str(entry.get("name", kernel)).encode(), *dims, lay, len(layout) // 3,
            int(entry.get("group_segment", entry.get(".group_segment_fixed_size", 0))),
            int(entry.get("private_segment", entry.get(".private_segment_fixed_size", 0))),
            int(entry.get("kernarg_size", entry.get(".kernarg_segment_size", 0))), arr, n)
        if rc != 0:
            raise RuntimeError(f"fm_launch_dyn({kernel}) failed rc={rc}: {self._error()}")

    def launch_any(self, kernel: str, grid: int, workgroup: int, argv) -> None:
        """launch_dyn with the catalog entry when there is one, else launch."""
        if (self._index.get(kernel) or self._index.get(normalize(kernel))) is not None:
            self.launch_dyn(kernel, grid, 1, workgroup, 1, argv)
        else:
            self.launch(kernel, grid, workgroup, argv)

    def sync(self) -> None:
        """Waits for every queued launch; a launch of this thread that failed raises RuntimeError.

        Ctrl-C while it waits cancels the launches queued so far (on the
        emulator the running kernel stops within 65,536 wave-instructions) and
        raises KeyboardInterrupt; the runtime stays usable."""
        self._wait()
        rc = self._lib.fm_sync()
        if rc == _engine.FM_ERR_CANCELLED:
            raise RuntimeError(f"sync: cancelled: {self._error()}")
        if rc != 0:
            raise RuntimeError(f"sync: {self._error()}")

    def cancel(self) -> bool:
        """Stops every launch queued so far, of every thread (the running kernel
        ends early, the others are dropped); their thread's next sync() raises
        RuntimeError. False on hardware, where a running kernel cannot be
        stopped (nothing happens)."""
        rc = self._lib.fm_cancel()
        if rc < 0:
            raise RuntimeError(f"cancel: {self._error()}")
        return rc == 0

    @contextlib.contextmanager
    def batch(self):
        """Records launch() calls and submits them with one engine call on normal exit."""
        if self._batch is not None:
            raise RuntimeError("Runtime.batch() cannot be nested")
        self._batch = []
        try:
            yield self
        finally:
            pending, self._batch = self._batch, None
        plan = LaunchPlan(self, [(k, g, w, v) for k, g, w, v in pending], packed=True)
        plan.run()

    # ------------------------------------------------------------ timing
    def record_event(self) -> Event:
        """An Event at the current end of the launch queue."""
        eid = self._lib.fm_event_record()
        if eid < 0:
            raise RuntimeError(f"record_event failed: {self._error()}")
        return Event(self, eid)

    def elapsed_ms(self, start: Event, end: Event) -> float:
        """Milliseconds between two recorded events (waits for both)."""
        ms = ctypes.c_double()
        if self._lib.fm_event_elapsed(start.id, end.id, ctypes.byref(ms)) != 0:
            raise RuntimeError(f"elapsed_ms failed: {self._error()}")
        return ms.value


class LaunchPlan:
    """A list of 1-D launches converted once and replayed with fm_launch_batch.

    Records are [kernel_id, grid, wg, nargs, argv...]; set_arg / set_grid patch
    them in place between runs.
    """

    def __init__(self, rt: Runtime, calls, packed: bool = False):
        self.rt = rt
        self.kernels = []
        self._offsets = []
        words: list[int] = []
        for kernel, grid, wg, argv in calls:
            kid = rt._lib.fm_kernel_id(normalize(kernel).encode())
            if kid < 0:
                raise RuntimeError(f"LaunchPlan: unknown kernel '{kernel}'")
            values = list(argv) if packed else rt._pack(kernel, argv)
            self._offsets.append(len(words))
            self.kernels.append(kernel)
            words += [kid, Runtime._dim(grid, "grid"), Runtime._dim(wg, "workgroup"), len(values)] + values
        self._words = np.array(words, dtype=np.uint64)

    def set_arg(self, rec: int, idx: int, value) -> None:
        """Replaces argument `idx` of record `rec` (packed as launch() packs it)."""
        off = self._offsets[rec]
        nargs = int(self._words[off + 3])
        if not 0 <= idx < nargs:
            raise IndexError(f"record {rec} has {nargs} arguments")
        kernel = self.kernels[rec]
        args = self.rt._explicit(kernel)
        self._words[off + 4 + idx] = _pack_value(kernel, idx, value, args[idx] if idx < len(args) else None)

    def set_grid(self, rec: int, grid: int) -> None:
        """Replaces the workgroup count of record `rec`."""
        self._words[self._offsets[rec] + 1] = Runtime._dim(grid, "grid")

    def run(self) -> int:
        """Submits every record with one engine call; returns how many were launched."""
        n = len(self._offsets)
        if n == 0:
            return 0
        ptr = self._words.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64))
        done = self.rt._lib.fm_launch_batch(ptr, n)
        if done != n:
            raise RuntimeError(f"fm_launch_batch accepted {done} of {n} records: {self.rt._error()}")
        return done
