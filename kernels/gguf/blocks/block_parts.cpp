#include "gguf/blocks/block_parts.h"

#include <algorithm>
#include <cstring>

#include "k100/quant/iq_tables.h"

namespace k100::kernels::gguf::parts {

using namespace codegen;
using as::off, as::offset;

void load(Kernel& k, const BlockInput& in, VGPR dst, int at) {
  if (in.resident) {
    // bytes at .. at + 4 width from the resident dwords: whole dwords moved,
    // others put together from two neighbours (the offsets are constants)
    const ResidentBlock& r = *in.resident;
    for (int j = 0; j < dst.width; ++j) {
      const int b = at + 4 * j;
      if (b % 4 == 0)
        k.v_mov_b32(dst[j], r.dword(b / 4));
      else
        k.v_alignbyte_b32(dst[j], r.dword(b / 4 + 1), r.dword(b / 4), b % 4);
    }
    return;
  }
  switch (dst.width) {
    case 1: return k.global_load_dword(dst, in.addr, off, offset(at));
    case 2: return k.global_load_dwordx2(dst, in.addr, off, offset(at));
    case 3: return k.global_load_dwordx3(dst, in.addr, off, offset(at));
    default: return k.global_load_dwordx4(dst, in.addr, off, offset(at));
  }
}

void load_u16(Kernel& k, const BlockInput& in, VGPR dst, int at) {
  if (in.resident)
    k.v_bfe_u32(dst, in.resident->dword(at / 4), 8 * (at % 4), 16);
  else
    k.global_load_ushort(dst, in.addr, off, offset(at));
}

VGPR load_half(Kernel& k, const BlockInput& in, int at, const char* name) {
  VGPR h = k.vgpr(1, name);
  load_u16(k, in, h, at);
  f16_to_f32(k, h, h);
  return h;
}

void load_entry(Kernel& k, SGPR table, VGPR index, VGPR dst) {
  VGPR byte_offset = k.vgpr(1, "table offset");
  k.v_lshlrev_b32(byte_offset, dst.width == 2 ? 3 : 2, index);
  if (dst.width == 2)
    k.global_load_dwordx2(dst, byte_offset, table);
  else
    k.global_load_dword(dst, byte_offset, table);
}

void load_entry_u8(Kernel& k, SGPR table, VGPR index, VGPR dst) { k.global_load_ubyte(dst, index, table); }

void split_nibbles(Kernel& k, VGPR q, VGPR lo, VGPR hi) {
  k.v_and_b32(lo, 0x0f0f0f0fu, q);
  k.v_lshrrev_b32(hi, 4, q);
  k.v_and_b32(hi, 0x0f0f0f0fu, hi);
}

void bytes_to_f32(Kernel& k, VGPR out, VGPR bytes) {
  for (int c = 0; c < 4; ++c) u8_to_f32(k, out[c], bytes, c);
}

void signed_bytes_to_f32(Kernel& k, VGPR out, VGPR bytes) {
  for (int c = 0; c < 4; ++c) i8_to_f32(k, out[c], bytes, c);
}

void scale_values(Kernel& k, VGPR out, VGPR scale) {
  for (int c = 0; c < 4; ++c) k.v_mul_f32(out[c], scale, out[c]);
}

void apply_signs(Kernel& k, VGPR out, VGPR signs, int first_bit) {
  VGPR t = k.vgpr(1, "sign");
  for (int c = 0; c < 4; ++c) {
    const int bit = first_bit + c;
    if (bit == 31) {
      k.v_and_b32(t, 0x80000000u, signs);
    } else {
      k.v_lshlrev_b32(t, 31 - bit, signs);
      k.v_and_b32(t, 0x80000000u, t);
    }
    k.v_xor_b32(out[c], t, out[c]);
  }
}

Codebook codebook_of(Kernel& k, std::span<const int8_t, 16> values) {
  Codebook cb{k.vgpr(4, "codebook")};
  for (int w = 0; w < 4; ++w) {
    uint32_t word;
    std::memcpy(&word, values.data() + 4 * w, 4);
    k.v_mov_b32(cb.table[w], word);
  }
  return cb;
}

Codebook iq4_codebook(Kernel& k) { return codebook_of(k, quant::kvalues_iq4nl()); }

void codebook_values(Kernel& k, const BlockSink& sink, int first, VGPR qs, const Codebook& cb, VGPR scale) {
  for (int h = 0; h < 2; ++h) {
    const int base = first + 8 * h;
    RunBatch b(k, sink, {base, base + 4, base + 16, base + 20});
    for (int j = 0; j < 2; ++j) {
      const VGPR lo = k.vgpr(1, "low nibbles"), hi = k.vgpr(1, "high nibbles");
      split_nibbles(k, qs[2 * h + j], lo, hi);
      codebook_lookup(k, cb, lo, lo);
      codebook_lookup(k, cb, hi, hi);
      signed_bytes_to_f32(k, b[size_t(j)], lo);
      signed_bytes_to_f32(k, b[size_t(2 + j)], hi);
      scale_values(k, b[size_t(j)], scale);
      scale_values(k, b[size_t(2 + j)], scale);
    }
    b.finish();
  }
}

void spread_bits(Kernel& k, VGPR dst, VGPR src, int first, int shift) {
  // n * 0x204081 puts bit i of a 4-bit n at bit 8i (the copies do not overlap)
  k.v_bfe_u32(dst, src, first, 4);
  k.v_mul_u32_u24(dst, 0x204081u, dst);
  k.v_and_b32(dst, 0x01010101u, dst);
  if (shift) k.v_lshlrev_b32(dst, shift, dst);
}

void codebook_lookup(Kernel& k, const Codebook& cb, VGPR codes, VGPR out) {
  // v_perm_b32 picks byte s (0..7) of {src0, src1} (src1 the low dword) for
  // every selector byte: the low three bits index the lower or the upper
  // half of the codebook, bit 3 of each code selects between the two.
  VGPR sel = k.vgpr(1, "codebook selector"), upper = k.vgpr(1, "codebook upper"), mask = k.vgpr(1, "byte mask"),
       t = k.vgpr(1, "mask temp");
  k.v_and_b32(sel, 0x07070707u, codes);
  k.v_lshrrev_b32(mask, 3, codes);
  k.v_and_b32(mask, 0x01010101u, mask);
  k.v_lshlrev_b32(t, 8, mask);
  k.v_sub_u32(mask, t, mask);  // 0x01 -> 0xff per byte: m * 256 - m
  // `codes` is not read below, so `out` may be the same register
  k.v_perm_b32(upper, cb.table[3], cb.table[2], sel);
  k.v_perm_b32(out, cb.table[1], cb.table[0], sel);
  k.v_bfi_b32(out, mask, upper, out);
}

void signed_grid_values(Kernel& k, const BlockSink& sink, int ib, const VGPR (&words)[8],
                        const std::function<VGPR(int n)>& scale,
                        const std::function<std::pair<VGPR, int>(int n)>& sign) {
  for (int p = 0; p < 2; ++p) {
    const int e = 32 * ib + 16 * p;
    RunBatch b(k, sink, {e, e + 4, e + 8, e + 12});
    for (int r = 0; r < 4; ++r) {
      const int n = 4 * p + r;
      bytes_to_f32(k, b[size_t(r)], words[n]);
      scale_values(k, b[size_t(r)], scale(n));
      const auto [bits, first] = sign(n);
      apply_signs(k, b[size_t(r)], bits, first);
    }
    b.finish();
  }
}

VGPR field_f32(Kernel& k, VGPR src, int first, int bits, const char* name) {
  VGPR v = k.vgpr(1, name);
  k.v_bfe_u32(v, src, first, bits);
  k.v_cvt_f32_u32(v, v);
  return v;
}

RunBatch::RunBatch(Kernel& k, const BlockSink& sink, std::vector<int> firsts) : sink_(sink) {
  if (sink.expect) sink.expect(firsts);
  for (int f : firsts) runs_.push_back({f, k.vgpr(4, "values")});
}

}  // namespace k100::kernels::gguf::parts

