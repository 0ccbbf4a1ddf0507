// Placeholder used only while src/emu/valu/ provides no sources: no VALU row
// has semantics, and each one is reported as such.
#include <string>

#include "k100/emu/semantics.h"
#include "k100/isa/table.h"

namespace k100::emu {

const std::vector<ValuFn>& valu_semantics() {
  static const std::vector<ValuFn> none(isa::instructions().size(), nullptr);
  return none;
}

const std::vector<Unsupported>& valu_unsupported() {
  static const std::vector<Unsupported> all = [] {
    std::vector<Unsupported> v;
    for (const auto& d : isa::instructions())
      if (d.is_vop()) v.push_back({d.id, "vector ALU semantics are not built in"});
    return v;
  }();
  return all;
}

}  // namespace k100::emu
