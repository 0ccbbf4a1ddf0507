// int4_dequant_k and int4_dot_k on the codegen layer (int4_dot_generators.h).
//
// Both split a code word the same way: word & 0x0F0F0F0F holds the even
// elements 0, 2, 4, 6 in its bytes and (word >> 4) & 0x0F0F0F0F the odd ones,
// so v_cvt_f32_ubyte0..3 turn each code into a float without a shift per
// element; code - 8 is exact in f32.
#include "int4/int4_dot_generators.h"

#include "gguf/dot_block_index.h"

namespace k100::kernels::int4 {

using namespace codegen;
using as::off, as::offset;

namespace {

// values[0..8) = float(code_j - 8) of the eight codes of `word` (element j).
void word_values(Kernel& k, VGPR values, VGPR word, VGPR even, VGPR odd) {
  k.v_and_b32(even, 0x0F0F0F0Fu, word);
  k.v_lshrrev_b32(odd, 4, word);
  k.v_and_b32(odd, 0x0F0F0F0Fu, odd);
  for (int j = 0; j < 8; ++j) {
    const VGPR src = j % 2 ? odd : even, v = values.sub(j, 1);
    switch (j / 2) {
      case 0: k.v_cvt_f32_ubyte0(v, src); break;
      case 1: k.v_cvt_f32_ubyte1(v, src); break;
      case 2: k.v_cvt_f32_ubyte2(v, src); break;
      default: k.v_cvt_f32_ubyte3(v, src); break;
    }
    k.v_add_f32(v, -8.0f, v);
  }
}

}  // namespace

Signature int4_dequant_signature() {
  return Signature("int4_dequant_k", {in("w", "u32"), in("scale", "bf16"), out("y", "f32"), value("nwords", "u32"),
                                      value("group_size", "u32")});
}

codeobj::CodeObject build_int4_dequant(isa::Target target) {
  Kernel k(int4_dequant_signature(), target, {.waves_per_simd = 8});
  const SGPR first = k.sgpr(1, "first word");
  const VGPR i = k.vgpr(1, "word index");
  k.s_mul_i32(first, k.workgroup_id(), k.arg("group_size"));
  k.v_add_u32(i, first, k.local_id());
  if_lanes_below(k, k.arg("nwords"), i, [&] {
    const VGPR word = k.vgpr(1, "codes"), sbits = k.vgpr(1, "scale"), blk = k.vgpr(1, "block");
    const VGPR src = lane_address(k, k.arg("w"), i, 4u);
    k.global_load_dword(word, src, off);
    k.v_lshrrev_b32(blk, 4, i);  // 16 words per block, one scale each
    const VGPR sp = lane_address(k, k.arg("scale"), blk, 2u);
    k.global_load_ushort(sbits, sp, off);
    const VGPR values = k.vgpr(8, "values"), even = k.vgpr(1, "even codes"), odd = k.vgpr(1, "odd codes");
    word_values(k, values, word, even, odd);
    const VGPR s = k.vgpr(1, "scale f32");
    bf16_to_f32(k, s, sbits, 0);
    for (int j = 0; j < 8; ++j) k.v_mul_f32(values[j], values[j], s);
    const VGPR dst = lane_address(k, k.arg("y"), i, 32u);
    k.global_store_dwordx4(dst, values.sub(0, 4), off);
    k.global_store_dwordx4(dst, values.sub(4, 4), off, offset(16));
  });
  return k.build();
}

Signature int4_dot_signature() {
  return Signature("int4_dot_k", {in("w", "u32"), in("x", "f32"), out("partial", "f32"), value("nblocks", "u32"),
                                  value("group_size", "u32"), value("nbpr", "u32"), value("magic_nbpr", "u32"),
                                  value("rows_per_exp", "u32"), value("magic_rpe", "u32"), in("scale", "bf16"),
                                  in("ids", "u32"), value("stride", "u32"), value("rows_per_w", "u32"),
                                  value("magic_rpw", "u32")});
}

// Work-item i owns block i (KERNELS.md 3.3): q1 = i / nbpr, b = i % nbpr,
// e = q1 / rows_per_exp, ew = q1 / rows_per_w, local = (q1 - ew rows_per_w)
// nbpr + b; codes at w + ids[ew] stride + 64 local, scale at scale +
// ids[ew] (stride >> 5) + 2 local (a block's scale takes 1/32 of its
// bytes), x at x + (e nbpr + b) 512. The 128 products (code - 8) x go into
// four accumulators, summed as (a0 + a1) + (a2 + a3), times the scale once.
codeobj::CodeObject build_int4_dot(isa::Target target) {
  Kernel k(int4_dot_signature(), target, {.waves_per_simd = 4});
  const SGPR first = k.sgpr(1, "first block");
  const VGPR i = k.vgpr(1, "block");
  k.s_mul_i32(first, k.workgroup_id(), k.arg("group_size"));
  k.v_add_u32(i, first, k.local_id());
  if_lanes_below(k, k.arg("nblocks"), i, [&] {
    const auto [x, w, slot, local] = gguf::dot_block(k, i, uint32_t(kBlockElems), uint32_t(kBlockBytes));
    const SGPR spitch = k.sgpr(1, "scale group bytes");
    k.s_lshr_b32(spitch, k.arg("stride"), 5);
    const VGPR sp = lane_address(k, k.arg("scale"), slot, Operand(spitch));
    add_lane_offset(k, sp, local, 2u);
    const VGPR codes = k.vgpr(16, "codes"), sbits = k.vgpr(1, "scale");
    for (int q = 0; q < 4; ++q) k.global_load_dwordx4(codes.sub(4 * q, 4), w, off, offset(16 * q));
    k.global_load_ushort(sbits, sp, off);
    const VGPR acc = k.vgpr(4, "acc"), even = k.vgpr(1, "even codes"), odd = k.vgpr(1, "odd codes");
    for (int c = 0; c < 4; ++c) k.v_mov_b32(acc[c], 0);
    // Four words (32 elements) at a time: their x (8 loads) first, then the values.
    for (int q = 0; q < 4; ++q) {
      std::vector<VGPR> xs;
      for (int p = 0; p < 8; ++p) {
        xs.push_back(k.vgpr(4, "x"));
        k.global_load_dwordx4(xs.back(), x, off, offset(4 * (32 * q + 4 * p)));
      }
      for (int d = 0; d < 4; ++d) {
        const VGPR values = k.vgpr(8, "values");
        word_values(k, values, codes[4 * q + d], even, odd);
        for (int j = 0; j < 8; ++j) k.v_fmac_f32(acc[j % 4], values[j], xs[size_t(2 * d + j / 4)][j % 4]);
      }
    }
    k.v_add_f32(acc[0], acc[0], acc[1]);
    k.v_add_f32(acc[2], acc[2], acc[3]);
    k.v_add_f32(acc[0], acc[0], acc[2]);
    const VGPR s = k.vgpr(1, "scale f32");
    bf16_to_f32(k, s, sbits, 0);
    k.v_mul_f32(acc[0], acc[0], s);
    const VGPR p = lane_address(k, k.arg("partial"), i, 4u);
    k.global_store_dword(p, acc[0], off);
  });
  return k.build();
}

}  // namespace k100::kernels::int4
