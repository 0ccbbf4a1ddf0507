// Instructions a pass makes (lowering, spills, relaxation, remat): operands
// given as virtual register views, special or physical registers, constants,
// labels and modifiers, matched once like the author's.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

#include "k100/asm/builder.h"
#include "k100/codegen/machine_ir.h"

namespace k100::codegen {

struct PassOperand {
  enum Kind { Virtual, Physical, Imm, Label, Modifier, Plain } kind;
  VRef reg{};
  uint16_t code = 0;  // Physical: operand code (SGPRs, specials, VGPRs at 256 + n)
  uint8_t width = 1;
  int64_t value = 0;  // Imm; Label: the label id
  as::Modifier modifier{};
  std::optional<as::Arg> plain{};  // Plain: anything the builder takes (floats, waitcnt, off, ...)
  int mods = 0;                    // Virtual/Physical: 1 neg, 2 abs, 4 sext

  static PassOperand v(VRef r) { return {Virtual, r}; }
  static PassOperand phys(uint16_t code, uint8_t width) { return {Physical, {}, code, width}; }
  static PassOperand exec() { return phys(isa::code::kExecLo, 2); }
  static PassOperand vcc() { return phys(isa::code::kVccLo, 2); }
  static PassOperand imm(int64_t v) { return {Imm, {}, 0, 1, v}; }
  static PassOperand label(int id) { return {Label, {}, 0, 1, id}; }
  static PassOperand mod(as::Modifier m) { return {Modifier, {}, 0, 1, 0, std::move(m)}; }
};

// Matches the instruction (as the assembler would, once); it carries `scope`
// and `flags`. Throws k100::Error with the assembler's message when it does
// not match.
MInst make_inst(const MFunction& f, std::string_view mnemonic, std::span<const PassOperand> ops, int scope,
                uint8_t flags = kLayerMade);
inline MInst make_inst(const MFunction& f, std::string_view mnemonic, std::initializer_list<PassOperand> ops,
                       int scope, uint8_t flags = kLayerMade) {
  return make_inst(f, mnemonic, std::span<const PassOperand>(ops.begin(), ops.size()), scope, flags);
}

// Sets m.vref / m.atomic_dst for the operands that hold a placeholder of
// slot s (slot_reg[s] is the virtual register matched there).
void bind_placeholders(const MFunction& f, MInst& m, std::span<const int> slot_reg);

}  // namespace k100::codegen
