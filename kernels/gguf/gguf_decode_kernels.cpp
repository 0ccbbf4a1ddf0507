// The block decoders of KERNELS.md 3.4: work-item i decodes block i of w
// into y[i * elems ..] (iq4nl_to_i8_k: int8 codebook values and the block's
// scale). Work-item i = workgroup * group_size + local id for the
// `*_dequant_k` kernels, the global id (from the compact hidden block) for
// q4k_dequant, q5k_dequant and q6k_dequant; items past nblocks do nothing, so
// any grid that covers nblocks works. Each lane stores its 4-value runs with
// 16-byte stores at its own output row.
#include "gguf/gguf_generators.h"

namespace k100::kernels::gguf {

using namespace codegen;
using as::off, as::offset;

namespace {

// Occupancy asked for: a batch of 16 values next to the block's fields
// needs up to 48 VGPRs (Q6_K); a resident block takes more.
int decoder_waves(const BlockFormat& f) { return f.resident ? resident_waves(f) : 5; }

std::vector<Param> table_params(const BlockFormat& f) {
  std::vector<Param> p;
  for (const TableParam& t : f.tables) p.push_back(in(t.name, t.element));
  return p;
}

std::vector<SGPR> table_args(Kernel& k, const BlockFormat& f) {
  std::vector<SGPR> out;
  for (const TableParam& t : f.tables) out.push_back(k.arg(t.name));
  return out;
}

// body(i) with the work-item's block index i, in the lanes with i < nblocks.
void for_block_index(Kernel& k, SGPR group_size, const std::function<void(VGPR i)>& body) {
  const SGPR first = k.sgpr(1, "first block");
  const VGPR i = k.vgpr(1, "block");
  k.s_mul_i32(first, k.workgroup_id(), group_size);
  k.v_add_u32(i, first, k.local_id());
  if_lanes_below(k, k.arg("nblocks"), i, [&] { body(i); });
}

}  // namespace

bool dequant_by_global_id(const BlockFormat& f) {
  return f.type == quant::TensorType::Q4_K || f.type == quant::TensorType::Q5_K || f.type == quant::TensorType::Q6_K;
}

std::string dequant_lookup(const BlockFormat& f) {
  return f.prefix + (dequant_by_global_id(f) ? "_dequant" : "_dequant_k");
}

Signature dequant_signature(const BlockFormat& f) {
  std::vector<Param> p = {in("w", "u8"), out("y", "f32")};
  for (Param& t : table_params(f)) p.push_back(std::move(t));
  p.push_back(value("nblocks", "u32"));
  if (dequant_by_global_id(f)) return Signature(dequant_lookup(f), p, codeobj::HiddenArgLayout::Compact);
  p.push_back(value("group_size", "u32"));
  return Signature(dequant_lookup(f), p);
}

codeobj::CodeObject build_dequant(isa::Target target, const BlockFormat& f) {
  Kernel k(dequant_signature(f), target, {.waves_per_simd = decoder_waves(f)});
  SGPR group_size;
  if (dequant_by_global_id(f)) {
    const SGPR hidden = hidden_block(k);
    group_size = k.sgpr(1, "workgroup size");
    k.s_and_b32(group_size, hidden[3], 0xffff);  // group_size_x @H+12
  } else {
    group_size = k.arg("group_size");
  }
  for_block_index(k, group_size, [&](VGPR i) {
    BlockInput input{lane_address(k, k.arg("w"), i, uint32_t(f.bytes)), table_args(k, f), std::nullopt};
    if (f.resident) input.resident = load_resident(k, input.addr, f.bytes);
    const VGPR y = lane_address(k, k.arg("y"), i, uint32_t(4 * f.elems));
    const BlockSink store{nullptr, [&](const std::vector<ValueRun>& runs) {
                            for (const ValueRun& r : runs)
                              k.global_store_dwordx4(y, r.values, off, offset(4 * r.first));
                          }};
    f.decode(k, input, store);
  });
  return k.build();
}

Signature iq4nl_to_i8_signature() {
  return Signature("iq4nl_to_i8_k", {in("w", "u8"), out("out", "i8"), out("scale", "f32"), value("nblocks", "u32"),
                                     value("group_size", "u32")});
}

codeobj::CodeObject build_iq4nl_to_i8(isa::Target target) {
  Kernel k(iq4nl_to_i8_signature(), target, {.waves_per_simd = decoder_waves(block_format(quant::TensorType::IQ4_NL))});
  for_block_index(k, k.arg("group_size"), [&](VGPR i) {
    const BlockInput input{lane_address(k, k.arg("w"), i, 18u), {}, std::nullopt};
    const Iq4nlCodes codes = iq4nl_codes(k, input);
    // natural order: out[32 i + 4 j ..] = low codes of qs dword j, out[32 i + 16 + 4 j ..] = high codes
    const VGPR o = lane_address(k, k.arg("out"), i, 32u), s = lane_address(k, k.arg("scale"), i, 4u);
    for (int j = 0; j < 4; ++j) {
      k.global_store_dword(o, codes.low[j], off, offset(4 * j));
      k.global_store_dword(o, codes.high[j], off, offset(16 + 4 * j));
    }
    k.global_store_dword(s, codes.scale, off);
  });
  return k.build();
}

}  // namespace k100::kernels::gguf
