// The vector ALU's half of the semantics registry: every VOP1/VOP2/VOPC/
// VOP3/VOP3P row of the ISA table gets its function from one of the
// add_*_ops files, looked up by the row's identifier.
#include <stdexcept>

#include "drivers.h"
#include "k100/isa/table.h"

namespace k100::emu {

const std::vector<ValuFn>& valu_semantics() {
  static const std::vector<ValuFn> table = [] {
    valu::Defs defs;
    valu::add_integer_ops(defs);
    valu::add_float32_ops(defs);
    valu::add_float64_ops(defs);
    valu::add_float16_ops(defs);
    valu::add_convert_ops(defs);
    valu::add_compare_ops(defs);
    valu::add_packed_ops(defs);
    valu::add_lane_ops(defs);
    valu::add_special_ops(defs);
    valu::add_transcendental_ops(defs);
    std::vector<ValuFn> t(isa::instructions().size(), nullptr);
    for (const valu::SemanticDef& d : defs) {
      const isa::InstDesc* row = isa::find_instruction(d.name);
      if (!row || row->name != d.name || !row->is_vop())
        throw std::logic_error("emu/valu: semantics registered for unknown VALU row " + d.name);
      if (t[row->id]) throw std::logic_error("emu/valu: semantics registered twice for " + d.name);
      t[row->id] = d.fn;
    }
    return t;
  }();
  return table;
}

}  // namespace k100::emu
