// Every row of the ISA table has semantics or is explicitly unsupported; every
// row the core implements is executed by at least one opcode unit case.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "k100/codeobj/reader.h"
#include "k100/emu/semantics.h"
#include "k100/isa/codec.h"
#include "scalar_harness.h"
#include "vector_harness.h"

namespace k100::emu::test {

TEST(EmuCoverage, EveryRowHasSemanticsOrIsUnsupported) {
  SemanticsCoverage c = semantics_coverage();
  std::printf("ISA table rows: %zu; with semantics: %zu (core %zu, VALU %zu); explicitly unsupported: %zu\n", c.rows,
              c.implemented, c.core, c.valu, c.unsupported);
  for (const Unsupported& u : unsupported_instructions())
    std::printf("  unsupported: %-28s %s\n", isa::instructions()[u.id].ident.c_str(), u.reason.c_str());
  for (uint16_t id : c.missing) ADD_FAILURE() << "no semantics and not listed unsupported: " << isa::instructions()[id].ident;
  for (uint16_t id : c.both) ADD_FAILURE() << "implemented but listed unsupported: " << isa::instructions()[id].ident;
  EXPECT_EQ(c.implemented + c.unsupported, c.rows);
}

TEST(EmuCoverage, EveryCoreRowHasAUnitCase) {
  std::vector<std::pair<std::string, std::string>> sources = {
      {"salu", scalar_cases_source(salu_cases(), "salu")},
      {"smem", scalar_cases_source(smem_cases(), "smem")},
      {"vmem", vector_cases_source(vmem_cases(), "vmem")},
      {"ds", vector_cases_source(ds_cases(), "ds")},
      {"faults", fault_kernels_source()},
  };
  std::set<uint16_t> seen;
  for (const auto& [stem, src] : sources) {
    std::string why;
    auto co = assemble(src, stem, &why);
    if (!co) K100_ORACLE_MISSING(why);
    codeobj::CodeObject obj = codeobj::read_code_object(*co, stem);
    const auto& text = obj.text;
    for (size_t pc = 0; pc + 4 <= text.size();) {
      isa::Decoded d = isa::decode(std::span<const uint8_t>(text.data() + pc, text.size() - pc));
      if (d.ok) seen.insert(d.inst.id);
      pc += d.ok ? d.size : 4;
    }
  }
  size_t core = 0, tested = 0;
  for (const auto& d : isa::instructions()) {
    if (!core_implements(d.id)) continue;
    ++core;
    if (seen.count(d.id)) ++tested;
    else ADD_FAILURE() << "core row without a unit case: " << d.ident;
  }
  std::printf("core rows with semantics: %zu, exercised by unit cases: %zu\n", core, tested);
}

}  // namespace k100::emu::test
