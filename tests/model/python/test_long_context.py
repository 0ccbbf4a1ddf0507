"""Long context: a tiny random qwen2 model (1 layer, dim 128, 2 query heads / 1 KV head of 64) fed an 8191-token
prompt one token at a time on the emulator, context 8192; the logits of the last step (after position 8190, with
every earlier row in the KV cache) against the float64 forward of reference_model, which computes the whole prompt
with causal attention at once (checked here against its own token-by-token form on a prefix).

At this length the RoPE angles reach ~8000 radians and the attention sums run over 8191 rows split across the
decode kernels' partitions: errors there grow with the position, so they are measured at the last one. Tolerance:
1e-3 of the largest logit, as for the short runs."""
import numpy as np

import gguf_write
from k100_run import generate, row_error
from reference_model import Gguf, ReferenceModel

CONTEXT = 8192


def test_last_step_at_context_8k(model_file, ggml, tmp_path):
    f = Gguf(model_file("qwen2", "f32"))
    vocab = [(k, v) for k, v in f.raw_kv.items() if k.startswith("tokenizer.")]
    n_vocab = len(f.meta["tokenizer.ggml.tokens"])
    spec = gguf_write.ModelSpec("qwen2", n_layer=1, n_embd=128, n_head=2, n_kv=1, head_dim=64, n_ff=64, seed=11)
    kvs, tensors = gguf_write.random_model(spec, vocab, n_vocab, optional=["qkv_bias"])
    kvs = [(k, gguf_write.u32(CONTEXT) if k == "qwen2.context_length" else v) for k, v in kvs]
    path = tmp_path / "long.gguf"
    gguf_write.write(path, kvs, tensors)

    prompt = [int(t) for t in np.random.default_rng(3).integers(3, n_vocab, CONTEXT - 1)]
    _, ours, _ = generate(path, prompt, 1, extra=["-c", str(CONTEXT)])
    assert ours.shape == (1, n_vocab)

    ref_model = ReferenceModel(path, ggml)
    short = prompt[:40]
    batched = ref_model.prompt_logits(short)
    stepped = ref_model.logits_of(short)
    assert np.abs(batched - stepped).max() <= 1e-9 * np.abs(stepped).max()  # the reference's two forms agree

    ref = ref_model.prompt_logits(prompt, rows=[CONTEXT - 2])
    err = row_error(ours, ref)[0]
    scale = np.abs(ref).max()
    print(f"context {CONTEXT}: last-step error {err:.3e}, largest logit {scale:.3f}, ratio {err / scale:.2e}")
    assert err <= 1e-3 * scale, (err, scale)
    assert int(np.argmax(ours[0])) == int(np.argmax(ref[0])) or \
        np.sort(ref[0])[-1] - np.sort(ref[0])[-2] <= 2 * err  # the greedy choice, unless the top two tie within the error
