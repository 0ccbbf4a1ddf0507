// Which explicit operands of an instruction are read and which written, from
// the ISA table's operand fields (destination fields, SMEM/MUBUF data that a
// load writes, tied accumulators). Implicit registers (vcc, exec, scc, m0)
// are physical and do not take part in allocation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace k100::codegen {

struct OperandRole {
  bool read = false, write = false;
};

// Roles of the `count` operands (modifiers not counted) the caller gives to
// `mnemonic`; `glc` selects the returning form of atomics. Throws naming
// `where` for an unknown mnemonic.
std::vector<OperandRole> operand_roles(std::string_view mnemonic, size_t count, bool glc, const std::string& where);

// Memory instructions write their destination after issue (and may replay the
// address with XNACK), so a destination must not share a register with any
// source of the same instruction.
bool destination_is_early_clobber(std::string_view mnemonic);

}  // namespace k100::codegen
