// The modifier vocabulary of instruction statements: which names are
// modifiers (clamp, glc, offset:, op_sel:, row_shr:, ...), whether they take
// a value, belong to DPP or SDWA, and where llvm-mc expects them in order.
#pragma once

#include <string>
#include <string_view>

namespace k100::as::detail {

// Names llvm takes as modifiers without / with a value (cheap first-letter
// filter included: register names are rejected before comparing strings).
bool is_flag_mod(std::string_view s);
bool is_value_mod(std::string_view s);
bool is_dpp_mod(const std::string& n);
bool is_sdwa_mod(const std::string& n);
// Position of a modifier in the order llvm-mc reads them.
int modifier_rank(const std::string& n);

struct ModifierInfo {
  int rank = 0;
  bool dpp = false, sdwa = false, dpp_control = false;
};
// Classification of every modifier name, computed once (rank 0 and no
// flags for a name that is not a modifier).
const ModifierInfo& modifier_info(std::string_view name);

}  // namespace k100::as::detail
