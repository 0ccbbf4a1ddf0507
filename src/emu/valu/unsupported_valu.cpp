// The vector ALU rows the emulator deliberately leaves out, with the reason.
#include "k100/emu/semantics.h"
#include "k100/isa/table.h"

namespace k100::emu {

const std::vector<Unsupported>& valu_unsupported() {
  static const std::vector<Unsupported> list = [] {
    struct Entry {
      const char* name;
      const char* reason;
    };
    static const Entry kEntries[] = {
        {"v_screen_partition_4se_b32",
         "graphics-only screen-space partition lookup for four shader engines; its table is not publicly "
         "documented and no compute compiler emits it"},
    };
    std::vector<Unsupported> v;
    for (const Entry& e : kEntries)
      if (const isa::InstDesc* d = isa::find_instruction(e.name)) v.push_back({d->id, e.reason});
    return v;
  }();
  return list;
}

}  // namespace k100::emu
