// Test helper: assemble one instruction line and decode it back to an Inst.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "k100/asm/assembler.h"
#include "k100/isa/codec.h"

namespace k100::isa::test {

inline Inst inst_of(const std::string& line) {
  DiagnosticSink diags;
  as::Options o;
  as::Program p = as::assemble(".text\n" + line + "\n", "line.s", o, diags);
  if (diags.has_errors()) {
    ADD_FAILURE() << line << ": " << diags.format_all();
    return {};
  }
  for (const as::ListingLine& l : p.listing)
    if (l.kind == as::ListingLine::Kind::Instruction) {
      Decoded d = decode(l.bytes);
      EXPECT_TRUE(d.ok) << line;
      return d.inst;
    }
  ADD_FAILURE() << line << ": no instruction";
  return {};
}

}  // namespace k100::isa::test
