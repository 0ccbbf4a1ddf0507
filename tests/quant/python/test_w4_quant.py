"""k100lc_kernels.quant (host packing, PYTHON_API.md 5) against the format
definitions of w4_reference.py: the INT4 packer's codes and bf16 scales, the
compressed-tensors -> RT4 conversion keeping every weight, the group-major
scales, E4M3 decoding at the values FORMATS.md 5.1 gives and the NVFP4 packer
within one E2M1 step. No device."""
import numpy as np
import pytest

import w4_reference as ref
from k100lc_kernels import quant


def test_int4_packer_follows_the_definition():
    rng = np.random.default_rng(1)
    w = rng.normal(0, 0.05, (5, 384)).astype(np.float32)
    w[1, 128:256] = 0
    packed, scales = quant.pack_int4_group128(w)
    assert len(packed) == 5 * 384 // 2 and len(scales) == 5 * 3 * 2
    codes, s = ref.ct_int4(packed, scales, 5, 384)
    assert s[1, 1] == 1.0 and not codes[1, 128:256].any()      # a zero group: scale 1.0, codes 0
    amax = np.abs(w.reshape(5, 3, 128)).max(axis=2)
    # bf16 of max|w| / 7, rounded to nearest: within half a bf16 step
    nz = amax > 0
    assert np.all(np.abs(s[nz] - amax[nz] / 7) <= (amax[nz] / 7) * 2.0 ** -8)
    # every weight is its nearest code (ties aside): error at most half a step
    err = np.abs(ref.dequant(codes, s) - w)
    assert np.all(err <= np.repeat(s, 128, axis=1) / 2 + 1e-9)
    np.testing.assert_array_equal(quant.dequant_int4_group128(packed, scales, 5, 384), ref.dequant(codes, s))


def test_rt4_conversion_and_group_major_scales():
    w = np.random.default_rng(2).normal(0, 0.1, (6, 256)).astype(np.float32)
    packed, scales = quant.pack_int4_group128(w)
    q4, s16 = quant.ct_int4_to_rt4(packed, scales)
    a, b = ref.ct_int4(packed, scales, 6, 256), ref.rt4(q4, s16, 6, 256)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(ref.dequant(*a), ref.dequant(*b))
    gm = quant.int4_scale_group_first_f32(scales, 6, 256)
    assert gm.shape == (2, 6) and gm.dtype == np.float32
    np.testing.assert_array_equal(gm, a[1].T)
    assert quant.ct_int4_to_twos_complement(bytes([0x08, 0xF7, 0x80])) == bytes([0x80, 0x7F, 0x08])
    with pytest.raises(ValueError, match="does not fit an f16"):
        quant.ct_int4_to_rt4(packed[:4], quant.f32_to_bf16_bits(np.float32(1e6)).tobytes())
    with pytest.raises(ValueError, match="K = 100"):
        quant.pack_int4_group128(np.ones((2, 100), np.float32))
    with pytest.raises(ValueError, match="2-D"):
        quant.pack_int4_group128(np.ones(128, np.float32))


def test_e4m3_values():
    b = np.array([0x00, 0x01, 0x07, 0x08, 0x38, 0x3C, 0x7E, 0x80, 0xB8, 0xFE], np.uint8)
    want = [0, 2.0 ** -9, 7 * 2.0 ** -9, 2.0 ** -6, 1.0, 1.5, 448.0, -0.0, -1.0, -448.0]
    np.testing.assert_array_equal(quant.e4m3_to_f32(b), np.array(want, np.float32))
    np.testing.assert_array_equal(ref.e4m3(b), np.array(want))
    # the encoder returns the nearest value (every finite code but the NaN patterns round-trips)
    codes = np.array([c for c in range(256) if c & 0x7F != 0x7F], np.uint8)
    back = quant.f32_to_e4m3(quant.e4m3_to_f32(codes))
    np.testing.assert_array_equal(back, np.where(codes == 0x80, 0, codes))
    np.testing.assert_array_equal(quant.f32_to_e4m3(np.float32([1000, -1000, 1.0625])), [0x7E, 0xFE, 0x38])


def test_nvfp4_packer():
    rng = np.random.default_rng(3)
    w = rng.normal(0, 0.05, (8, 64)).astype(np.float32)
    w[3, 16:32] = 0
    packed, sc, gs = quant.pack_nvfp4(w)
    assert packed.shape == (8, 32) and sc.shape == (8, 4)
    assert gs == pytest.approx(448 * 6 / np.abs(w).max(), rel=1e-6)
    vals, scales = ref.nvfp4(packed, sc, 8, 64)
    assert scales[3, 1] == 0 and not vals[3, 16:32].any()
    wd = ref.dequant(vals, scales) / gs
    blk = np.repeat(np.abs(w).reshape(8, 4, 16).max(axis=2), 16, axis=1)
    # half of the widest E2M1 gap (4 -> 6) of the block's scale, with the E4M3 rounding of the scale
    assert np.all(np.abs(wd - w) <= blk / 6 * 1.07)
    with pytest.raises(ValueError, match="K = 24"):
        quant.pack_nvfp4(np.ones((2, 24), np.float32))
