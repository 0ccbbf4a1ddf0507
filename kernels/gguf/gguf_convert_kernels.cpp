// f16_to_f32_k and bf16_to_f32_k: the plain 16-bit tensor types of a GGUF
// file widened on the device (the catalog has no converter of its own). One
// element per work-item by global id (compact hidden block, like the K-quant
// decoders), so any grid covering n works: a 16-bit load, the exact widening
// of conversion.h, a dword store.
#include "gguf/gguf_generators.h"

namespace k100::kernels::gguf {

using namespace codegen;
using as::off;

Signature half_to_f32_signature(HalfKind kind) {
  const bool f16 = kind == HalfKind::F16;
  return Signature(f16 ? "f16_to_f32_k" : "bf16_to_f32_k",
                   {in("x", f16 ? "f16" : "bf16"), out("y", "f32"), value("n", "u32")},
                   codeobj::HiddenArgLayout::Compact);
}

codeobj::CodeObject build_half_to_f32(isa::Target target, HalfKind kind) {
  Kernel k(half_to_f32_signature(kind), target, {.waves_per_simd = 10});
  const SGPR hidden = hidden_block(k), first = k.sgpr(1, "first element");
  const VGPR i = k.vgpr(1, "element"), v = k.vgpr(1, "value");
  k.s_and_b32(first, hidden[3], 0xffff);  // group_size_x @H+12
  k.s_mul_i32(first, first, k.workgroup_id());
  k.v_add_u32(i, first, k.local_id());
  if_lanes_below(k, k.arg("n"), i, [&] {
    const VGPR src = lane_address(k, k.arg("x"), i, 2u), dst = lane_address(k, k.arg("y"), i, 4u);
    k.global_load_ushort(v, src, off);
    if (kind == HalfKind::F16) {
      // A NaN comes out quiet with its payload, as the host codecs and ggml
      // widen it, whether or not the conversion instruction quiets it.
      const VGPR quiet = k.vgpr(1, "quiet nan");
      f16_to_f32(k, v, v, 0);
      k.v_or_b32(quiet, 0x400000u, v);
      k.v_cmp_u_f32(as::vcc, v, v);
      k.v_cndmask_b32(v, v, quiet, as::vcc);
    } else {
      bf16_to_f32(k, v, v, 0);
    }
    k.global_store_dword(dst, v, off);
  });
  return k.build();
}

}  // namespace k100::kernels::gguf
