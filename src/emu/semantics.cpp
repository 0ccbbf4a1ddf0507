// The semantics registry: core handlers by row id, the explicit list of rows
// the emulator does not implement, instruction classes and coverage counts.
#include <string>
#include <string_view>
#include <unordered_map>

#include "core.h"

namespace k100::emu::detail {

namespace {

struct UnsupportedRule {
  std::string_view pattern;  // exact ident, or a prefix ending in '*', or '*'substring'*'
  std::string_view reason;
};

// The core's rows without semantics, each with the reason.
constexpr UnsupportedRule kCoreUnsupported[] = {
    {"s_cbranch_g_fork", "fork/join control-stack branches: a GFX6 compiler model, never emitted for gfx9"},
    {"s_cbranch_i_fork", "fork/join control-stack branches: a GFX6 compiler model, never emitted for gfx9"},
    {"s_cbranch_join", "fork/join control-stack branches: a GFX6 compiler model, never emitted for gfx9"},
    {"s_rfe_restore_b64", "return from exception restoring INST_ATC: trap-handler only (the emulator reports "
                          "traps as faults and has no ATC state)"},
    {"s_scratch_load_*", "scalar scratch: addressing not publicly documented for gfx9; LLVM never emits it"},
    {"s_scratch_store_*", "scalar scratch: addressing not publicly documented for gfx9; LLVM never emits it"},
    {"*src2*", "LDS src2 reduction forms: addressing only informally documented; no compiler emits them"},
    {"ds_condxchg32_rtn_b64", "conditional exchange: semantics not publicly documented; no compiler emits it"},
};

bool matches(std::string_view pattern, std::string_view ident) {
  if (pattern.size() > 2 && pattern.front() == '*' && pattern.back() == '*')
    return ident.find(pattern.substr(1, pattern.size() - 2)) != std::string_view::npos;
  if (pattern.ends_with('*')) return ident.starts_with(pattern.substr(0, pattern.size() - 1));
  return pattern == ident;
}

struct Tables {
  std::vector<CoreFn> core;
  std::vector<Unsupported> core_unsupported;
  std::vector<Unsupported> all_unsupported;
};

const Tables& tables() {
  static const Tables t = [] {
    Tables t;
    const auto& rows = isa::instructions();
    t.core.assign(rows.size(), nullptr);
    std::vector<CoreEntry> entries;
    register_salu(entries);
    register_smem(entries);
    register_vmem(entries);
    register_ds(entries);
    std::unordered_map<std::string_view, uint16_t> by_ident;
    for (const auto& d : rows) by_ident.emplace(d.ident, d.id);
    for (const CoreEntry& e : entries) {
      // Rows a given table revision lacks (older tables had no s_memtime) are
      // skipped; the decoder's raw-SMEM fallback covers those.
      auto it = by_ident.find(e.name);
      if (it != by_ident.end()) t.core[it->second] = e.fn;
    }
    for (const auto& d : rows) {
      if (d.is_vop() || t.core[d.id]) continue;
      for (const UnsupportedRule& r : kCoreUnsupported)
        if (matches(r.pattern, d.ident)) {
          t.core_unsupported.push_back({d.id, std::string(r.reason)});
          break;
        }
    }
    t.all_unsupported = t.core_unsupported;
    for (const Unsupported& u : valu_unsupported()) t.all_unsupported.push_back(u);
    return t;
  }();
  return t;
}

}  // namespace

const std::vector<CoreFn>& core_semantics() { return tables().core; }

InstClass class_of(const isa::InstDesc& d) {
  using isa::Family;
  switch (d.family) {
    case Family::SOP1:
    case Family::SOP2:
    case Family::SOPK:
    case Family::SOPC:
      if (d.name == "s_setpc_b64" || d.name == "s_swappc_b64" || d.name == "s_call_b64" || d.name == "s_rfe_b64" ||
          d.name == "s_cbranch_join" || d.name == "s_cbranch_g_fork" || d.name == "s_cbranch_i_fork")
        return InstClass::Branch;
      return InstClass::SALU;
    case Family::SOPP:
      if (d.name == "s_branch" || d.name.starts_with("s_cbranch_")) return InstClass::Branch;
      if (d.name == "s_waitcnt") return InstClass::Waitcnt;
      return InstClass::Other;
    case Family::SMEM: return InstClass::SMEM;
    case Family::VOP1:
    case Family::VOP2:
    case Family::VOPC:
    case Family::VOP3:
    case Family::VOP3P: return InstClass::VALU;
    case Family::DS: return InstClass::LDS;
    default: return InstClass::VMEM;
  }
}

}  // namespace k100::emu::detail

namespace k100::emu {

const std::vector<Unsupported>& core_unsupported() { return detail::tables().core_unsupported; }
const std::vector<Unsupported>& unsupported_instructions() { return detail::tables().all_unsupported; }
bool core_implements(uint16_t id) {
  const auto& c = detail::core_semantics();
  return id < c.size() && c[id] != nullptr;
}

SemanticsCoverage semantics_coverage() {
  SemanticsCoverage cov;
  const auto& rows = isa::instructions();
  const auto& valu = valu_semantics();
  std::vector<uint8_t> listed(rows.size(), 0);
  for (const Unsupported& u : unsupported_instructions())
    if (u.id < listed.size()) listed[u.id] = 1;
  cov.rows = rows.size();
  for (const auto& d : rows) {
    bool core = core_implements(d.id);
    bool v = d.id < valu.size() && valu[d.id] != nullptr;
    if (core) ++cov.core;
    if (v) ++cov.valu;
    if (core || v) ++cov.implemented;
    if (listed[d.id]) ++cov.unsupported;
    if (!core && !v && !listed[d.id]) cov.missing.push_back(d.id);
    if ((core || v) && listed[d.id]) cov.both.push_back(d.id);
  }
  return cov;
}

}  // namespace k100::emu