namespace k100::kernels::gguf {

ResidentBlock load_resident(codegen::Kernel& k, codegen::VGPR addr, int bytes) {
  using namespace codegen;
  const int dwords = (bytes + 3) / 4, whole = bytes / 4;
  ResidentBlock r;
  for (int first = 0; first < dwords; first += 16)
    r.parts.push_back(k.vgpr(std::min(16, dwords - first), "resident block"));
  // dwordx4 pieces never cross a 16-dword part
  for (int done = 0; done < whole;) {
    const int w = std::min(4, whole - done);
    const VGPR d = r.parts[size_t(done / 16)].sub(done % 16, w);
    const auto at = as::offset(4 * done);
    if (w == 4) k.global_load_dwordx4(d, addr, as::off, at);
    else if (w == 3) k.global_load_dwordx3(d, addr, as::off, at);
    else if (w == 2) k.global_load_dwordx2(d, addr, as::off, at);
    else k.global_load_dword(d, addr, as::off, at);
    done += w;
  }
  if (bytes % 4) k.global_load_ushort(r.dword(whole), addr, as::off, as::offset(4 * whole));  // never past the block
  return r;
}

int resident_waves(const BlockFormat& f) { return (f.bytes + 3) / 4 > 28 ? 2 : 3; }

}  // namespace k100::kernels::gguf
