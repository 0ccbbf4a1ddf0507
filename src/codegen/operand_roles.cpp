#include "operand_roles.h"

#include "k100/base/error.h"
#include "k100/isa/table.h"

namespace k100::codegen {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

OperandRole role_of(const isa::InstDesc& d, isa::Field f, bool glc) {
  using isa::Field;
  const std::string_view n = d.name;
  switch (f) {
    case Field::vdst:
      // v_mac/v_fmac accumulate into their destination; v_writelane keeps other lanes
      return {contains(n, "mac_") || n.starts_with("v_writelane"), true};
    case Field::sdst_vop3b: return {false, true};
    case Field::sdst:
      if (d.family == isa::Family::SOPK) {
        if (n.starts_with("s_cmpk_") || n.starts_with("s_setreg")) return {true, false};
        if (n == "s_movk_i32" || n.starts_with("s_getreg")) return {false, true};
        return {true, true};  // s_addk, s_mulk, s_cmovk
      }
      return {false, true};
    case Field::sdata:
      if (contains(n, "load") || contains(n, "memtime") || contains(n, "memrealtime")) return {false, true};
      if (contains(n, "atomic")) return {true, glc};
      return {true, false};
    case Field::vdata:
      if (d.family == isa::Family::MUBUF || d.family == isa::Family::MTBUF) {
        if (contains(n, "load")) return {false, true};
        if (contains(n, "atomic")) return {true, glc};
      }
      return {true, false};
    default: return {true, false};
  }
}

}  // namespace

std::vector<OperandRole> operand_roles(std::string_view mnemonic, size_t count, bool glc, const std::string& where) {
  std::string_view base = mnemonic;
  bool e64 = false;
  for (std::string_view suffix : {"_e64", "_e32", "_sdwa", "_dpp"})
    if (base.ends_with(suffix)) {
      e64 = suffix == "_e64";
      base.remove_suffix(suffix.size());
    }
  const isa::InstDesc* d = isa::find_instruction(base);
  if (!d) d = isa::find_instruction(mnemonic);
  if (!d) throw Error(where + ": unknown instruction");
  const std::vector<isa::OperandSpec>* list = &d->operands;
  // The native lists of VOPC, v_add_co, v_cndmask, ... name vcc where the e64
  // form has an SGPR operand of the same position and role; the e64 list says
  // which (a destination or a source).
  bool names_vcc = false;
  for (const isa::OperandSpec& s : d->operands) names_vcc = names_vcc || s.field == isa::Field::vcc;
  if (d->has_e64() && count == d->e64_operands.size() && (e64 || names_vcc || count != d->operands.size()))
    list = &d->e64_operands;
  std::vector<OperandRole> roles;
  // a returning FLAT/GLOBAL atomic (glc) prints its destination first
  if (d->has(isa::kFlagAtomicRtn) && glc && count == list->size() + 1 &&
      (d->family == isa::Family::FLAT || d->family == isa::Family::GLOBAL))
    roles.push_back({false, true});
  for (const isa::OperandSpec& s : *list) roles.push_back(role_of(*d, s.field, glc));
  return roles;
}

bool destination_is_early_clobber(std::string_view mnemonic) {
  const isa::InstDesc* d = isa::find_instruction(mnemonic);
  if (!d) return false;
  using isa::Family;
  switch (d->family) {
    case Family::SMEM: case Family::DS: case Family::MUBUF: case Family::MTBUF:
    case Family::FLAT: case Family::GLOBAL: case Family::SCRATCH: return true;
    default: return d->quirk(isa::kQuirkEarlyClobber);
  }
}

}  // namespace k100::codegen
