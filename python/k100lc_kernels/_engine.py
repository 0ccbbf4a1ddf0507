"""ctypes binding of libfm_engine.so (the C ABI, include/k100/runtime/fm_engine.h)."""
from __future__ import annotations

import ctypes
import threading

from . import _paths

_lock = threading.Lock()
_lib = None
_lib_path = None

FM_ERR, FM_ERR_ARGC, FM_ERR_KERNARG, FM_ERR_LAUNCH, FM_ERR_CANCELLED = -1, -2, -3, -4, -5

_SIGNATURES = {
    "fm_init": (ctypes.c_int, [ctypes.c_char_p]),
    "fm_load": (ctypes.c_int, [ctypes.c_char_p]),
    "fm_load_module": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]),
    "fm_shutdown": (ctypes.c_int, []),
    "fm_last_error": (ctypes.c_char_p, []),
    "fm_backend": (ctypes.c_char_p, []),
    "fm_alloc": (ctypes.c_void_p, [ctypes.c_size_t]),
    "fm_free": (None, [ctypes.c_void_p]),
    "fm_release": (ctypes.c_int, [ctypes.c_void_p]),
    "fm_upload": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
    "fm_download": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
    "fm_copy": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
    "fm_memset": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]),
    "fm_sync": (ctypes.c_int, []),
    "fm_wait": (ctypes.c_int, [ctypes.c_int]),
    "fm_cancel": (ctypes.c_int, []),
    "fm_set_budget": (ctypes.c_int, [ctypes.c_uint64]),
    "fm_budget": (ctypes.c_uint64, []),
    "fm_launch": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32,
                                 ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]),
    "fm_launch2d": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32,
                                   ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]),
    "fm_launch3d": (ctypes.c_int, [ctypes.c_char_p] + [ctypes.c_uint32] * 6 +
                    [ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]),
    "fm_launch_dyn": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32,
                                     ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32), ctypes.c_uint32,
                                     ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32,
                                     ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]),
    "fm_has_kernel": (ctypes.c_int, [ctypes.c_char_p]),
    "fm_kernel_id": (ctypes.c_int, [ctypes.c_char_p]),
    "fm_launch_batch": (ctypes.c_int, [ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]),
    "fm_catalog_json": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
    "fm_event_record": (ctypes.c_int, []),
    "fm_event_elapsed": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]),
    "fm_event_release": (ctypes.c_int, [ctypes.c_int]),
}


def load(path: str | None = None):
    """Loads the engine once per process (a later, different `path` is an error)."""
    global _lib, _lib_path
    with _lock:
        want = str(path) if path else _paths.engine_library()
        if _lib is not None:
            if path and want != _lib_path:
                raise RuntimeError(f"the engine is already loaded from {_lib_path}; cannot also load {want}")
            return _lib
        try:
            lib = ctypes.CDLL(want)
        except OSError as e:
            raise RuntimeError(f"cannot load the engine library {want}: {e} "
                               "(build it, `source env.sh`, or set K100LC_ENGINE)") from None
        for name, (res, args) in _SIGNATURES.items():
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = args
        _lib, _lib_path = lib, want
        return lib


def last_error(lib) -> str:
    """The calling thread's last engine error text ("" when none)."""
    msg = lib.fm_last_error()
    return msg.decode("utf-8", "replace") if msg else ""


def catalog_json(lib, hsaco: str | None) -> str:
    """The engine's catalog JSON of every loaded package, or of the one loaded from `hsaco`."""
    arg = str(hsaco).encode() if hsaco else None
    n = lib.fm_catalog_json(arg, None, 0)
    if n < 0:
        raise RuntimeError(f"fm_catalog_json failed: {last_error(lib)}")
    buf = ctypes.create_string_buffer(n + 1)
    lib.fm_catalog_json(arg, buf, n + 1)
    return buf.value.decode("utf-8")
