#include "modifier_names.h"

#include <iterator>
#include <unordered_map>

#include "syntax.h"

namespace k100::as {
namespace detail {

namespace {

constexpr std::string_view kFlagMods[] = {"clamp", "glc", "slc", "lds", "tfe", "gds", "offen", "idxen", "nv",
                           "row_mirror", "row_half_mirror", "off_placeholder_"};
constexpr std::string_view kValueMods[] = {"offset", "offset0", "offset1", "mul", "div", "op_sel", "op_sel_hi",
                            "neg_lo", "neg_hi", "dst_sel", "dst_unused", "src0_sel", "src1_sel",
                            "quad_perm", "row_shl", "row_shr", "row_ror", "wave_shl", "wave_rol",
                            "wave_shr", "wave_ror", "row_bcast", "row_mask", "bank_mask",
                            "bound_ctrl", "format", "dfmt", "nfmt"};

// Modifier names start with a few letters only: reject register names and
// the like before comparing strings.
bool could_be_modifier(std::string_view s) {
  if (s.size() < 2) return false;
  switch (s[0]) {
    case 'c': case 'g': case 's': case 'l': case 't': case 'o': case 'i': case 'n': case 'r':
    case 'm': case 'd': case 'q': case 'w': case 'b': case 'f':
      break;
    default:
      return false;
  }
  // s0..s101 / v-registers are never modifiers
  if (s[0] == 's' && s[1] >= '0' && s[1] <= '9') return false;
  return true;
}

}  // namespace

bool is_flag_mod(std::string_view s) {
  if (!could_be_modifier(s)) return false;
  for (std::string_view m : kFlagMods)
    if (s == m) return true;
  return false;
}
bool is_value_mod(std::string_view s) {
  if (!could_be_modifier(s)) return false;
  for (std::string_view m : kValueMods)
    if (s == m) return true;
  return false;
}

bool is_dpp_mod(const std::string& n) {
  return n == "quad_perm" || n == "row_shl" || n == "row_shr" || n == "row_ror" || n == "wave_shl" ||
         n == "wave_rol" || n == "wave_shr" || n == "wave_ror" || n == "row_mirror" ||
         n == "row_half_mirror" || n == "row_bcast" || n == "row_mask" || n == "bank_mask" ||
         n == "bound_ctrl";
}
bool is_sdwa_mod(const std::string& n) {
  return n == "dst_sel" || n == "dst_unused" || n == "src0_sel" || n == "src1_sel";
}

int modifier_rank(const std::string& n) {
  static const char* order[] = {"format", "dfmt", "nfmt", "idxen", "offen", "offset", "offset0", "offset1",
                                "op_sel", "op_sel_hi", "neg_lo", "neg_hi", "glc", "glc", "lds", "tfe", "gds",
                                "clamp", "mul", "mul", "dst_sel", "dst_unused", "src0_sel", "src1_sel",
                                "dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl"};
  std::string key = n;
  if (key == "slc") key = "glc";
  if (key == "div") key = "mul";
  if (is_dpp_mod(key) && key != "row_mask" && key != "bank_mask" && key != "bound_ctrl") key = "dpp_ctrl";
  for (int i = 0; i < int(std::size(order)); ++i)
    if (key == order[i]) return i;
  return 0;
}

const ModifierInfo& modifier_info(std::string_view name) {
  static const std::unordered_map<std::string_view, ModifierInfo> table = [] {
    std::unordered_map<std::string_view, ModifierInfo> t;
    auto add = [&](std::string_view n) {
      std::string s(n);
      ModifierInfo i;
      i.rank = modifier_rank(s);
      i.dpp = is_dpp_mod(s);
      i.sdwa = is_sdwa_mod(s);
      i.dpp_control = i.dpp && s != "row_mask" && s != "bank_mask" && s != "bound_ctrl";
      t.emplace(n, i);
    };
    for (std::string_view n : kFlagMods) add(n);
    for (std::string_view n : kValueMods) add(n);
    return t;
  }();
  static const ModifierInfo none;
  auto it = table.find(name);
  return it == table.end() ? none : it->second;
}

}  // namespace detail

SynModifier make_modifier(std::string name, uint32_t col) {
  SynModifier m;
  const detail::ModifierInfo& info = detail::modifier_info(name);
  m.name = std::move(name);
  m.rank = info.rank;
  m.dpp = info.dpp;
  m.sdwa = info.sdwa;
  m.dpp_control = info.dpp_control;
  m.col = col;
  return m;
}

bool is_modifier_name(std::string_view name) { return detail::is_flag_mod(name) || detail::is_value_mod(name); }

}  // namespace k100::as
