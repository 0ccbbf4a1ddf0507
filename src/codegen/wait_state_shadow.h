// Wait states: what is still missing before each instruction, and filling a
// hazard's shadow with independent instructions before s_nop does.
#pragma once

#include <vector>

#include "k100/codegen/machine_ir.h"

namespace k100::codegen {

int longest_hazard_window();

// The wait states missing before instructions on every backward path, given
// the s_nop already planned before earlier ones (needs the CFG).
class MissingStates {
 public:
  explicit MissingStates(const MFunction& f);
  int missing(int b, int i) const;
  // Plans s_nop before every instruction that needs wait states, in order.
  void plan();
  int added(int b, int i) const { return added_[size_t(b)][size_t(i)]; }
  int total(int b) const;

 private:
  const MFunction& f_;
  int longest_;
  std::vector<std::vector<int>> added_;
};

// Moves independent later ALU instructions of a block into the shadow of a
// hazard where that leaves the block fewer wait states to fill with s_nop.
void shadow_fill(MFunction& f);

}  // namespace k100::codegen
