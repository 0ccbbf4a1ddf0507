"""k100lc_kernels.gguf against ggml: every tensor the Python module decodes
equals ggml's dequantize_row_<type> of the same bytes, bit for bit."""
import ctypes

import numpy as np
import pytest

from k100lc_kernels import gguf

BLOCK_TYPES = ["q4_0", "q8_0", "q2_0", "q4_K", "q5_K", "q6_K", "iq4_nl", "iq4_xs", "iq2_s", "iq3_s", "iq3_xxs"]


@pytest.mark.parametrize("type_name", BLOCK_TYPES)
def test_read_equals_ggml_dequantize_row(samples, ggml, type_name):
    fn = getattr(ggml, f"dequantize_row_{type_name}")
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
    with gguf.open(samples / "all_types.gguf") as f:
        tensors = [t for t in f.tensors if t.type == type_name]
        assert tensors
        for t in tensors:
            raw = f.raw(t.name)
            theirs = np.empty(t.elements, dtype=np.float32)
            fn(raw.ctypes.data, theirs.ctypes.data, t.elements)
            ours = f.read(t.name).reshape(-1)
            assert ours.view(np.uint32).tolist() == theirs.view(np.uint32).tolist(), t.name
