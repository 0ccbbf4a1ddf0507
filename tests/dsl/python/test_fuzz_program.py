"""The differential fuzzer itself: programs are reproducible from their seed,
the f16/bf16/ballot programs (--f16) run in the
interpreter, and a wrong semantics in the interpreter is caught by the
comparison with the compiled code on the emulator (the check can fail).

The 300-program run is the ctest entry dsl.fuzz."""
import numpy as np

import k100lc_kernels.interpret_values as values
from k100lc_kernels import fuzz, interpret
from k100lc_kernels.fuzz_program import generate


def test_a_seed_gives_the_same_program():
    a, b = generate(123), generate(123)
    assert a.text == b.text and a.shape == b.shape
    assert generate(124).text != a.text
    args1, args2 = fuzz.arguments(a), fuzz.arguments(b)
    assert all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(args1, args2))


def test_f16_programs_run_in_the_interpreter():
    seen = set()
    for seed in range(12):
        p = generate(seed, f16=True)
        seen |= p.features
        interpret(p.text, *fuzz.arguments(p), grid=p.shape.grid, workgroup=p.shape.workgroup, kernel=p.name)
    assert {"f16", "ballot"} <= seen


def test_a_wrong_interpreter_is_caught(monkeypatch):
    def wrong(a, count, left, t):  # a shift by the count modulo 64 instead of 32
        c = np.asarray(count).astype(np.uint64) & np.uint64(63)
        a64 = np.asarray(a).astype(np.uint64 if t != "s32" else np.int64)
        out = np.left_shift(a64, c.astype(a64.dtype)) if left else np.right_shift(a64, c.astype(a64.dtype))
        return out.astype(values.DTYPES[t])
    seeds = range(30)
    assert not fuzz.run(seeds[0], len(seeds), log=lambda *a: None)
    monkeypatch.setattr(values, "shift", wrong)
    failures = fuzz.run(seeds[0], len(seeds), log=lambda *a: None)
    assert failures and all("differs" in why for _, why in failures)
