// What the block emitters share: loads of a lane's block bytes and table
// entries, splitting packed 4-bit codes, bytes to f32, sign bits, the IQ4
// codebook lookup, and the batches of value runs handed to a sink.
#pragma once

#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "gguf/block_codec.h"

namespace k100::kernels::gguf::parts {

// dst (1 to 4 dwords) = the block's bytes [offset, offset + 4 * width).
void load(codegen::Kernel& k, const BlockInput& in, codegen::VGPR dst, int offset);
// dst = the 16-bit value at byte `offset`, zero-extended.
void load_u16(codegen::Kernel& k, const BlockInput& in, codegen::VGPR dst, int offset);
// The f16 at byte `offset` as f32 (a new register).
codegen::VGPR load_half(codegen::Kernel& k, const BlockInput& in, int offset, const char* name);

// dst = table[index]: entries of dst.width dwords (u32 or u64 tables).
void load_entry(codegen::Kernel& k, codegen::SGPR table, codegen::VGPR index, codegen::VGPR dst);
// dst = the byte table[index], zero-extended.
void load_entry_u8(codegen::Kernel& k, codegen::SGPR table, codegen::VGPR index, codegen::VGPR dst);

// The 4-bit codes of a dword, one per byte: lo = q & 0x0f0f0f0f, hi = (q >> 4) & 0x0f0f0f0f.
void split_nibbles(codegen::Kernel& k, codegen::VGPR q, codegen::VGPR lo, codegen::VGPR hi);
// out[c] = float(byte c of bytes), unsigned, for the 4 dwords of out.
void bytes_to_f32(codegen::Kernel& k, codegen::VGPR out, codegen::VGPR bytes);
// out[c] = float(int8 byte c of bytes).
void signed_bytes_to_f32(codegen::Kernel& k, codegen::VGPR out, codegen::VGPR bytes);
// out[c] = scale * out[c] (the product ggml forms, scale first).
void scale_values(codegen::Kernel& k, codegen::VGPR out, codegen::VGPR scale);
// Flips the sign of out[c] where bit first_bit + c of `signs` is set: the
// same value as ggml's multiplication by -1 for every number (a NaN may come
// out with the other sign bit).
void apply_signs(codegen::Kernel& k, codegen::VGPR out, codegen::VGPR signs, int first_bit);

// A 16-entry int8 codebook (IQ4_NL's of KERNELS.md 4.2, MXFP4's) as int8
// bytes in 4 VGPRs, and the lookup of four 4-bit codes (one per byte of
// `codes`) into four int8 values with two byte permutes and a bitfield select.
struct Codebook {
  codegen::VGPR table;  // 4 dwords: values 0-3, 4-7, 8-11, 12-15
};
Codebook codebook_of(codegen::Kernel& k, std::span<const int8_t, 16> values);
Codebook iq4_codebook(codegen::Kernel& k);
void codebook_lookup(codegen::Kernel& k, const Codebook& cb, codegen::VGPR codes, codegen::VGPR out);

// The 32 values of 16 bytes of codebook nibbles (4 dwords `qs`, Q4_0's
// order: byte j low nibble -> element j, high -> j + 16), elements first ..
// first + 31 of the block, each scale * codebook value, in two batches.
void codebook_values(codegen::Kernel& k, const BlockSink& sink, int first, codegen::VGPR qs, const Codebook& cb,
                     codegen::VGPR scale);

// The 32 values of i-quant sub-block ib from 8 words of 4 grid magnitudes
// (word n: elements 32 ib + 4 n .. + 3), in two batches: value = scale(n) *
// magnitude, negated where bit sign(n).second + c of sign(n).first is set.
void signed_grid_values(codegen::Kernel& k, const BlockSink& sink, int ib, const codegen::VGPR (&words)[8],
                        const std::function<codegen::VGPR(int n)>& scale,
                        const std::function<std::pair<codegen::VGPR, int>(int n)>& sign);

// dst byte c (c < 4) = bit first + c of src, shifted left by `shift` (0..7).
void spread_bits(codegen::Kernel& k, codegen::VGPR dst, codegen::VGPR src, int first, int shift);

// f32 from the unsigned bitfield [first, first + bits) of src (a new register).
codegen::VGPR field_f32(codegen::Kernel& k, codegen::VGPR src, int first, int bits, const char* name);

// One batch of value runs: announced to the sink when made, one 4-dword
// register per run, handed over by finish().
class RunBatch {
 public:
  RunBatch(codegen::Kernel& k, const BlockSink& sink, std::vector<int> firsts);
  codegen::VGPR operator[](size_t i) const { return runs_[i].values; }
  size_t size() const { return runs_.size(); }
  void finish() const { sink_.take(runs_); }

 private:
  const BlockSink& sink_;
  std::vector<ValueRun> runs_;
};

}  // namespace k100::kernels::gguf::parts
