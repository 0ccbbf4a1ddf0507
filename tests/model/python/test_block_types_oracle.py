"""A tiny model per block type beyond the first eleven (the types llama.cpp's
quantiser writes for Q2_K / Q3_K / IQ1 / IQ2 files, its fallbacks for rows
that are not a multiple of 256, gpt-oss's MXFP4 and the ternary TQ2_0),
every weight and the
token embedding in that type (written by our GGUF writer and quantisers),
against the float64 forward of reference_model.py over ggml's dequantisers
and against llama.cpp, as test_model_oracle.py does for the others: k100lc's
logits within 1e-3 of the largest logit of the float64 forward at every
step, and llama.cpp's greedy token wherever its top-2 margin exceeds the two
implementations' errors added. The dense weights run on the fast GEMVs
(GemvLinear), the embedding rows on the types' device decoders.
"""
import numpy as np
import pytest

import reference_model
from k100_run import generate
from reference_model import ReferenceModel

# the types' ggml ids and block geometry, for the reference's own GGUF reader
reference_model.TYPES.update({3: ("q4_1", 32, 20), 6: ("q5_0", 32, 22), 7: ("q5_1", 32, 24), 39: ("mxfp4", 32, 17),
                              10: ("q2_K", 256, 84), 11: ("q3_K", 256, 110), 16: ("iq2_xxs", 256, 66),
                              17: ("iq2_xs", 256, 74), 19: ("iq1_s", 256, 50), 29: ("iq1_m", 256, 56),
                              35: ("tq2_0", 256, 66)})

TYPES = ["q4_1", "q5_0", "q5_1", "mxfp4", "q2_K", "q3_K", "iq2_xxs", "iq2_xs", "iq1_s", "iq1_m", "tq2_0"]
PROMPT = [1, 300, 301, 302]


def row_error(a, ref):
    return np.abs(a.astype(np.float64) - ref).max(axis=1)


@pytest.mark.parametrize("wtype", TYPES)
def test_block_type_model_against_float64_and_llama(wtype, model_file, llama, ggml):
    path = model_file("llama", wtype)
    n = 8
    ids, ours, _ = generate(path, PROMPT, n)
    assert len(ids) == n and ours.shape[0] == n
    seq = PROMPT + ids[:-1]
    ref = ReferenceModel(path, ggml).logits_of(seq)[len(PROMPT) - 1:]
    scale = np.abs(ref).max(axis=1)
    err = row_error(ours, ref)
    with llama.load(path) as m:
        theirs = m.logits_of(seq)[len(PROMPT) - 1:]
    err_llama = row_error(theirs, ref)
    s = np.sort(theirs, axis=1)
    decided = s[:, -1] - s[:, -2] > err + err_llama
    agree = np.argmax(ours, axis=1) == np.argmax(theirs, axis=1)
    print(f"{wtype:8s} k100lc vs float64 {np.max(err / scale):.2e}, llama.cpp vs float64 "
          f"{np.max(err_llama / scale):.2e} (of the largest logit); greedy decided at {int(decided.sum())}/{n} "
          f"steps, agree there {int(agree[decided].sum())}")
    assert np.all(err <= 1e-3 * scale), f"k100lc logits off by {np.max(err / scale):.3e} of the largest logit"
    assert np.all(agree[decided]), f"greedy tokens differ at decided steps {np.nonzero(decided & ~agree)[0]}"
