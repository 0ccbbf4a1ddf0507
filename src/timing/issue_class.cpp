#include "issue_class.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace k100::timing::detail {

namespace {

// VALU instructions that occupy the SIMD four times as long as a full-rate
// one on GCN: the transcendental unit and the 32-bit integer multiplier.
bool quarter_rate(std::string_view name) {
  static constexpr std::string_view kPrefixes[] = {
      "v_rcp_", "v_rsq_", "v_sqrt_", "v_exp_", "v_log_", "v_sin_", "v_cos_",
      "v_mul_lo_u32", "v_mul_hi_u32", "v_mul_lo_i32", "v_mul_hi_i32", "v_mad_u64_u32", "v_mad_i64_i32"};
  for (std::string_view p : kPrefixes)
    if (name.starts_with(p)) return true;
  return false;
}

OpKind classify(const isa::InstDesc& d, emu::InstClass cls) {
  std::string_view n = d.name;
  switch (cls) {
    case emu::InstClass::VALU: return quarter_rate(n) ? OpKind::ValuQuarter : OpKind::Valu;
    case emu::InstClass::SALU: return OpKind::Salu;
    case emu::InstClass::Branch: return OpKind::Branch;
    case emu::InstClass::Waitcnt: return OpKind::Wait;
    case emu::InstClass::LDS: return OpKind::Lds;
    case emu::InstClass::VMEM:
      if (n.find("atomic") != std::string_view::npos) return OpKind::VmemAtomic;
      if (n.find("store") != std::string_view::npos) return OpKind::VmemStore;
      return OpKind::VmemLoad;
    case emu::InstClass::SMEM:
      if (n.starts_with("s_load") || n.starts_with("s_buffer_load")) return OpKind::SmemLoad;
      if (n.starts_with("s_store") || n.starts_with("s_buffer_store") || n.find("atomic") != std::string_view::npos)
        return OpKind::SmemStore;
      return OpKind::SmemOther;
    case emu::InstClass::Other:
      if (n.starts_with("s_endpgm")) return OpKind::End;
      if (n == "s_barrier") return OpKind::Barrier;
      if (n == "s_nop") return OpKind::Nop;
      if (n == "s_sleep") return OpKind::Sleep;
      return OpKind::Salu;
  }
  return OpKind::Salu;
}

}  // namespace

OpKind issue_kind(const isa::Inst& inst, emu::InstClass cls) {
  // Raw SMEM instructions the table lacks (s_memtime, s_dcache_* on older
  // tables) arrive with class SMEM and no meaningful row.
  if (cls == emu::InstClass::SMEM && inst.desc().family != isa::Family::SMEM) return OpKind::SmemOther;
  // One table per emulator class, filled on first use (thread-safe static).
  static const auto tables = [] {
    std::vector<std::vector<OpKind>> t(emu::kInstClassCount);
    const auto& rows = isa::instructions();
    for (int c = 0; c < emu::kInstClassCount; ++c) {
      t[size_t(c)].resize(rows.size());
      for (const auto& d : rows) t[size_t(c)][d.id] = classify(d, emu::InstClass(c));
    }
    return t;
  }();
  return tables[size_t(cls)][inst.id];
}

uint32_t lds_pass_cycles(const uint64_t* offsets, uint64_t lanes, uint32_t bytes) {
  uint32_t cycles = 0;
  const uint32_t dwords = std::max<uint32_t>(1, (bytes + 3) / 4);
  for (uint32_t k = 0; k < dwords; ++k)
    for (int half = 0; half < 2; ++half) {
      uint32_t dw[32];
      int n = 0;
      for (int l = half * 32; l < half * 32 + 32; ++l)
        if ((lanes >> l) & 1) dw[n++] = uint32_t(offsets[l] >> 2) + k;
      if (!n) continue;
      // Distinct dwords, then the fullest bank.
      std::sort(dw, dw + n);
      n = int(std::unique(dw, dw + n) - dw);
      uint8_t per_bank[32] = {};
      uint32_t worst = 0;
      for (int i = 0; i < n; ++i) worst = std::max<uint32_t>(worst, ++per_bank[dw[i] & 31]);
      cycles += worst;
    }
  return cycles;
}

}  // namespace k100::timing::detail
