// k100lc codegen: the kernel authoring layer that kernels and the DSL compiler
// lower into. Instruction selection stays with the caller; the layer owns the
// kernel's signature, register allocation, waits and hazard wait states.
//
// This header: virtual registers. A VGPR or SGPR value of 1 to 16 dwords is
// named by the caller (`k.vgpr(4, "acc")`) and placed by the allocator; a view
// of some of its dwords (`acc[2]`, `acc.sub(0, 2)`) is an operand like the
// whole. Special registers (vcc, exec, m0, ...) stay physical: as::vcc,
// as::exec, as::m0 convert to SGPR.
#pragma once

#include <cstdint>

#include "k100/asm/builder.h"

namespace k100::codegen {

enum class RegFile : uint8_t { Vector, Scalar };

// A view of `width` dwords from dword `offset` of virtual register `id`, or a
// physical special register (id < 0, `code` its operand code).
template <class Self>
struct Reg {
  int32_t id = -1;
  uint16_t code = 0;
  uint8_t offset = 0, width = 0;

  bool virtual_reg() const { return id >= 0; }
  bool valid() const { return width != 0; }
  Self operator[](int i) const { return sub(i, 1); }
  Self sub(int first, int count) const {
    Self r = static_cast<const Self&>(*this);
    if (id >= 0)
      r.offset = uint8_t(offset + first);
    else
      r.code = uint16_t(code + first);
    r.width = uint8_t(count);
    return r;
  }
};

struct VGPR : Reg<VGPR> {};
struct SGPR : Reg<SGPR> {
  SGPR() = default;
  // Special scalar registers (vcc, exec, m0, ...) are used as they are.
  SGPR(as::SGPR special) {
    code = special.code;
    width = special.width;
  }
};

// Alignment the GFX9 encodings require of an SGPR range's first register
// (pairs even, four or more dwords a multiple of 4); VGPR ranges need none.
inline int sgpr_alignment(int width) { return width >= 4 ? 4 : width == 2 ? 2 : 1; }

}  // namespace k100::codegen
