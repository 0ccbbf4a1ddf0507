#include "inst_factory.h"

#include <vector>

#include "k100/asm/instruction_match.h"
#include "k100/base/error.h"
#include "k100/isa/table.h"

namespace k100::codegen {

MInst make_inst(const MFunction& f, std::string_view mnemonic, std::span<const PassOperand> ops, int scope,
                uint8_t flags) {
  std::vector<as::Arg> args;
  std::vector<int> slot_reg;  // virtual register of each placeholder slot
  int label = -1;
  for (const PassOperand& o : ops) {
    switch (o.kind) {
      case PassOperand::Virtual: {
        size_t s = 0;
        while (s < slot_reg.size() && slot_reg[s] != o.reg.id) ++s;
        if (s == slot_reg.size()) {
          if (s == kPlaceholderSlots)
            throw Error("kernel '" + f.name + "', " + std::string(mnemonic) + ": more than " +
                        std::to_string(kPlaceholderSlots) + " registers");
          slot_reg.push_back(o.reg.id);
        }
        const RegFile file = f.regs[size_t(o.reg.id)].file;
        const uint16_t code = uint16_t(placeholder_code(file, int(s)) + o.reg.offset);
        if (file == RegFile::Vector) args.emplace_back(as::VGPR{uint16_t(code - isa::code::kVgprFirst), o.reg.width});
        else args.emplace_back(as::SGPR{code, o.reg.width});
        break;
      }
      case PassOperand::Physical:
        if (o.code == isa::code::kOff) args.emplace_back(as::off);
        else if (o.code >= isa::code::kVgprFirst) args.emplace_back(as::VGPR{uint16_t(o.code - isa::code::kVgprFirst), o.width});
        else args.emplace_back(as::SGPR{o.code, o.width});
        break;
      case PassOperand::Imm: args.emplace_back(o.value); break;
      case PassOperand::Label:
        label = int(o.value);
        args.emplace_back(as::Label{label});
        break;
      case PassOperand::Modifier: args.emplace_back(o.modifier); break;
      case PassOperand::Plain: args.push_back(*o.plain); break;
    }
    if (o.mods & 1) args.back().neg();
    if (o.mods & 2) args.back().abs();
    if (o.mods & 4) args.back().sext();
  }
  as::MatchedInst mi;
  try {
    mi = as::match_instruction(mnemonic, args, f.target);
  } catch (const Error& e) {
    if (flags & kLayerMade) throw Error("kernel '" + f.name + "': the layer's " + std::string(mnemonic) + ": " + e.what());
    throw;
  }
  MInst m;
  m.inst = mi.inst;
  m.label = mi.label_operand >= 0 ? label : -1;
  m.label_operand = int8_t(mi.label_operand);
  m.flags = flags;
  m.scope = scope;
  bind_placeholders(f, m, slot_reg);
  return m;
}

void bind_placeholders(const MFunction& f, MInst& m, std::span<const int> slot_reg) {
  auto bind = [&](const isa::Operand& op) -> VRef {
    if (!op.present()) return {};
    for (size_t s = 0; s < slot_reg.size(); ++s) {
      const RegFile file = f.regs[size_t(slot_reg[s])].file;
      const uint16_t base = placeholder_code(file, int(s));
      const bool same_file = file == RegFile::Vector ? op.is_vgpr() : op.code <= isa::code::kSgprLast;
      if (same_file && op.code >= base && op.code < base + 16) return VRef{slot_reg[s], uint8_t(op.code - base), op.width};
    }
    return {};
  };
  for (int i = 0; i < m.inst.num_operands; ++i) m.vref[size_t(i)] = bind(m.inst.ops[size_t(i)]);
  if (m.inst.atomic_dst.present()) m.atomic_dst = bind(m.inst.atomic_dst);
}

}  // namespace k100::codegen
