// The split-KV decode attention kernels on the packed KV cache (KERNELS.md
// §3.7, §4.6): signatures and generators shared by their registry entries.
//   fa_decode_k / fa_decode_rows_k      (flash_decode_attend.cpp)
//   fa_decode_comb_k / fa_decode_rows_comb_k (flash_decode_combine.cpp)
//   attn_pv_part                        (attn_pv_part.cpp)
#pragma once

#include <string_view>
#include <vector>

#include "k100/codegen/codegen.h"
#include "k100/kernels/registry.h"

namespace k100::kernels::flash_decode {

extern const codegen::Signature kDecodeSig;      // fa_decode_k
extern const codegen::Signature kRowsSig;        // fa_decode_rows_k
extern const codegen::Signature kCombineSig;     // fa_decode_comb_k
extern const codegen::Signature kRowsCombineSig; // fa_decode_rows_comb_k

// rows: the row-batched causal form (3D grid, per-row split counts, vsnap).
codeobj::CodeObject build_attend(isa::Target target, bool rows);
codeobj::CodeObject build_combine(isa::Target target, bool rows);

// The explicit arguments, loaded by wave 0 alone and passed on through LDS
// (LDS bytes [lds_at, lds_at + 4 ceil4(dwords) + 4)); every wave goes to
// `exit` unless the workgroup has exactly `threads` work-items. Emitted first.
struct SharedArguments {
  const codegen::Signature* sig = nullptr;
  std::vector<codegen::SGPR> blocks;  // 16 dwords each
  codegen::SGPR wave;                 // the wave's index in the workgroup
  codegen::SGPR operator()(std::string_view name) const;  // an argument's dwords
};
SharedArguments share_arguments(codegen::Kernel& k, uint32_t lds_at, uint32_t threads, codegen::Label exit);
inline constexpr uint32_t kSharedArgumentsLds = 176;  // up to 40 dwords and the counter
// The split count of a row of n_kv keys (row_split_count in the reference).
codegen::SGPR row_split_count(codegen::Kernel& k, codegen::SGPR n_kv, codegen::SGPR max_split,
                              codegen::SGPR force_split);

void register_attention_entries(Registry& r);     // fa_decode_k, fa_decode_comb_k
void register_rows_entries(Registry& r);          // fa_decode_rows_k, fa_decode_rows_comb_k
void register_attn_pv_part(Registry& r);          // attn_pv_part

}  // namespace k100::kernels::flash_decode
