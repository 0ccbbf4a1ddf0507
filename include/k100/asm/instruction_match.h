// k100lc asm: one instruction matched as the assembler matches it, from typed
// operands (as::Arg, the builder's) or from one statement of text.
//
// Both return the isa::Inst the assembler would produce (encoding chosen by
// llvm's rules, constants folded by the operand's type) and, for a branch,
// which operand holds the target and the label it names. Code generators use
// them to turn an instruction into its final form once, when it is written,
// and to read instructions back from their text form.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "k100/asm/builder.h"
#include "k100/isa/inst.h"

namespace k100::as {

struct MatchedInst {
  isa::Inst inst;
  int label_operand = -1;  // index in inst.ops of a branch target, -1 when none
  int label = -1;          // match_instruction: the Label id of that operand
  std::string label_name;  // parse_instruction: the symbol the statement names there
};

// Throws k100::Error with the assembler's message (no kernel context: the
// caller adds it). A label may only be a branch target.
MatchedInst match_instruction(std::string_view mnemonic, std::span<const Arg> args, isa::Target target);

// One statement ("v_add_f32 v0, s2, v1", "s_cbranch_scc1 loop_top"): constants
// and symbolic immediates as in assembly; a branch target is a name. Throws
// k100::Error with the column of the problem.
MatchedInst parse_instruction(std::string_view statement, isa::Target target);

}  // namespace k100::as
